import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';

/**
 * The layering check: the rules are read from docs/architecture.md ("The rules, checked"), their only home, and
 * every import of the sources is held against them. Types count as much as values: a domain that imports a store's
 * type knows the store.
 */

/** One row of the rules table: files matching `files` may not import what matches `banned`, unless `allowed`. */
export interface ImportRule {
  rule: string;
  files: string[];
  banned: string[];
  allowed: string[];
}

/** The loop row: the folders named by `folders` (longest match first) form no cycle through their imports. */
export interface LoopRule {
  rule: string;
  folders: string[];
}

export interface Rules {
  imports: ImportRule[];
  loops: LoopRule[];
}

export interface Edge {
  from: string;
  to: string;
  /** An `import type` or `export type … from`: erased from the JavaScript, so it loads nothing at run time. */
  typeOnly?: boolean;
}

/** What the loop row says instead of a list of imports. */
const LOOP_CELL = 'a folder that imports it back';

/** The rows of the table under `## The rules, checked`: `| Rule | Files | May not import | Except |`. */
export function rulesOf(markdown: string): Rules {
  const start = markdown.indexOf('\n## The rules, checked\n');
  if (start < 0) throw new Error('docs/architecture.md has no "## The rules, checked" section');
  const end = markdown.indexOf('\n## ', start + 1);
  const rows = markdown
    .slice(start, end < 0 ? undefined : end)
    .split('\n')
    .filter(
      (line) => line.startsWith('| ') && !line.startsWith('| Rule ') && !/^[|:\s-]+$/.test(line),
    );
  const rules: Rules = { imports: [], loops: [] };
  for (const row of rows) {
    const [rule = '', files = '', banned = '', allowed = ''] = row.split('|').slice(1, -1);
    if (banned.trim() === LOOP_CELL) rules.loops.push({ rule: rule.trim(), folders: globs(files) });
    else
      rules.imports.push({
        rule: rule.trim(),
        files: globs(files),
        banned: globs(banned),
        allowed: globs(allowed),
      });
  }
  return rules;
}

const globs = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/**
 * A glob as a regular expression: `*` is any text within a path segment, `**` any number of segments (none
 * included), `{a,b}` one of the alternatives.
 */
export function globPattern(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (glob.startsWith('/**', i)) {
      source += '(?:/.*)?';
      i += 2;
    } else if (glob.startsWith('**', i)) {
      source += '.*';
      i += 1;
    } else if (c === '*') source += '[^/]*';
    else if (c === '{') source += '(?:';
    else if (c === '}') source += ')';
    else if (c === ',') source += '|';
    else source += c.replace(/[.+?^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

const matchesAny = (path: string, patterns: readonly string[]) =>
  patterns.some((glob) => globPattern(glob).test(path));

/**
 * The imports of each source file: relative specifiers as repository paths (`.js` read as the `.ts` beside it),
 * packages as written (`node:` added to Node's own modules).
 */
export function importsOf(sources: ReadonlyMap<string, string>): Edge[] {
  const edges: Edge[] = [];
  for (const [from, text] of sources) {
    const erased = typeOnlyDeclarations(from, text);
    for (const { fileName, pos } of ts.preProcessFile(text, true, true).importedFiles) {
      const edge: Edge = { from, to: target(from, fileName, sources) };
      if (erased.some(([start, end]) => pos >= start && pos < end)) edge.typeOnly = true;
      edges.push(edge);
    }
  }
  return edges;
}

/**
 * Where a file's `import type` and `export type … from` declarations lie, as [start, end) offsets. An import whose
 * every name is marked `type` inline still loads its module (verbatimModuleSyntax keeps it as `import {}`): not one.
 */
function typeOnlyDeclarations(file: string, text: string): Array<[number, number]> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, scriptKind(file));
  return source.statements
    .filter((statement) =>
      ts.isImportDeclaration(statement)
        ? statement.importClause?.isTypeOnly === true
        : ts.isExportDeclaration(statement) && statement.isTypeOnly,
    )
    .map((statement) => [statement.pos, statement.end]);
}

const scriptKind = (file: string) => (file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);

function target(from: string, specifier: string, sources: ReadonlyMap<string, string>): string {
  if (!specifier.startsWith('.')) {
    const builtin = !specifier.startsWith('node:') && NODE_BUILTINS.has(specifier.split('/')[0]!);
    return builtin ? `node:${specifier}` : specifier;
  }
  const path = normalize(join(dirname(from), specifier));
  const candidates = [path.replace(/\.(m?)js$/, '.$1ts'), path, `${path}.ts`, `${path}/index.ts`];
  return candidates.find((candidate) => sources.has(candidate)) ?? candidates[0]!;
}

const NODE_BUILTINS = new Set([
  'assert',
  'buffer',
  'child_process',
  'crypto',
  'events',
  'fs',
  'http',
  'https',
  'net',
  'os',
  'path',
  'process',
  'stream',
  'timers',
  'url',
  'util',
  'worker_threads',
  'zlib',
]);

/** Each import that breaks a row, as `<rule>: <from> -> <to>`. */
export function importViolations(rules: Rules, edges: readonly Edge[]): string[] {
  const found: string[] = [];
  for (const { rule, files, banned, allowed } of rules.imports) {
    for (const { from, to } of edges) {
      if (matchesAny(from, files) && matchesAny(to, banned) && !matchesAny(to, allowed))
        found.push(`${rule}: ${from} -> ${to}`);
    }
  }
  return found;
}

/** The loops between folders, as `<rule>: a -> b -> … -> a`: the shortest through each folder in one. */
export function folderLoops(rules: Rules, edges: readonly Edge[]): string[] {
  const found: string[] = [];
  for (const { rule, folders } of rules.loops) {
    const folderOf = (path: string) => folderIn(path, folders);
    const graph = new Map<string, Set<string>>();
    for (const { from, to } of edges) {
      const [a, b] = [folderOf(from), folderOf(to)];
      if (a && b && a !== b) graph.set(a, (graph.get(a) ?? new Set()).add(b));
    }
    for (const component of cyclicComponents(graph))
      for (const start of component)
        found.push(`${rule}: ${shortestCycle(graph, component, start).join(' -> ')}`);
  }
  return found;
}

/**
 * The import cycles between files, type-only imports aside: one per group of files that reach each other, as the
 * shortest cycle through its first file (`a -> b -> … -> a`). A cycle makes a module run before the one it imports
 * has finished loading, so what it reads at load time may not exist yet, depending on which file was loaded first.
 */
export function fileCycles(edges: readonly Edge[]): string[] {
  const graph = new Map<string, Set<string>>();
  for (const { from, to, typeOnly } of edges)
    if (!typeOnly && from !== to) graph.set(from, (graph.get(from) ?? new Set()).add(to));
  return cyclicComponents(graph).map((component) =>
    shortestCycle(graph, component, component[0]!).join(' -> '),
  );
}

/** The folder a path belongs to: the longest prefix a folder glob matches. */
function folderIn(path: string, folders: readonly string[]): string | undefined {
  const parts = path.split('/');
  for (let n = parts.length - 1; n >= 1; n--) {
    const prefix = parts.slice(0, n).join('/');
    if (matchesAny(prefix, folders)) return prefix;
  }
  return undefined;
}

/** Strongly connected components with more than one folder (Tarjan), each sorted, in sorted order. */
function cyclicComponents(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const components: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The shortest cycle from `start` back to it, within its component. */
function shortestCycle(
  graph: ReadonlyMap<string, ReadonlySet<string>>,
  component: string[],
  start: string,
): string[] {
  const inside = new Set(component);
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      if (!inside.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return component;
}

/**
 * The tenancy channel's breaches: files outside `lib/dynamo` that open an environment's client
 * (`clients.forEnvironment(`) but are not their service's one function (`channels`), and files that import
 * `node:async_hooks` (an environment read from the async context instead of passed). Empty when each service
 * reaches its environment's items one way.
 */
export function tenancyBreaches(
  sources: ReadonlyMap<string, string>,
  channels: ReadonlySet<string>,
): string[] {
  const breaches: string[] = [];
  for (const [file, text] of sources) {
    if (/from ['"](node:)?async_hooks['"]/.test(text))
      breaches.push(`${file}: imports async_hooks`);
    if (file.startsWith('lib/dynamo/') || channels.has(file)) continue;
    if (/\bclients\.forEnvironment\(/.test(text))
      breaches.push(`${file}: opens an environment's client outside its service's channel`);
  }
  return breaches;
}
