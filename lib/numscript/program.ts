import type { ProgramTree } from './ast.js';
import { checkProgram } from './check.js';
import { compilationError, NumscriptError } from './errors.js';
import { parseProgram } from './parse.js';

/** A parsed and checked script, immutable and safe to share between runs. */
export type Program = Readonly<ProgramTree>;

/** Compiled scripts by their text. Scripts are few and repeated (a client sends the same few templates). */
const CACHE_SIZE = 256;
const cache = new Map<string, Program>();

/** Parses and checks a script; throws NumscriptError('COMPILATION_FAILED') with line and column. */
export function compile(source: string): Program {
  const cached = cache.get(source);
  if (cached) {
    // Map keeps insertion order: re-inserting makes this the most recently used.
    cache.delete(source);
    cache.set(source, cached);
    return cached;
  }
  const program = compileUncached(source);
  cache.set(source, program);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return program;
}

export function compileUncached(source: string): Program {
  try {
    const tree = parseProgram(source);
    checkProgram(tree);
    return tree;
  } catch (error) {
    if (error instanceof NumscriptError) throw error;
    // Only a stack overflow can get here (the tree depth is bounded, so it should not): still a 400, never a 500.
    throw compilationError(
      'ParseError',
      error instanceof RangeError ? 'script nested too deeply' : String(error),
    );
  }
}
