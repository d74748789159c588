import { type Command, printable, usageError } from '../command-line.ts';

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
 * The bash completion script: `diagnosis <TAB>` offers the commands, `diagnosis <command> <TAB>` its options (or
 * its fixed arguments), a path option completes paths. Generated from the command table, so it cannot drift.
 */
export function bashCompletion(all: readonly Command[]): string {
  const names = all.map((command) => command.name);
  const cases = all
    .map((command) => `    ${command.name}) words="${wordsOf(command).map(shellWord).join(' ')}" ;;`)
    .join('\n');
  return `# bash completion for diagnosis: source <(diagnosis completion bash)   (or save it in ~/.bash_completion.d/)
_diagnosis() {
  local cur prev words
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  if [ "\${COMP_CWORD}" -eq 1 ]; then
    COMPREPLY=( $(compgen -W "${names.join(' ')} help --help --version" -- "\${cur}") )
    return 0
  fi
  case "\${prev}" in
    ${pathOptions(all).join('|') || '--no-path-option'}) COMPREPLY=( $(compgen -f -- "\${cur}") ); return 0 ;;
  esac
  case "\${COMP_WORDS[1]}" in
${cases}
    help) words="${names.join(' ')}" ;;
    *) words="" ;;
  esac
  COMPREPLY=( $(compgen -W "\${words}" -- "\${cur}") )
  return 0
}
complete -F _diagnosis diagnosis
`;
}

/** The zsh completion script (native `compdef`; source it after `compinit`). */
export function zshCompletion(all: readonly Command[]): string {
  const names = all.map((command) => command.name);
  const cases = all
    .map((command) => `    ${command.name}) compadd -- ${wordsOf(command).map(shellWord).join(' ')} ;;`)
    .join('\n');
  return `#compdef diagnosis
# zsh completion for diagnosis: source <(diagnosis completion zsh)   (after compinit)
_diagnosis() {
  if (( CURRENT == 2 )); then
    compadd -- ${names.join(' ')} help --help --version
    return
  fi
  case "\${words[CURRENT-1]}" in
    ${pathOptions(all).join('|') || '--no-path-option'}) _files; return ;;
  esac
  case "\${words[2]}" in
${cases}
    help) compadd -- ${names.join(' ')} ;;
  esac
}
compdef _diagnosis diagnosis
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
      '  bash: source <(diagnosis completion bash)     zsh: source <(diagnosis completion zsh)  (after compinit)',
    ],
    arguments: [['bash | zsh', 'the shell']],
    options: [],
    examples: ['source <(npx diagnosis completion bash)', 'npx diagnosis completion zsh > ~/.zsh/_diagnosis'],
    async run({ positionals }, io) {
      const shell = positionals[0];
      if (positionals.length !== 1 || (shell !== 'bash' && shell !== 'zsh')) {
        throw usageError(`expected bash or zsh, not '${printable(positionals.join(' '))}'`);
      }
      io.stdout(shell === 'bash' ? bashCompletion(all()) : zshCompletion(all()));
      return 0;
    },
  };
}
