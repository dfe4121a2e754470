import { readFileSync } from 'node:fs';

/** CPU time of one process so far (user + system, every thread), in seconds (/proc counts in 1/100 s). */
export function processCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Busy and total time so far, in /proc/stat's 1/100 s: of the machine (every core), then of each core. */
function statTicks(): { machine: CoreTicks; cores: CoreTicks[] } {
  const lines = readFileSync('/proc/stat', 'utf8').split('\n');
  return {
    machine: ticksOf(lines[0]!),
    cores: lines.filter((line) => /^cpu\d+ /.test(line)).map(ticksOf),
  };
}

interface CoreTicks {
  busy: number;
  total: number;
}

/** One /proc/stat `cpu` line: every field but idle (4th) and iowait (5th) is busy time. */
function ticksOf(line: string): CoreTicks {
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((sum, n) => sum + n, 0);
  return { busy: total - fields[3]! - fields[4]!, total };
}

/** Busy CPU time of the whole machine so far, in seconds (every core). */
export function machineBusySeconds(): number {
  return statTicks().machine.busy / 100;
}

/** Busy and total time of each core so far (for `coreBusyPercent`). */
export function coreTicks(): CoreTicks[] {
  return statTicks().cores;
}

/** Each core's busy share between two `coreTicks` readings, in percent. */
export function coreBusyPercent(
  before: readonly CoreTicks[],
  after: readonly CoreTicks[],
): number[] {
  return after.map((a, i) => {
    const b = before[i] ?? { busy: 0, total: 0 };
    const total = a.total - b.total;
    return total > 0 ? Math.round(((a.busy - b.busy) / total) * 100) : 0;
  });
}
