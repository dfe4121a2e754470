import { readdirSync, readFileSync } from 'node:fs';
import { processCpuSeconds } from './process-cpu.js';

/** What a process of the bench's tree is, by its command line. */
function roleOf(commandLine: string): string | undefined {
  if (commandLine.includes('DynamoDBLocal')) return 'dynamodb-local';
  if (commandLine.includes('ledger-writer')) return 'ledger-writer';
  if (commandLine.includes('ledger')) return 'ledger-workers';
  return undefined;
}

/** Every process started, directly or not, by this one: pid → command line. */
function descendants(): Map<number, string> {
  const parentOf = new Map<number, number>();
  const commandOf = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      commandOf.set(
        Number(entry),
        readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' '),
      );
    } catch {
      // exited meanwhile
    }
  }
  const found = new Map<number, string>();
  const walk = (pid: number) => {
    for (const [child, parent] of parentOf)
      if (parent === pid && !found.has(child)) {
        found.set(child, commandOf.get(child) ?? '');
        walk(child);
      }
  };
  walk(process.pid);
  return found;
}

/**
 * CPU seconds so far by role: this process (the bench: gateway and load generator), DynamoDB Local, the ledger
 * worker processes and the writer. A process that exits between two readings drops out of the later one.
 */
export function cpuSecondsByRole(): Map<string, number> {
  const byRole = new Map<string, number>([
    ['bench (gateway + load)', processCpuSeconds(process.pid)],
  ]);
  for (const [pid, commandLine] of descendants()) {
    const role = roleOf(commandLine);
    if (!role) continue;
    try {
      byRole.set(role, (byRole.get(role) ?? 0) + processCpuSeconds(pid));
    } catch {
      // exited meanwhile
    }
  }
  return byRole;
}
