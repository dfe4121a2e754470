import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ownLimits } from './test-limits.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('limits come from TEST_TIME_SCALE only', () => {
  it('no test file sets a limit of its own', () => {
    const files = globSync('{test,lib,events,infra,console,functions,cli,bench}/**/*.test.ts', {
      cwd: ROOT,
    }).sort();
    expect(files.length).toBeGreaterThan(200);
    const offenders = files.filter(
      (file) =>
        file !== 'test/architecture/test-limits.test.ts' &&
        ownLimits(readFileSync(join(ROOT, file), 'utf8')).length > 0,
    );
    expect(offenders).toEqual([]);
  });

  it('finds each form of a limit of its own, and lets a scaled one and a short sleep pass', () => {
    expect(ownLimits("it('a', async () => {\n  await x();\n}, 120_000);")).toEqual([
      '3: }, 120_000);',
    ]);
    expect(ownLimits("it(\n  'a',\n  async () => {},\n  SLOW,\n);")).toEqual(['4: SLOW,']);
    expect(ownLimits("it(\n  'a',\n  async () => {},\n  3 * START_TIMEOUT,\n);")).toEqual([
      '4: 3 * START_TIMEOUT,',
    ]);
    expect(ownLimits("await until('x', probe,\n  10_000,\n);")).toEqual(['2: 10_000,']);
    expect(ownLimits('await page.waitForSelector(s, { timeout: 30_000 });')).toEqual([
      '1: await page.waitForSelector(s, { timeout: 30_000 });',
    ]);
    expect(ownLimits("it('a', async () => {\n  await x();\n}, TEST_LIMIT_MS);")).toEqual([]);
    expect(ownLimits("await until('x', probe,\n  WAIT_LIMIT_MS,\n);")).toEqual([]);
    expect(ownLimits('setTimeout(() => {\n  done();\n}, 100);')).toEqual([]);
    expect(ownLimits('expect(read()).toBe(\n  20000,\n);')).toEqual([]);
    expect(ownLimits('check(input, (x) => {\n  y(x);\n}, FACTS);')).toEqual([]);
    expect(ownLimits("pool.invoke({ action: 'hang' }, { timeoutMs: 300 })")).toEqual([]);
    expect(ownLimits('hold(300n, { timeout: 3600 });')).toEqual([]);
  });
});
