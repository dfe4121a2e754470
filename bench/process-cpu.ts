import { readFileSync } from 'node:fs';

/** CPU time of one process so far (user + system, every thread), in seconds (/proc counts in 1/100 s). */
export function processCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Busy CPU time of the whole machine so far, in seconds (every core; /proc/stat counts in 1/100 s). */
export function machineBusySeconds(): number {
  const fields = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  // Every field but idle (4th) and iowait (5th) is busy time.
  const busy = fields.slice(0, 8).reduce((sum, n, i) => (i === 3 || i === 4 ? sum : sum + n), 0);
  return busy / 100;
}

/** Busy and total time of each core so far, in /proc/stat's 1/100 s (busy as in machineBusySeconds). */
export function coreTicks(): Array<{ busy: number; total: number }> {
  return readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .filter((line) => /^cpu\d+ /.test(line))
    .map((line) => {
      const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
      const total = fields.reduce((sum, n) => sum + n, 0);
      return { busy: total - fields[3]! - fields[4]!, total };
    });
}

/** Each core's busy share between two `coreTicks` readings, in percent. */
export function coreBusyPercent(
  before: ReadonlyArray<{ busy: number; total: number }>,
  after: ReadonlyArray<{ busy: number; total: number }>,
): number[] {
  return after.map((a, i) => {
    const b = before[i] ?? { busy: 0, total: 0 };
    const total = a.total - b.total;
    return total > 0 ? Math.round(((a.busy - b.busy) / total) * 100) : 0;
  });
}
