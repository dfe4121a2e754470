import type { ProgramTree } from './ast.js';
import { compilationError, NumscriptError } from './errors.js';
import { SyntaxError as GeneratedSyntaxError, parse } from './parser.generated.js';

/** Far beyond any real script (the reference's longest examples are a few KB); bounds parse time and memory. */
export const MAX_SCRIPT_LENGTH = 512 * 1024;
/**
 * Nesting the later recursive walks (checker, interpreter) accept, counted in tree levels (a nested source is
 * two or three). Deep enough for any hand-written script, shallow enough never to approach the stack limit.
 */
export const MAX_TREE_DEPTH = 300;

export function parseProgram(source: string): ProgramTree {
  if (typeof source !== 'string') throw compilationError('ParseError', 'script must be a string');
  if (source.length > MAX_SCRIPT_LENGTH) {
    throw compilationError('ParseError', `script longer than ${MAX_SCRIPT_LENGTH} characters`);
  }
  let tree: ProgramTree;
  try {
    tree = parse(source) as ProgramTree;
  } catch (error) {
    if (error instanceof GeneratedSyntaxError) {
      const { line, column } = error.location.start;
      throw compilationError('ParseError', error.message, { line, column });
    }
    // A stack overflow in the generated recursive-descent parser: only reachable by absurd nesting.
    if (error instanceof RangeError)
      throw compilationError('ParseError', 'script nested too deeply');
    throw error instanceof NumscriptError ? error : compilationError('ParseError', String(error));
  }
  assertShallowAndFreeze(tree);
  return tree;
}

/**
 * Checks the depth and freezes every node (a compiled program is shared by all runs and the cache), in one
 * iterative walk so that a too-deep tree cannot overflow the stack while being measured.
 */
function assertShallowAndFreeze(tree: ProgramTree): void {
  const nodes: object[] = [tree];
  const depths: number[] = [0];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > MAX_TREE_DEPTH) {
      const loc = (node as { loc?: { line: number; column: number } }).loc;
      throw compilationError('ParseError', 'script nested too deeply', loc);
    }
    Object.freeze(node);
    for (const key in node) {
      const child = (node as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
}
