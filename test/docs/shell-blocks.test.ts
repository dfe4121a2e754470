/**
 * Every shell block of README.md and docs/guides is a walkthrough that a test runs verbatim, or says why it is not
 * run (`<!-- not run: ... -->`, on the line before it). A block with neither, or a walkthrough no test names,
 * fails here: the documents cannot gain an untested example unnoticed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentFiles } from '../support/readme.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** Every `sh`/`bash` fence with the line before it, per document. */
function shellBlocks(): Array<{ file: string; line: number; marker: string }> {
  return documentFiles().flatMap((file) => {
    const lines = readFileSync(file, 'utf8').split('\n');
    return lines.flatMap((text, i) =>
      /^\s*```(sh|bash)\s*$/.test(text)
        ? [{ file: basename(file), line: i + 1, marker: (lines[i - 1] ?? '').trim() }]
        : [],
    );
  });
}

/** The test files that run walkthroughs, as text. */
const walkthroughTests = ['test/local', 'test/docs'].flatMap((dir) =>
  readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => readFileSync(join(ROOT, dir, f), 'utf8')),
);

describe('shell blocks of the README and the guides', () => {
  it('are each a walkthrough or say why they are not run', () => {
    const blocks = shellBlocks();
    expect(blocks.length).toBeGreaterThan(10);
    const unmarked = blocks.filter(
      (b) => !/^<!-- (walkthrough: [a-z0-9-]+|not run: .+) -->$/.test(b.marker),
    );
    expect(unmarked).toEqual([]);
  });

  it('walkthroughs are each named by a test that runs them', () => {
    const names = shellBlocks()
      .map((b) => /^<!-- walkthrough: ([a-z0-9-]+) -->$/.exec(b.marker)?.[1])
      .filter((n): n is string => n !== undefined);
    expect(names).toEqual([...new Set(names)]);
    expect(names.filter((name) => !walkthroughTests.some((t) => t.includes(`'${name}'`)))).toEqual(
      [],
    );
  });

  it('the README stays short, with its table of contents', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    expect(readme).toContain(
      '**Contents:** [Quick start](#quick-start) · [Concepts](#concepts) · [Configuration](#configuration) ·',
    );
    for (const section of ['Quick start', 'Concepts', 'Configuration', 'Deploy', 'Guides'])
      expect(readme).toContain(`\n## ${section}\n`);
  });
});
