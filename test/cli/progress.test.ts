import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { progressLine } from '../../cli/output/progress.js';

/** A stream that records what is written, a terminal or not. */
function sink(isTTY: boolean) {
  const written: string[] = [];
  const stream = Object.assign(
    new Writable({
      write: (chunk, _encoding, done) => {
        written.push(String(chunk));
        done();
      },
    }),
    { isTTY },
  );
  return { stream, written };
}

describe('progressLine', () => {
  it('redraws one line on a terminal, at most every 100 ms but always at the end, then erases it', () => {
    const { stream, written } = sink(true);
    let clock = 1000;
    const progress = progressLine(stream, 'verifying logs', 40, true, () => clock);
    progress.update(10);
    clock += 50;
    progress.update(20); // too soon: skipped
    clock += 60;
    progress.update(30);
    clock += 1;
    progress.update(40); // the last one is always drawn
    progress.stop();
    expect(written).toEqual([
      `\rverifying logs [${'#'.repeat(8)}${'.'.repeat(22)}]  10/40  25%`,
      `\rverifying logs [${'#'.repeat(23)}${'.'.repeat(7)}]  30/40  75%`,
      `\rverifying logs [${'#'.repeat(30)}]  40/40  100%`,
      '\r\x1b[2K',
    ]);
  });

  it('draws nothing when the stream is not a terminal, when disabled (--json), or for an empty log', () => {
    for (const [isTTY, enabled, total] of [
      [false, true, 10],
      [true, false, 10],
      [true, true, 0],
    ] as const) {
      const { stream, written } = sink(isTTY);
      const progress = progressLine(stream, 'verifying logs', total, enabled);
      progress.update(5);
      progress.stop();
      expect(written, `${isTTY} ${enabled} ${total}`).toEqual([]);
    }
  });
});
