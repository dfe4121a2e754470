import { readdirSync, readFileSync } from 'node:fs';

/** True while a process with this pid exists (signal 0 checks without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** True while the process runs: exists and has not exited (a zombie waiting to be reaped has). */
export function isRunning(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** Pids of the live children of `parentPid` whose command line contains `text` (read from /proc). */
export function childProcesses(parentPid: number, text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const zombie = /^State:\s+Z/m.test(status);
      if (
        !zombie &&
        status.includes(`\nPPid:\t${parentPid}\n`) &&
        readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)
      )
        pids.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return pids;
}
