import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const LOCK_FILE = 'platform.lock';

export class DataDirInUseError extends Error {}

export interface DataDirLock {
  release(): void;
}

/**
 * One platform per data directory: a second one would find the first one's DynamoDB Local through its pid file
 * and stop it. The lock is a file created exclusively (O_EXCL) holding the owner's pid; a lock whose owner is
 * gone (killed outright) is taken over. Released on stop, and on exit if stop was skipped.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      const owner = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && isNodeProcess(owner)) {
        throw new DataDirInUseError(
          `DATA_DIR ${dataDir} is in use by another platform (pid ${owner}); stop it, or set DATA_DIR to another directory`,
        );
      }
      rmSync(path, { force: true }); // stale: its owner is gone
      continue;
    }
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    break;
  }
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.removeListener('exit', release);
    try {
      if (Number(readFileSync(path, 'utf8').trim()) === process.pid) rmSync(path, { force: true });
    } catch {
      // already gone
    }
  };
  process.once('exit', release);
  return { release };
}

/** A live process that is a Node process (on Linux; elsewhere any live process), so a reused pid is not taken for the owner. */
function isNodeProcess(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('node');
  } catch {
    return process.platform !== 'linux';
  }
}
