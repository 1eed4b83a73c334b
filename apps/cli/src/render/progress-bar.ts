/**
 * A one-line progress bar on stderr while a boot or kill of many processes runs. Only on a
 * terminal: piped output stays clean for scripts.
 */
import type { Colours } from '../output';
import type { ProgressSnapshot } from '../progress/command-progress';

const WIDTH = 30;

/** `booted  [██████████░░░░░░░░░░░░░░░░░░░░]  12/36  1 failed` */
export function formatProgress(
  snapshot: ProgressSnapshot,
  colours: Colours,
  width = WIDTH,
): string {
  const { label, done, failed, total } = snapshot;
  if (total === undefined) return `${label}  ${done}…`;
  const filled = total === 0 ? width : Math.min(width, Math.round((done / total) * width));
  const bar = colours.green('█'.repeat(filled)) + colours.dim('░'.repeat(width - filled));
  const failures = failed > 0 ? `  ${colours.red(`${failed} failed`)}` : '';
  return `${label}  [${bar}]  ${done}/${total}${failures}`;
}

export class ProgressBar {
  private last = '';
  private shown = false;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly colours: Colours,
  ) {}

  get enabled(): boolean {
    return this.stream.isTTY === true;
  }

  update(snapshot: ProgressSnapshot): void {
    if (!this.enabled) return;
    const line = formatProgress(snapshot, this.colours);
    if (line === this.last) return;
    this.last = line;
    this.shown = true;
    this.stream.write(`\r\x1b[2K${line}`);
  }

  /** Clears the line so the result prints where the bar was. */
  clear(): void {
    if (this.shown) this.stream.write('\r\x1b[2K');
    this.shown = false;
  }
}
