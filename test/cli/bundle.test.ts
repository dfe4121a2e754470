/**
 * The CLI runs from a bundle of its source (bin/cli-bundle.mjs), not through tsx: built at the first call and again
 * whenever a file it was built from changed. Before, every call compiled TypeScript (2-4 s; `test/cli` took 389 s).
 */
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildBundle, isStale } from '../../bin/cli-bundle.mjs';
import { REPO_ROOT } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the CLI bundle', () => {
  it('is stale when missing, when an input is newer than it or gone, and fresh otherwise', () => {
    const bundle = join(dir, 'b.mjs');
    const inputs = join(dir, 'b.inputs.json');
    const input = join(dir, 'a.ts');
    expect(isStale(bundle, inputs)).toBe(true);
    writeFileSync(input, 'export {}');
    writeFileSync(bundle, 'export {}');
    writeFileSync(inputs, JSON.stringify(['a.ts']));
    utimesSync(input, 1_000, 1_000);
    utimesSync(bundle, 2_000, 2_000);
    expect(isStale(bundle, inputs)).toBe(false);
    utimesSync(input, 3_000, 3_000);
    expect(isStale(bundle, inputs)).toBe(true);
    utimesSync(input, 1_000, 1_000);
    writeFileSync(inputs, JSON.stringify(['a.ts', 'gone.ts']));
    expect(isStale(bundle, inputs)).toBe(true);
  });

  it('is built from cli/main.ts with the repository files it imports, its npm packages left external', async () => {
    const bundle = join(dir, 'platform-cli.mjs');
    const inputs = join(dir, 'platform-cli.inputs.json');
    await buildBundle(REPO_ROOT, bundle, inputs);
    const listed = JSON.parse(readFileSync(inputs, 'utf8')) as string[];
    const absolute = listed.map((p) => join(dir, p));
    expect(absolute).toContain(join(REPO_ROOT, 'cli', 'main.ts'));
    expect(absolute).toContain(join(REPO_ROOT, 'lib', 'json', 'bigint-json.ts'));
    expect(listed.some((p) => p.includes('node_modules'))).toBe(false);
    expect(readFileSync(bundle, 'utf8')).toMatch(/^import \{[^}]*\} from "commander";$/m);
    expect(isStale(bundle, inputs)).toBe(false);
  });
});
