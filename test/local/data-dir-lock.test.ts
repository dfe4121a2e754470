import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirInUseError, lockDataDir } from '../../infra/local/data-dir-lock.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lock-'));
  dirs.push(dir);
  return dir;
}

describe('lockDataDir', () => {
  it('refuses a directory whose lock a live Node process holds, and takes it over once that process is gone', async () => {
    const dir = dataDir();
    const owner = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], {
      stdio: 'ignore',
    });
    const gone = new Promise((r) => owner.once('exit', r));
    writeFileSync(join(dir, 'platform.lock'), `${owner.pid}\n`);

    expect(() => lockDataDir(dir)).toThrow(DataDirInUseError);
    expect(() => lockDataDir(dir)).toThrow(
      `DATA_DIR ${dir} is in use by another platform (pid ${owner.pid}); stop it, or set DATA_DIR to another directory`,
    );
    expect(readFileSync(join(dir, 'platform.lock'), 'utf8')).toBe(`${owner.pid}\n`);

    owner.kill('SIGKILL');
    await gone;
    const lock = lockDataDir(dir);
    expect(readFileSync(join(dir, 'platform.lock'), 'utf8')).toBe(`${process.pid}\n`);
    lock.release();
    expect(existsSync(join(dir, 'platform.lock'))).toBe(false);
  });

  it('refuses a second lock in the same process while the first is held', () => {
    const dir = dataDir();
    const lock = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(`(pid ${process.pid})`);
    lock.release();
    lockDataDir(dir).release();
  });

  it('takes over a lock file that names no process, and creates the directory if needed', () => {
    const dir = join(dataDir(), 'new');
    const first = lockDataDir(dir);
    first.release();
    writeFileSync(join(dir, 'platform.lock'), 'garbage\n');
    const lock = lockDataDir(dir);
    expect(readFileSync(join(dir, 'platform.lock'), 'utf8')).toBe(`${process.pid}\n`);
    lock.release();
  });
});
