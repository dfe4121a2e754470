import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';

/**
 * Request schemas in one layer (docs/architecture.md, "The rules, checked"): what a route validates a request
 * with — a `readJsonBody` or `validate` schema, an `openapi()` spec's `body` — is built from its own service's
 * `routes/`, the shared field schemas (`lib/validation`) and valibot only. The domain and commands take the typed
 * values those schemas produce, never a schema.
 */
export function requestSchemaOffences(file: string, text: string): string[] {
  const service = /^lib\/([^/]+)\/routes\//.exec(file)?.[1];
  if (!service) return [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const imported = importedNames(source);
  const allowed = (specifier: string) => {
    if (!specifier.startsWith('.')) return specifier === 'valibot';
    const path = normalize(join(dirname(file), specifier));
    return path.startsWith(`lib/${service}/routes/`) || path.startsWith('lib/validation/');
  };
  const offences: string[] = [];
  const judge = (schema: ts.Node) => {
    const visit = (node: ts.Node) => {
      if (ts.isPropertyAccessExpression(node)) return visit(node.expression);
      if (ts.isIdentifier(node)) {
        const specifier = imported.get(node.text);
        const offence = `${file}: ${node.text} from ${specifier}`;
        if (specifier !== undefined && !allowed(specifier) && !offences.includes(offence))
          offences.push(offence);
      }
      ts.forEachChild(node, visit);
    };
    visit(schema);
  };
  const walk = (node: ts.Node, inSpec: boolean) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression.getText(source);
      if (callee === 'readJsonBody' && node.arguments[1]) judge(node.arguments[1]);
      if (/^(validate|v\.parse|v\.safeParse)$/.test(callee) && node.arguments[0])
        judge(node.arguments[0]);
      if (callee === 'openapi') inSpec = true;
    }
    if (inSpec && ts.isPropertyAssignment(node) && node.name.getText(source) === 'body')
      judge(node.initializer);
    ts.forEachChild(node, (child) => walk(child, inSpec));
  };
  walk(source, false);
  return offences;
}

/** Each name a file imports, with the module it comes from. */
function importedNames(source: ts.SourceFile): Map<string, string> {
  const names = new Map<string, string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !statement.importClause) continue;
    const specifier = (statement.moduleSpecifier as ts.StringLiteral).text;
    const clause = statement.importClause;
    if (clause.name) names.set(clause.name.text, specifier);
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) names.set(bindings.name.text, specifier);
    if (bindings && ts.isNamedImports(bindings))
      for (const element of bindings.elements) names.set(element.name.text, specifier);
  }
  return names;
}
