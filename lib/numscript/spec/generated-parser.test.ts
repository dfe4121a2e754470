import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compile } from '../index.js';
import {
  generateParserSource,
  PARSER_PATH,
  PARSER_TYPES,
  PARSER_TYPES_PATH,
} from '../parser-build.js';

describe('generated parser and compile cache', () => {
  it('is up to date with numscript.peggy (run `npm run numscript:generate`)', () => {
    expect(readFileSync(PARSER_PATH, 'utf8')).toBe(generateParserSource());
    expect(readFileSync(PARSER_TYPES_PATH, 'utf8')).toBe(PARSER_TYPES);
  });

  it('caches compiled programs by their text', () => {
    const text = 'send [COIN 1] ( source = @world destination = @cache_test )';
    expect(compile(text)).toBe(compile(text));
    expect(compile(text)).not.toBe(compile(`${text} `));
    expect(Object.isFrozen(compile(text))).toBe(true);
  });

  it('keeps at most 256 programs, evicting the least recently used', () => {
    const script = (i: number) => `set_tx_meta("lru", ${i})`;
    const first = compile(script(0));
    const kept = compile(script(1));
    for (let i = 2; i < 257; i++) {
      compile(script(i));
      compile(script(1)); // keeps script 1 recently used
    }
    expect(compile(script(1))).toBe(kept);
    expect(compile(script(0))).not.toBe(first);
  });
});
