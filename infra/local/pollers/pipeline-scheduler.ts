import type { DrainOutcome, PipelineRef } from '../../../lib/exporters/worker/drain-pipeline.js';
import type { Logger } from '../../../lib/observability/logger.js';

/** After a drain threw (DynamoDB unavailable, say): when to try that pipeline again. */
const AFTER_CRASH_MS = 1000;

/**
 * Runs pipeline drains as they are woken, locally: one drain at a time per pipeline, pipelines in parallel (a
 * failing pipeline never holds up another). A drain that stops with logs left runs again at once; a failed one
 * again when its back-off ends; a wake during a drain runs it once more afterwards, so no commit is missed.
 */
export class PipelineScheduler {
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly drain: (ref: PipelineRef) => Promise<DrainOutcome>,
    private readonly now: () => number = Date.now,
    private readonly logger?: Logger,
  ) {}

  wake(ref: PipelineRef): void {
    if (this.stopped) return;
    const key = `${ref.environment}/${ref.ledger}/${ref.id}`;
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    if (this.running.has(key)) {
      this.again.add(key);
      return;
    }
    const run = this.run(ref, key).finally(() => this.running.delete(key));
    this.running.set(key, run);
  }

  /** No drain starts after this; resolves once those in progress are done. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.all(this.running.values());
  }

  private async run(ref: PipelineRef, key: string): Promise<void> {
    for (;;) {
      this.again.delete(key);
      const outcome = await this.drain(ref).catch((err: unknown): DrainOutcome => {
        this.logger?.log('error', 'pipeline drain failed', { ...ref, error: String(err) });
        return { state: 'waiting', retryAtMs: this.now() + AFTER_CRASH_MS };
      });
      if (this.stopped) return;
      const wokenMeanwhile = this.again.has(key);
      if (outcome.state === 'more') continue;
      // A wake during a failed batch may be a start or reset that cleared the back-off: look once more.
      if (outcome.state === 'failed' && wokenMeanwhile) continue;
      if (outcome.state === 'failed' || outcome.state === 'waiting') {
        this.retryAt(ref, key, outcome.retryAtMs);
        return;
      }
      if (!wokenMeanwhile || outcome.state === 'gone') return;
    }
  }

  private retryAt(ref: PipelineRef, key: string, atMs: number): void {
    const timer = setTimeout(() => this.wake(ref), Math.max(0, atMs - this.now()));
    timer.unref();
    this.timers.set(key, timer);
  }
}
