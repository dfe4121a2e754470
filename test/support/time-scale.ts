/**
 * The one setting every limit of the suites derives from: `TEST_TIME_SCALE` (default 1) multiplies them all, for a
 * machine slower or busier than the usual one (CI sets none). The limits stop hangs; none measures speed (the bench
 * does), and no test sets its own.
 */
export const TIME_SCALE = timeScale(process.env.TEST_TIME_SCALE);

function timeScale(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 1;
  const scale = Number(raw);
  if (!Number.isFinite(scale) || scale < 1 || scale > 100)
    throw new Error(`TEST_TIME_SCALE must be a number from 1 to 100, got "${raw}"`);
  return scale;
}

const scaled = (ms: number): number => Math.round(ms * TIME_SCALE);

/** A unit test's limit: nothing it does waits on another process. */
export const UNIT_TEST_LIMIT_MS = scaled(60_000);

/**
 * A test's limit in the other suites: the longest of them (three starts of a whole platform, a JVM and worker
 * processes each) take minutes on a loaded two-core machine.
 */
export const TEST_LIMIT_MS = scaled(300_000);

/** A hook's limit (starting a platform, building bundles once for the run). */
export const HOOK_LIMIT_MS = scaled(300_000);

/** How long a test waits for something that happens in the background (a delivery, a poll, a worker's commit). */
export const WAIT_LIMIT_MS = scaled(60_000);
