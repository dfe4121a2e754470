/** Small statistics helpers for the benchmarks: nearest-rank percentiles over raw samples. */

export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  // Nearest rank: the smallest sample with at least p % of the samples at or below it.
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

export const median = (samples: readonly number[]): number => percentile(samples, 50);

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export interface LatencySummary {
  count: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export function summarise(samplesMs: readonly number[]): LatencySummary {
  return {
    count: samplesMs.length,
    p50Ms: round(percentile(samplesMs, 50), 2),
    p99Ms: round(percentile(samplesMs, 99), 2),
    maxMs: round(samplesMs.length ? Math.max(...samplesMs) : Number.NaN, 2),
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
