/**
 * DynamoDB's per-partition ceiling as the simulation applies it: each partition key gets 1,000 write units and
 * 3,000 read units a second (the limits of one partition, which one hot key cannot escape), refilled
 * continuously, with at most one second's worth saved (no burst credit beyond it). A request that would take more
 * than a key has left is throttled and takes nothing.
 */

export interface CapacityLimits {
  writeUnitsPerSecond: number;
  readUnitsPerSecond: number;
}

export const PARTITION_LIMITS: CapacityLimits = {
  writeUnitsPerSecond: 1_000,
  readUnitsPerSecond: 3_000,
};

interface Bucket {
  tokens: number;
  atMs: number;
}

export type UnitKind = 'write' | 'read';

export class CapacityModel {
  private readonly buckets = new Map<string, Bucket>();
  /** Units consumed per key and kind over the whole run: what shows the hottest keys. */
  readonly consumed = new Map<string, number>();
  throttles = 0;

  constructor(
    private readonly now: () => number,
    private readonly limits: CapacityLimits = PARTITION_LIMITS,
  ) {}

  /**
   * Takes the units of one request (per partition key) if every key has them; otherwise takes nothing and
   * answers the first key that throttled.
   */
  take(kind: UnitKind, units: ReadonlyMap<string, number>): string | undefined {
    const nowMs = this.now();
    const rate =
      kind === 'write' ? this.limits.writeUnitsPerSecond : this.limits.readUnitsPerSecond;
    for (const [key, n] of units) {
      const bucket = this.bucket(`${kind}|${key}`, rate, nowMs);
      if (bucket.tokens < n) {
        this.throttles++;
        return key;
      }
    }
    for (const [key, n] of units) {
      this.bucket(`${kind}|${key}`, rate, nowMs).tokens -= n;
      this.consumed.set(`${kind}|${key}`, (this.consumed.get(`${kind}|${key}`) ?? 0) + n);
    }
    return undefined;
  }

  private bucket(key: string, rate: number, nowMs: number): Bucket {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { tokens: rate, atMs: nowMs };
      this.buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(rate, bucket.tokens + ((nowMs - bucket.atMs) / 1000) * rate);
    bucket.atMs = nowMs;
    return bucket;
  }
}
