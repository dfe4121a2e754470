import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from './env.js';

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** The variables in the first column of the README's "Configuration" tables. */
function readmeVariables(): string[] {
  const readme = read('README.md');
  const start = readme.indexOf('\n## Configuration\n');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!));
}

describe('configuration variables', () => {
  it('README lists exactly the variables lib/config/env.ts parses', () => {
    expect([...new Set(readmeVariables())].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it('env.ts reads no variable it does not list (a direct variables.NAME or process.env.NAME read would escape the README check)', () => {
    const source = read('lib/config/env.ts');
    const direct = [
      ...source.matchAll(
        /\b(?:variables|env)(?:\.([A-Z][A-Z0-9_]*)|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g,
      ),
    ];
    const named = [...source.matchAll(/\(variables, '([A-Z][A-Z0-9_]*)'/g)];
    const names = [...direct.map((m) => m[1] ?? m[2]!), ...named.map((m) => m[1]!)];
    expect(names.length).toBeGreaterThan(10);
    expect(names.filter((name) => !CONFIG_VARIABLES.includes(name))).toEqual([]);
  });

  it('no other file of lib/ or functions/ reads process.env', () => {
    const code = (file: string) =>
      read(file)
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
    const readers = globSync(['lib/**/*.ts', 'functions/*.ts'], { cwd: root }).filter(
      (file) => !file.endsWith('.test.ts') && /(?<!['"`])\bprocess\.env\b/.test(code(file)),
    );
    expect(readers).toEqual(['lib/config/env.ts']);
  });
});
