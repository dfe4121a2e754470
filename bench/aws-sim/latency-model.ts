/**
 * How long AWS calls take in the simulation: a log-normal per operation, set by its median and 99th percentile.
 * The figures are assumptions for one region, a warm Lambda and a keep-alive connection, from the ranges AWS
 * states ("single-digit milliseconds" for DynamoDB item operations; TransactWriteItems dearer, growing with its
 * items) and from published measurements of the same calls; they are written here so a reader can change them
 * and see what moves. A simulation run prints the table it used.
 */

export interface LatencySpec {
  p50Ms: number;
  p99Ms: number;
  /** Added to the median per item the request carries (TransactWriteItems, BatchGetItem, BatchWriteItem). */
  perItemMs?: number;
}

export type ModeledOperation =
  | 'GetItem'
  | 'BatchGetItem'
  | 'TransactGetItems'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'BatchWriteItem'
  | 'TransactWriteItems'
  | 'SQS.SendMessage'
  | 'SQS.ReceiveMessage'
  | 'Reply';

export const AWS_LATENCY: Readonly<Record<ModeledOperation, LatencySpec>> = {
  GetItem: { p50Ms: 3, p99Ms: 9 },
  BatchGetItem: { p50Ms: 4, p99Ms: 14, perItemMs: 0.05 },
  // Like a BatchGetItem, with the transaction's coordination on top.
  TransactGetItems: { p50Ms: 6, p99Ms: 20, perItemMs: 0.1 },
  Query: { p50Ms: 5, p99Ms: 16 },
  PutItem: { p50Ms: 5, p99Ms: 14 },
  UpdateItem: { p50Ms: 5, p99Ms: 14 },
  BatchWriteItem: { p50Ms: 7, p99Ms: 25, perItemMs: 0.1 },
  // Two-phase inside DynamoDB: about twice a single write, plus a share per item.
  TransactWriteItems: { p50Ms: 10, p99Ms: 35, perItemMs: 0.15 },
  'SQS.SendMessage': { p50Ms: 8, p99Ms: 25 },
  // A long poll answering as soon as a message is there.
  'SQS.ReceiveMessage': { p50Ms: 10, p99Ms: 40 },
  // The writer's answer reaching its requester: one message on a reply channel (the same order as an SQS send).
  Reply: { p50Ms: 8, p99Ms: 25 },
};

/** z of the 99th percentile of the standard normal. */
const Z99 = 2.326;

/** A seeded generator (mulberry32): the same seed draws the same latencies, run after run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class LatencyModel {
  constructor(
    private readonly random: () => number,
    readonly specs: Readonly<Record<ModeledOperation, LatencySpec>> = AWS_LATENCY,
  ) {}

  /** One draw for an operation carrying `items` items. */
  sampleMs(operation: ModeledOperation, items = 1): number {
    const spec = this.specs[operation];
    const median = spec.p50Ms + (spec.perItemMs ?? 0) * items;
    const sigma = Math.log(spec.p99Ms / spec.p50Ms) / Z99;
    return median * Math.exp(sigma * this.standardNormal());
  }

  private standardNormal(): number {
    // Box–Muller; 1 - random() keeps the logarithm finite.
    const u = 1 - this.random();
    const v = this.random();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}
