import { ValidationError } from '../../errors/index.js';

/**
 * A pair's balance over time (docs/api.md §3.6, "Balance history"): its effective volumes walked in key order
 * (`<sortable time>#<id>`, as `pit` reads them). Pure: the store hands it the opening volumes and the moves in
 * order; it answers the points and where the next page resumes.
 */

/** One move of the pair, in effective order. */
export interface HistoryMove {
  key: string;
  txId: number;
  input: bigint;
  output: bigint;
}

/** A point of the history: the pair's volumes at `at` (sortable instant), `txId` the last transaction counted. */
export interface HistoryPoint {
  at: string;
  txId?: number;
  input: bigint;
  output: bigint;
}

/** Where a walk stands: the volumes so far, and in sampling mode the next instant to sample (µs since the epoch). */
export interface HistoryState {
  input: bigint;
  output: bigint;
  txId?: number;
  nextSampleMicros?: bigint;
}

export interface HistoryBounds {
  /** Last instant included (sortable), inclusive. */
  to: string;
  /** Sampling step in microseconds; none: a point per move. */
  intervalMicros?: bigint;
}

const UNIT_MICROS: Record<string, bigint> = {
  s: 1_000_000n,
  m: 60_000_000n,
  h: 3_600_000_000n,
  d: 86_400_000_000n,
};
const MAX_INTERVAL_MICROS = 366n * UNIT_MICROS.d!;

/** `interval` (`30s`, `15m`, `1h`, `1d`) in microseconds: 1 s to 366 d. */
export function parseInterval(raw: string): bigint {
  const match = /^([1-9]\d{0,8})([smhd])$/.exec(raw);
  if (!match)
    throw new ValidationError(
      'interval: must be a whole number and a unit s, m, h or d (e.g. 15m, 1d)',
    );
  const micros = BigInt(match[1]!) * UNIT_MICROS[match[2]!]!;
  if (micros > MAX_INTERVAL_MICROS) throw new ValidationError('interval: must be at most 366d');
  return micros;
}

/** A sortable instant (`2026-01-01T00:00:00.000000Z`) as microseconds since the epoch, and back. */
export function sortableToMicros(at: string): bigint {
  return BigInt(Date.parse(`${at.slice(0, 23)}Z`)) * 1000n + BigInt(at.slice(23, 26));
}

export function microsToSortable(micros: bigint): string {
  const ms = micros / 1000n;
  const rest = micros % 1000n;
  return `${new Date(Number(ms)).toISOString().slice(0, 23)}${String(rest).padStart(3, '0')}Z`;
}

/** The instant of a move key (its text before `#`). */
export const keyInstant = (key: string) => key.slice(0, key.indexOf('#'));

/**
 * Walks moves in key order into points, at most `limit` of them. Per move mode: a point after each move up to
 * `to`. Sampling mode: before a move dated after the next sample instant, that sample is taken (a sample at t
 * counts every move dated at or before t). A move is consumed only once every sample before it is emitted, so a
 * page that stops on its limit resumes at the first move it did not consume.
 */
export class HistoryWalk {
  readonly points: HistoryPoint[] = [];
  private readonly state: HistoryState;

  constructor(
    state: HistoryState,
    private readonly bounds: HistoryBounds,
    private readonly limit: number,
  ) {
    this.state = { ...state };
  }

  /** Whether the page is full. */
  get full(): boolean {
    return this.points.length >= this.limit;
  }

  /** Where the walk stands (what a cursor carries). */
  get position(): HistoryState {
    return { ...this.state };
  }

  /** Whether `move` is within the bounds (a later one ends the walk). */
  inBounds(move: HistoryMove): boolean {
    return keyInstant(move.key) <= this.bounds.to;
  }

  /** Feeds the next move in key order; answers whether it was consumed (false: the page filled before it). */
  feed(move: HistoryMove): boolean {
    const { intervalMicros } = this.bounds;
    if (intervalMicros !== undefined) {
      const moveMicros = sortableToMicros(keyInstant(move.key));
      while (this.state.nextSampleMicros! < moveMicros) {
        if (this.full) return false;
        this.sample(intervalMicros);
      }
    } else if (this.full) return false;
    this.state.input += move.input;
    this.state.output += move.output;
    this.state.txId = move.txId;
    if (intervalMicros === undefined) this.emit(keyInstant(move.key));
    return true;
  }

  /** After the last move in bounds: the samples left up to `to` (as many as the page holds). */
  finish(): void {
    const { intervalMicros } = this.bounds;
    if (intervalMicros === undefined) return;
    while (!this.full && this.samplesLeft()) this.sample(intervalMicros);
  }

  /** In sampling mode, whether an instant is left to sample. */
  samplesLeft(): boolean {
    return (
      this.state.nextSampleMicros !== undefined &&
      this.state.nextSampleMicros <= sortableToMicros(this.bounds.to)
    );
  }

  private sample(intervalMicros: bigint): void {
    this.emit(microsToSortable(this.state.nextSampleMicros!));
    this.state.nextSampleMicros! += intervalMicros;
  }

  private emit(at: string): void {
    this.points.push({
      at,
      ...(this.state.txId !== undefined ? { txId: this.state.txId } : {}),
      input: this.state.input,
      output: this.state.output,
    });
  }
}
