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
