/**
 * `@diagnosis/cli`: the `diagnosis` command as a library, for tests and for commands added to its table (`COMMANDS`).
 */
export { renderMainHelp, runCli } from './cli.ts';
export { CliError, type CliIo, type Command, EXIT, type OptionSpec, type ParsedArgs } from './command-line.ts';
export { COMMANDS } from './commands/index.ts';
export { type LocalDiagnosisOptions, runLocalDiagnosis } from './local/run-local-diagnosis.ts';
export { loadRunTrace } from './render/load-run-trace.ts';
export { renderReport } from './render/render-report.ts';
export { renderHtml } from './render/trace-html.ts';
export { renderMermaid } from './render/trace-mermaid.ts';
export { renderTimeline } from './render/trace-timeline.ts';
export { type CommandLine, runCommandLine } from './run-command-line.ts';
