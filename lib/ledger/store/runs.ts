/**
 * Items cut, in order, into consecutive runs — log pages, transaction pages, a staged bulk's parts: a new run
 * starts before `next` when `cuts` says so, given the run so far and the sizes (`sizeOf`) of the run and of `next`.
 */
export function consecutiveRuns<T>(
  items: readonly T[],
  sizeOf: (item: T) => number,
  cuts: (run: readonly T[], next: T, runBytes: number, nextBytes: number) => boolean,
): T[][] {
  const runs: T[][] = [];
  let run: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = sizeOf(item);
    if (run.length > 0 && cuts(run, item, bytes, size)) {
      runs.push(run);
      run = [];
      bytes = 0;
    }
    run.push(item);
    bytes += size;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}
