import { type Command, EXIT, printable, usageError } from '../command-line.ts';

/** The words completion offers after a command: its options, or its fixed arguments (`local status|stop`). */
function wordsOf(command: Command): string[] {
  if (command.name === 'local') return ['status', 'stop'];
  if (command.name === 'completion') return ['bash', 'zsh'];
  return [...command.options.map((option) => `--${option.name}`), '--help'];
}

/** Options whose value is a file or a folder: completed with paths. */
function pathOptions(all: readonly Command[]): string[] {
  return all.flatMap((command) =>
    command.options.filter((option) => /<(file|dir|path)/.test(option.value ?? '')).map((option) => `--${option.name}`),
  );
}

const shellWord = (word: string) => (/^[A-Za-z0-9_.:=-]+$/.test(word) ? word : "''");

/**
 * The bash completion script: `diagnosis <TAB>` — and `npx diagnosis <TAB>`, how this project's bin is run — offers
 * the commands, `diagnosis <command> <TAB>` its options (or its fixed arguments), a path option completes paths.
 * Generated from the command table, so it cannot drift. NOTE: it is registered for `npx` too (the bin is not on
 * PATH); any other `npx` line completes file names, as bash does when nothing is registered.
 */
function bashCompletion(all: readonly Command[]): string {
  const names = all.map((command) => command.name);
  const cases = all
    .map((command) => `    ${command.name}) words="${wordsOf(command).map(shellWord).join(' ')}" ;;`)
    .join('\n');
  return `# bash completion for diagnosis and npx diagnosis: source <(npx diagnosis completion bash)
_diagnosis() {
  local cur prev words o=0
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  if [ "\${COMP_WORDS[0]##*/}" = npx ]; then
    if [ "\${COMP_CWORD}" -eq 1 ]; then
      COMPREPLY=( $(compgen -W "diagnosis" -- "\${cur}") $(compgen -f -- "\${cur}") )
      return 0
    fi
    if [ "\${COMP_WORDS[1]}" != diagnosis ]; then
      COMPREPLY=( $(compgen -f -- "\${cur}") )
      return 0
    fi
    o=1
  fi
  if [ "\${COMP_CWORD}" -eq $(( 1 + o )) ]; then
    COMPREPLY=( $(compgen -W "${names.join(' ')} help --help --version" -- "\${cur}") )
    return 0
  fi
  case "\${prev}" in
    ${pathOptions(all).join('|') || '--no-path-option'}) COMPREPLY=( $(compgen -f -- "\${cur}") ); return 0 ;;
  esac
  case "\${COMP_WORDS[1 + o]}" in
${cases}
    help) words="${names.join(' ')}" ;;
    *) words="" ;;
  esac
  COMPREPLY=( $(compgen -W "\${words}" -- "\${cur}") )
  return 0
}
complete -F _diagnosis diagnosis npx
`;
}

/** The zsh completion script (native `compdef`, for `diagnosis` and `npx diagnosis`; source it after `compinit`). */
function zshCompletion(all: readonly Command[]): string {
  const names = all.map((command) => command.name);
  const cases = all
    .map((command) => `    ${command.name}) compadd -- ${wordsOf(command).map(shellWord).join(' ')} ;;`)
    .join('\n');
  return `#compdef diagnosis npx
# zsh completion for diagnosis and npx diagnosis: source <(npx diagnosis completion zsh)   (after compinit)
_diagnosis() {
  local o=0
  if [[ \${words[1]:t} == npx ]]; then
    if (( CURRENT == 2 )); then compadd -- diagnosis; _files; return; fi
    if [[ \${words[2]} != diagnosis ]]; then _files; return; fi
    o=1
  fi
  if (( CURRENT == 2 + o )); then
    compadd -- ${names.join(' ')} help --help --version
    return
  fi
  case "\${words[CURRENT-1]}" in
    ${pathOptions(all).join('|') || '--no-path-option'}) _files; return ;;
  esac
  case "\${words[2 + o]}" in
${cases}
    help) compadd -- ${names.join(' ')} ;;
  esac
}
compdef _diagnosis diagnosis npx
`;
}

/** `diagnosis completion bash|zsh`: prints the shell's completion script on stdout. */
export function createCompletionCommand(all: () => readonly Command[]): Command {
  return {
    name: 'completion',
    summary: 'print the shell completion script (bash or zsh)',
    synopsis: 'bash | zsh',
    description: [
      'Prints a completion script for the commands and their options. Load it in your shell:',
      '  bash: source <(npx diagnosis completion bash)     zsh: source <(npx diagnosis completion zsh)  (after compinit)',
      'It completes `npx diagnosis …` (how the bin runs here) as well as `diagnosis …`.',
    ],
    arguments: [['bash | zsh', 'the shell']],
    options: [],
    examples: ['source <(npx diagnosis completion bash)', 'npx diagnosis completion zsh > ~/.zsh/_diagnosis'],
    exitCodes: [
      [EXIT.OK, 'printed'],
      [EXIT.USAGE, 'bad usage: neither bash nor zsh'],
    ],
    settings: [],
    async run({ positionals }, io) {
      const shell = positionals[0];
      if (positionals.length !== 1 || (shell !== 'bash' && shell !== 'zsh')) {
        throw usageError(`expected bash or zsh, not '${printable(positionals.join(' '))}'`);
      }
      io.stdout(shell === 'bash' ? bashCompletion(all()) : zshCompletion(all()));
      return EXIT.OK;
    },
  };
}
