import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { outsideReferences } from './outside-references.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** The check's own files name what they look for. */
const SELF = new Set([
  'test/architecture/outside-references.ts',
  'test/architecture/outside-references.test.ts',
]);

describe('no comment or doc refers to a document outside the repository', () => {
  it('holds for every source and doc file', () => {
    const files = globSync(
      '{lib,infra,functions,bench,console,test,docs,events,cli}/**/*.{ts,tsx,js,cjs,mjs,md,css,yaml,json}',
      { cwd: ROOT },
    )
      .concat('README.md')
      .filter((file) => !SELF.has(file))
      .sort();
    expect(files.length).toBeGreaterThan(1000);
    const offenders = files.flatMap((file) =>
      outsideReferences(readFileSync(join(ROOT, file), 'utf8')).map((found) => `${file}:${found}`),
    );
    expect(offenders).toEqual([]);
  });

  it('names each planted reference, and lets the repository’s own docs and rule names pass', () => {
    const planted = [
      '/**',
      ' * Exact amounts (DESIGN.md rule 1), bounded pages (design, data rule 7).',
      ' * See ../shared/DESIGN.md and /work/shared/API.md §3; Design Rule 9 too.',
      '  // Read back as bigint (rule 1: amounts stay exact).',
      ' */',
      "// The limits' message names its rule: 'which breaks limits rule 0 (users:*)'.",
      '// docs/decisions/ledger.md, "Amounts"; docs/design.md is ours; `rule 3` alone is a word.',
      "import { x } from '../support/shared/x.js';",
    ].join('\n');
    expect(outsideReferences(planted)).toEqual([
      '2: DESIGN.md (DESIGN.md)',
      '2: data rule 7 (a numbered design or data rule)',
      '3: DESIGN.md (DESIGN.md)',
      '3: ../shared/ (a shared folder beside the repository)',
      '3: /work/shared/ (a shared folder beside the repository)',
      '3: Design Rule 9 (a numbered design or data rule)',
      '4: (rule 1 (a bare numbered rule)',
    ]);
  });
});
