import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compile } from '../../lib/numscript/index.js';
import { generateParserSource, PARSER_PATH, PARSER_TYPES, PARSER_TYPES_PATH } from '../../lib/numscript/parser-build.js';

describe('generated parser', () => {
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
});
