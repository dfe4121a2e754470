import { describe, expect, it } from 'vitest';
import { longFunctions } from './long-functions.js';

/** A function of `name` whose text spans `lines` lines in all. */
const fn = (head: string, lines: number) =>
  `${head} {\n${Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n')}\n}\n`;

describe('longFunctions', () => {
  it('names each function over the limit with its first line and length, declarations, arrows and methods', () => {
    const text = [
      fn('export function short()', 5),
      fn('function long()', 7),
      fn('const arrow = () =>', 8),
      `class Pool {\n${fn('  method()', 6)}}\n`,
    ].join('');
    expect(longFunctions('sample.ts', text, 5)).toEqual([
      { name: 'long', line: 6, lines: 7 },
      { name: 'arrow', line: 13, lines: 8 },
      { name: 'method', line: 22, lines: 6 },
    ]);
  });

  it('measures a route registration like any function, and the handlers inside it too', () => {
    const handler = fn('  app.post("/x", async (c) =>', 6).replace(/}\n$/, '});\n');
    const text = `export function ledgerRoutes(app) {\n${handler}${handler}}\n`;
    expect(longFunctions('routes.ts', text, 5)).toEqual([
      { name: 'ledgerRoutes', line: 1, lines: 14 },
      { name: '<anonymous>', line: 2, lines: 6 },
      { name: '<anonymous>', line: 8, lines: 6 },
    ]);
  });
});
