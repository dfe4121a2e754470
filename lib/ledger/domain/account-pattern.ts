/**
 * An account pattern of a mapping's contract, a balance monitor or a limit rule (its own file: the mapping, its
 * monitors and its contracts' evaluation all match accounts, and none of them imports another for it).
 */
const patterns = new Map<string, RegExp>();

/** `*` matches any run of characters (`:` included); everything else literally; the whole address. */
export function matchesPattern(pattern: string, address: string): boolean {
  let regex = patterns.get(pattern);
  if (!regex) {
    // Patterns hold only [a-zA-Z0-9_:*-] (validated), so no other character needs escaping.
    regex = new RegExp(`^${pattern.replace(/-/g, '\\-').replace(/\*/g, '.*')}$`);
    if (patterns.size > 10_000) patterns.clear();
    patterns.set(pattern, regex);
  }
  return regex.test(address);
}
