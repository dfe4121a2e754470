import ts from 'typescript';

/**
 * Functions stay short, named steps: past this many lines `npm run lint` fails (docs/architecture.md, "Commands
 * that show it").
 */
export const MAX_FUNCTION_LINES = 80;

export interface LongFunction {
  name: string;
  /** 1-based line of the function's first line. */
  line: number;
  lines: number;
}

/** The functions of one source file longer than `limit` lines, outermost and nested alike. */
export function longFunctions(
  fileName: string,
  text: string,
  limit = MAX_FUNCTION_LINES,
): LongFunction[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      const name = nameOf(node);
      if (last - first + 1 > limit) found.push({ name, line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function nameOf(node: ts.SignatureDeclaration): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))
    return parent.name.getText();
  return '<anonymous>';
}
