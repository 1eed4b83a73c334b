/**
 * drunc's command line for a process: its commands joined by `&&`, the last one `exec`'d so the
 * DAQ application is PID 1 and receives the pod's signals itself.
 */
import type { ExecutableAndArguments } from '@kpm/contracts';

/** Shell builtins that cannot be `exec`'d; a process ending with one keeps bash as PID 1. */
const BUILTINS = new Set(['source', '.', 'cd', 'export', 'set', 'unset', 'eval', 'exit', 'true']);

const PARAMETER = /^\$(\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)/;

/**
 * One bash word that stays one word: double-quoted, with `"`, `\`, `` ` `` and every `$` that
 * does not start a plain parameter escaped. `$NAME` and `${NAME}` still expand (drunc's boot
 * configurations refer to the environment that way); command substitution, globbing and word
 * splitting never happen.
 */
export function shellWord(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '$') {
      const parameter = PARAMETER.exec(text.slice(i));
      if (parameter) {
        out += parameter[0];
        i += parameter[0].length - 1;
      } else out += '\\$';
    } else if (c === '"' || c === '\\' || c === '`') out += `\\${c}`;
    else out += c;
  }
  return `"${out}"`;
}

/** The script for `/bin/bash -c`: `"a" "x" && exec "b" "y"`. */
export function bootScript(commands: readonly ExecutableAndArguments[]): string {
  return commands
    .map(({ exec, args = [] }, i) => {
      const line = [exec, ...args].map(shellWord).join(' ');
      const last = i === commands.length - 1;
      return last && !BUILTINS.has(exec) ? `exec ${line}` : line;
    })
    .join(' && ');
}

/**
 * drunc's script for the connection server (gunicorn): its commands in the background under a
 * shell that traps SIGTERM and SIGQUIT, kills the server and exits 0 — bash stays PID 1.
 */
export function backgroundScript(commands: readonly ExecutableAndArguments[]): string {
  const line = commands
    .map(({ exec, args = [] }) => [exec, ...args].map(shellWord).join(' '))
    .join(' && ');
  return `trap 'kill -KILL $child; wait $child; exit 0' TERM QUIT; ${line} & child=$!; wait $child`;
}
