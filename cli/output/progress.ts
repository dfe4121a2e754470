/** Redraws at most this often: a terminal line per page would flicker and slow a fast walk. */
const REDRAW_EVERY_MS = 100;
const BAR_WIDTH = 30;

export interface Progress {
  update(done: number): void;
  /** Erases the line, leaving the terminal as it was. */
  stop(): void;
}

const none: Progress = { update: () => undefined, stop: () => undefined };

/**
 * One self-redrawing line on a terminal — `verifying logs [#######.......]  1200/5000  24%` — on stderr, so stdout
 * stays the command's output. Nothing at all when stderr is not a terminal (a pipe, a file, CI) or with --json:
 * carriage returns do not belong in logs. Our own dozen lines rather than a progress-bar package: this is the only
 * bar the CLI draws, and it needs no more than this.
 */
export function progressLine(
  stream: NodeJS.WritableStream & { isTTY?: boolean },
  label: string,
  total: number,
  enabled: boolean,
  now: () => number = Date.now,
): Progress {
  if (!enabled || !stream.isTTY || total === 0) return none;
  let drawnAt: number | undefined;
  const draw = (done: number) => {
    const ratio = Math.min(1, done / total);
    const filled = Math.round(ratio * BAR_WIDTH);
    const bar = `${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}`;
    stream.write(`\r${label} [${bar}]  ${done}/${total}  ${Math.floor(ratio * 100)}%`);
  };
  return {
    update(done) {
      const at = now();
      if (drawnAt !== undefined && at - drawnAt < REDRAW_EVERY_MS && done < total) return;
      drawnAt = at;
      draw(done);
    },
    stop() {
      if (drawnAt !== undefined) stream.write('\r\x1b[2K');
    },
  };
}
