/**
 * How one ledger's line batches its writes, chosen by what it measures.
 *
 * - *pipelined*: while a batch commits, the next one — what arrived meanwhile — is decided over it, and after a
 *   landing a small batch waits for at most half of the landed one. The database is never idle between commits,
 *   at the price of about two commits per round of closed-loop requesters.
 * - *gathered*: one batch at a time, and after a landing the next waits until as many requests wait as the line
 *   held at once lately (or the gather's time cap ends it): one commit per round, so each commit's fixed cost is
 *   paid once for everyone, at the price of the database idling while the requesters come back.
 *
 * Which wins depends on the database's cost per commit against its cost per item and on how long requesters take
 * to come back, which no constant captures (measured on DynamoDB Local: gathered +14–45 % where commits are light
 * in items, −13 % where they carry about fifty volume items). So the line runs one mode, tries the other for one
 * window every few windows, and keeps whichever answered its requests sooner on average: the time a write waits
 * in the line is what both its requester and, for closed-loop requesters, the ledger's throughput depend on.
 */
export type BatchMode = 'pipelined' | 'gathered';

export interface BatchPolicyOptions {
  /** Shortest measuring window, in ms (it also needs `minAnswers`). */
  windowMs?: number;
  /** Answers a window needs before it is judged. */
  minAnswers?: number;
  /** Windows in the kept mode between two tries of the other. */
  exploreEvery?: number;
  /** How much sooner (a share of the kept mode's mean wait) the other mode must answer to be kept. */
  margin?: number;
  /** How long a peak of requests held at once counts, in ms. */
  peakMs?: number;
  /** False: the line keeps its first mode. */
  adaptive?: boolean;
  /** The first mode (pipelined unless said). */
  start?: BatchMode;
}

interface Window {
  mode: BatchMode;
  startMs: number;
  answers: number;
  waitMs: number;
}

export class BatchPolicy {
  private kept: BatchMode;
  private window: Window | undefined;
  /** The kept mode's mean wait in its last window, in ms. */
  private baselineMs: number | undefined;
  private windowsSinceTry: number;
  private peak = { count: 0, atMs: Number.NEGATIVE_INFINITY };
  private readonly windowMs: number;
  private readonly minAnswers: number;
  private readonly exploreEvery: number;
  private readonly margin: number;
  private readonly peakMs: number;
  private readonly adaptive: boolean;

  constructor(options: BatchPolicyOptions = {}) {
    this.windowMs = options.windowMs ?? 500;
    this.minAnswers = options.minAnswers ?? 40;
    this.exploreEvery = options.exploreEvery ?? 6;
    this.margin = options.margin ?? 0.05;
    this.peakMs = options.peakMs ?? 1_000;
    this.adaptive = options.adaptive ?? true;
    this.kept = options.start ?? 'pipelined';
    // The first try comes after two windows: the line's first one runs on a cold cache.
    this.windowsSinceTry = this.exploreEvery - 2;
  }

  /** The mode the line runs now. */
  get mode(): BatchMode {
    return this.window?.mode ?? this.kept;
  }

  /** A batch landed while `count` requests were held (the batch and those waiting). */
  noteHeld(count: number, nowMs: number): void {
    if (count >= this.peak.count || nowMs - this.peak.atMs > this.peakMs)
      this.peak = { count, atMs: nowMs };
  }

  /** How many requests the next batch waits for after a batch of `landedSize` landed. */
  wanted(landedSize: number, nowMs: number): number {
    if (this.mode === 'pipelined') return Math.ceil(landedSize / 2);
    const recent = nowMs - this.peak.atMs <= this.peakMs ? this.peak.count : 0;
    return Math.max(landedSize, recent);
  }

  /** `answers` requests were answered, having waited `waitMs` in all since they were queued. */
  noteAnswered(answers: number, waitMs: number, nowMs: number): void {
    if (!this.adaptive || answers === 0) return;
    const window = this.window ?? this.open(this.kept, nowMs);
    window.answers += answers;
    window.waitMs += waitMs;
    if (nowMs - window.startMs < this.windowMs || window.answers < this.minAnswers) return;
    this.close(window, nowMs);
  }

  private open(mode: BatchMode, nowMs: number): Window {
    this.window = { mode, startMs: nowMs, answers: 0, waitMs: 0 };
    return this.window;
  }

  private close(window: Window, nowMs: number): void {
    const meanMs = window.waitMs / window.answers;
    if (window.mode === this.kept) {
      this.baselineMs = meanMs;
      this.windowsSinceTry++;
    } else {
      if (this.baselineMs !== undefined && meanMs < this.baselineMs * (1 - this.margin))
        this.kept = window.mode;
      this.baselineMs = undefined;
      this.windowsSinceTry = 0;
    }
    const tryOther = this.baselineMs !== undefined && this.windowsSinceTry >= this.exploreEvery;
    this.open(tryOther ? other(this.kept) : this.kept, nowMs);
  }
}

const other = (mode: BatchMode): BatchMode => (mode === 'pipelined' ? 'gathered' : 'pipelined');
