import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LogEntry } from '../../ledger/domain/logs.js';
import type { LedgerLookup } from '../../ledger/store/ledger-lookup.js';
import type { LogReads } from '../../ledger/store/log-reads.js';
import { recordMetric } from '../../observability/metrics.js';
import { batchSizeOf, type Exporter } from '../domain/exporter.js';
import type { PipelineRef } from '../domain/pipeline.js';
import { type Pipeline, retryDelayMs } from '../domain/pipeline.js';
import { type DriverSettings, driverFor } from '../drivers/registry.js';
import { ExporterStore } from '../store/exporter-store.js';
import { PipelineStore } from '../store/pipeline-store.js';

export type { PipelineRef } from '../domain/pipeline.js';

/** Where a drain left the pipeline. */
export type DrainOutcome =
  /** Every committed log is exported (`lastLogId`, none when the ledger has no log yet). */
  | { state: 'caught-up'; lastLogId?: number }
  /** The batch budget ran out with logs left: wake it again. */
  | { state: 'more'; lastLogId: number }
  | { state: 'stopped' }
  /** The pipeline no longer exists. */
  | { state: 'gone' }
  /** A batch failed: the error is recorded; try again at `retryAtMs`. */
  | { state: 'failed'; error: string; retryAtMs: number }
  /** A failure's back-off is not over yet. */
  | { state: 'waiting'; retryAtMs: number };

export interface DrainOptions {
  /** Batches one drain sends at most (default 50): one long backfill never holds a worker. */
  maxBatches?: number;
  /** Drain even within a failure's back-off. */
  ignoreBackoff?: boolean;
  /** Epoch ms on the worker's clock after which no further batch starts (the first always may). */
  deadlineMs?: number;
}

export interface PipelineWorkerDeps {
  doc: DynamoDBDocumentClient;
  /** The default ledger table, where exporters and pipelines are. */
  table: string;
  lookup: LedgerLookup;
  logs: LogReads;
  drivers: DriverSettings;
  now?: () => number;
}

/**
 * The pipeline worker (docs/decisions/exporters.md, "Exporters and pipelines"): the same code behind the Lambda and the
 * local poller. Each batch is read from the log at the pipeline's cursor (never from what woke the worker), sent
 * through the driver, and only then is the cursor moved, conditionally on it being unchanged: at least once, in
 * log order, never a gap. A stop or reset is seen before the next batch, since the pipeline is read again for each.
 */
export class PipelineWorker {
  private readonly now: () => number;

  constructor(private readonly deps: PipelineWorkerDeps) {
    this.now = deps.now ?? Date.now;
  }

  /**
   * Exports batches of `ref` until it is caught up, fails, stops, `maxBatches` batches were sent, or (epoch ms,
   * on the worker's clock) `deadlineMs` has passed: no batch starts after it.
   */
  async drain(ref: PipelineRef, options: DrainOptions = {}): Promise<DrainOutcome> {
    let outcome: DrainOutcome;
    try {
      outcome = await this.drainBatches(ref, options);
    } catch (err) {
      recordMetric('PipelineDrains', { outcome: 'error' });
      throw err;
    }
    recordMetric('PipelineDrains', { outcome: outcome.state });
    return outcome;
  }

  private async drainBatches(
    ref: PipelineRef,
    { maxBatches = 50, ignoreBackoff = false, deadlineMs = Number.POSITIVE_INFINITY }: DrainOptions,
  ): Promise<DrainOutcome> {
    const pipelines = new PipelineStore(this.deps.doc, this.deps.table, ref.environment);
    const exporters = new ExporterStore(this.deps.doc, this.deps.table, ref.environment);
    let sent = 0;
    for (;;) {
      const stored = await pipelines.get(ref.ledger, ref.id);
      if (!stored) return { state: 'gone' };
      const { pipeline } = stored;
      if (!pipeline.enabled) return { state: 'stopped' };
      if (!ignoreBackoff && pipeline.retryAtMs !== undefined && pipeline.retryAtMs > this.now())
        return { state: 'waiting', retryAtMs: pipeline.retryAtMs };
      if (sent >= maxBatches || (sent > 0 && this.now() >= deadlineMs))
        return { state: 'more', lastLogId: pipeline.lastLogId ?? 0 };
      const next = await this.nextBatch(ref.environment, pipeline, exporters);
      if ('error' in next) return this.failed(pipelines, pipeline, next.error);
      if (next.logs.length === 0)
        return pipeline.lastLogId === undefined
          ? { state: 'caught-up' }
          : { state: 'caught-up', lastLogId: pipeline.lastLogId };
      try {
        await (await driverFor(next.exporter, this.deps.drivers)).send({
          environment: ref.environment,
          ledger: pipeline.ledger,
          logs: next.logs,
        });
      } catch (err) {
        return this.failed(pipelines, pipeline, (err as Error).message);
      }
      sent += 1;
      const last = next.logs[next.logs.length - 1]!;
      // Lost: another worker moved the cursor or a reset came; the next round reads where it is now.
      if (await pipelines.advance(pipeline, last.id))
        recordMetric('PipelineLag', {}, this.now() - Date.parse(last.date));
    }
  }

  /** The exporter and the logs after the cursor, or why they cannot be read. */
  private async nextBatch(
    environment: string,
    pipeline: Pipeline,
    exporters: ExporterStore,
  ): Promise<{ exporter: Exporter; logs: LogEntry[] } | { error: string }> {
    const exporter = await exporters.get(pipeline.exporterId);
    if (!exporter) return { error: `exporter '${pipeline.exporterId}' not found` };
    let ledger: Awaited<ReturnType<LedgerLookup['resolve']>>;
    try {
      ledger = await this.deps.lookup.resolve(environment, pipeline.ledger);
    } catch (err) {
      return { error: (err as Error).message };
    }
    const logs = await this.deps.logs.after(ledger, pipeline.lastLogId ?? 0, batchSizeOf(exporter));
    return { exporter, logs };
  }

  private async failed(
    pipelines: PipelineStore,
    pipeline: Pipeline,
    error: string,
  ): Promise<DrainOutcome> {
    const retryAtMs = this.now() + retryDelayMs(pipeline.failures + 1);
    await pipelines.recordFailure(pipeline, error, retryAtMs);
    return { state: 'failed', error, retryAtMs };
  }
}
