/**
 * References to a document outside the repository: a reader of a clone cannot follow them, and the document may
 * change under them. The repository's own docs (docs/architecture.md, docs/data-model.md, docs/decisions/) hold the
 * rules, so a comment states the rule in a few words or points there.
 */
const OUTSIDE: readonly { name: string; pattern: RegExp }[] = [
  { name: 'DESIGN.md', pattern: /\bDESIGN\.md\b/g },
  { name: 'a shared folder beside the repository', pattern: /(?:\.\.|\/work)\/shared\//g },
  { name: 'a numbered design or data rule', pattern: /\b(?:design|data) rules? \d+/gi },
  // The repository's docs number no rule: a bare "(rule 1)" names the outside document's.
  { name: 'a bare numbered rule', pattern: /\(rule \d+\b/gi },
];

/** Each reference of `source` to a document outside the repository, as `<line>: <reference> (<what it names>)`. */
export function outsideReferences(source: string): string[] {
  const found: string[] = [];
  source.split('\n').forEach((line, i) => {
    for (const { name, pattern } of OUTSIDE)
      for (const match of line.matchAll(pattern)) found.push(`${i + 1}: ${match[0]} (${name})`);
  });
  return found;
}
