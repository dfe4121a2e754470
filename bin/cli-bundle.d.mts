export function isStale(bundleFile: string, inputsFile: string): boolean;
export function buildBundle(
  repoRoot: string,
  bundleFile: string,
  inputsFile: string,
): Promise<void>;
