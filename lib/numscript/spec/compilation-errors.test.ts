import { describe, expect, it } from 'vitest';
import { compile, NumscriptError } from '../index.js';

function compileError(source: string) {
  try {
    compile(source);
  } catch (error) {
    expect(error).toBeInstanceOf(NumscriptError);
    const { code, kind, line, column, message } = error as NumscriptError;
    return { code, kind, line, column, message };
  }
  throw new Error('expected a compilation error');
}

describe('compilation errors', () => {
  it('reports a syntax error with its line and column', () => {
    expect(compileError('send [COIN 10] (\n  source = @a\n  destinaton = @b\n)')).toMatchObject({
      code: 'COMPILATION_FAILED',
      kind: 'ParseError',
      line: 3,
      column: 3,
    });
  });

  it('reports unknown types, functions and variables where they are written', () => {
    expect(compileError('vars {\n  money $m\n}')).toMatchObject({
      kind: 'InvalidType',
      line: 2,
      column: 3,
    });
    expect(compileError('set_meta("a", 1)')).toMatchObject({
      kind: 'UnboundFunction',
      line: 1,
      column: 1,
    });
    expect(compileError('send $m ( source = @a destination = @b )')).toMatchObject({
      kind: 'UnboundVariable',
      line: 1,
      column: 6,
    });
    expect(compileError('vars { number $n number $n }')).toMatchObject({
      kind: 'DuplicateVariable',
    });
  });

  it('reports ill-typed expressions before running', () => {
    expect(
      compileError('vars { account $a }\nsend $a ( source = @a destination = @b )'),
    ).toMatchObject({
      kind: 'TypeError',
      line: 2,
      column: 6,
    });
    expect(
      compileError('send [COIN 1] ( source = @a destination = { 50% to @b "x" to @c } )').kind,
    ).toBe('TypeError');
    expect(compileError('set_tx_meta("a")').kind).toBe('BadArity');
    expect(compileError('vars { monetary $m = balance(@a) }').kind).toBe('BadArity');
    expect(compileError('set_tx_meta("a", meta(@a, "b"))').kind).toBe('InvalidNestedMeta');
  });

  it('refuses mixing allotment clauses and plain sources in one block', () => {
    expect(
      compileError('send [COIN 1] ( source = { 50% from @a @b } destination = @c )').kind,
    ).toBe('ParseError');
    expect(
      compileError(
        'send [COIN 1] ( source = @a destination = { max [COIN 1] to @b 50% to @c remaining to @d } )',
      ).kind,
    ).toBe('ParseError');
  });
});

describe('hostile input', () => {
  // A bound, not a speed target (bench/numscript.ts measures speed): generous because CI machines are shared.
  const BOUND_MS = 8000;
  const bounded = (source: string) => {
    const started = performance.now();
    let thrown: unknown;
    try {
      compile(source);
    } catch (error) {
      thrown = error;
    }
    return { thrown, ms: performance.now() - started };
  };

  it('compiles a 10,000-line script quickly', () => {
    const line = 'send [COIN 1] ( source = @world destination = @a )\n';
    const { thrown, ms } = bounded(line.repeat(10_000));
    expect(thrown).toBeUndefined();
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it.each([
    ['parentheses', '('.repeat(20_000)],
    ['sources', `send [COIN 1] ( source = ${'{ '.repeat(20_000)}`],
    [
      'max chains',
      `send [COIN 1] ( source = ${'max [COIN 1] from '.repeat(5_000)}@a destination = @b )`,
    ],
    ['operator chains', `set_tx_meta("a", ${'1 + '.repeat(5_000)}1)`],
    ['prefix minus', `set_tx_meta("a", ${'-'.repeat(20_000)}1)`],
    ['comments', '/*'.repeat(20_000)],
  ])('refuses deep nesting of %s with a compilation error, not a crash', (_name, source) => {
    const { thrown, ms } = bounded(source);
    expect(thrown).toBeInstanceOf(NumscriptError);
    expect((thrown as NumscriptError).code).toBe('COMPILATION_FAILED');
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it('refuses a number with more than 1000 digits, and a script longer than 512 KiB', () => {
    expect(compileError(`set_tx_meta("a", ${'9'.repeat(1001)})`).message).toContain(
      'more than 1000 digits',
    );
    expect(compileError(`// ${'x'.repeat(600 * 1024)}`).message).toContain('longer than');
  });

  it('handles unicode: fine in strings and comments, a clear error elsewhere', () => {
    expect(() => compile('// café ☕ 🚀\nset_tx_meta("note", "naïve ☕ 🚀")')).not.toThrow();
    expect(compileError('send [COIN 1] ( source = @café destination = @b )')).toMatchObject({
      kind: 'ParseError',
      line: 1,
    });
  });
});
