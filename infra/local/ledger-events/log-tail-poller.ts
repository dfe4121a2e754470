import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { type LedgerRef, ledgerOfPartition } from '../../../lib/ledger/store/keys.js';
import {
  ledgersOfTable,
  mappingVersionOf,
  type RawItem,
  readLogPagesAfter,
  readMappingImage,
} from '../../../lib/ledger/store/log-tail.js';
import type { Logger } from '../../../lib/observability/logger.js';
import type { StreamBatchResult } from '../pollers/stream-poller.js';
import type { LedgerItemWrite, LedgerWrites } from './ledger-writes.js';
import { type LogTailCheckpoints, type LogTailPosition, tailKey } from './log-tail-checkpoints.js';

export interface LogTailPollerOptions {
  dynamo: DynamoDBClient;
  /** The ledger table whose ledgers' logs are tailed. */
  table: string;
  /** Takes records shaped as the table's stream would hand them (INSERT of a log page, MODIFY of the mapping). */
  handler: (records: _Record[]) => Promise<StreamBatchResult>;
  checkpoints: LogTailCheckpoints;
  /** The process's writes to ledger tables: which ledgers to read again. */
  writes: LedgerWrites;
  logger?: Logger;
  /** After a round that handed something over, wait this long, so a burst's pages go over in few reads. */
  busyPauseMs?: number;
  /** First wait after a failed batch, doubled on each retry up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** A ledger's checkpoint is saved at most this often while its events flow (and at stop). */
  checkpointEveryMs?: number;
}

/** Log pages per read (each at most 300 KB: DynamoDB answers 1 MB at most, fewer if they are large). */
const PAGES_PER_READ = 100;

interface Tailed {
  ledger: LedgerRef;
  position: LogTailPosition;
  saved: LogTailPosition & { atMs: number };
}

/**
 * The local platform's ledger event source where the ledger table has no stream: each ledger's log, read in
 * order from a checkpoint per ledger, handed to the same handler as the stream's records, at least once. At
 * start every ledger is read up to its end (what was written while the platform was stopped); then a ledger is
 * read again when the process writes to its log or mapping (`LedgerWrites`). A failed batch is retried from its
 * first failed record, after a back-off, as the stream poller does: nothing is skipped.
 */
export class LogTailPoller {
  private readonly tailed = new Map<string, Tailed>();
  private readonly dirty = new Map<string, { ledger: LedgerRef; log: boolean; mapping: boolean }>();
  private running = false;
  private loop: Promise<void> | undefined;
  private unsubscribe: (() => void) | undefined;
  private wake: (() => void) | undefined;
  private failures = 0;

  constructor(private readonly options: LogTailPollerOptions) {}

  async start(): Promise<void> {
    if (this.running) return;
    const saved = await this.options.checkpoints.load();
    for (const [key, { ledger, position }] of saved)
      this.tailed.set(key, { ledger, position, saved: { ...position, atMs: 0 } });
    // Subscribed before the Scan: a ledger created meanwhile is read from its hint if the Scan missed it.
    this.unsubscribe = this.options.writes.on((writes) => this.hint(writes));
    for (const ledger of await ledgersOfTable(this.options.dynamo, this.options.table))
      this.mark(ledger, true, true);
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
    for (const t of this.tailed.values()) await this.save(t, 0);
  }

  private hint(writes: readonly LedgerItemWrite[]): void {
    for (const w of writes) {
      if (w.table !== this.options.table) continue;
      const own = ledgerOfPartition(w.pk);
      if (own?.partition === 'log') this.mark(own.ledger, true, false);
      else if (own?.partition === 'ledger' && w.sk === 'MAPPING')
        this.mark(own.ledger, false, true);
    }
  }

  private mark(ledger: LedgerRef, log: boolean, mapping: boolean): void {
    const key = tailKey(ledger);
    const known = this.dirty.get(key);
    this.dirty.set(key, {
      ledger,
      log: log || (known?.log ?? false),
      mapping: mapping || (known?.mapping ?? false),
    });
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      if (this.dirty.size === 0) {
        await this.sleep(undefined);
        continue;
      }
      const round = [...this.dirty.values()];
      this.dirty.clear();
      let handed = false;
      let failed = false;
      for (const entry of round) {
        try {
          handed = (await this.drain(entry)) || handed;
        } catch (err) {
          failed = true;
          this.mark(entry.ledger, entry.log, entry.mapping);
          this.options.logger?.log('warn', 'log-tail: a batch failed; it is retried', {
            table: this.options.table,
            ledger: entry.ledger.name,
            error: String(err),
          });
        }
      }
      this.failures = failed ? this.failures + 1 : 0;
      if (failed) await this.sleep(this.backoff());
      else if (handed && this.options.busyPauseMs) await this.sleep(this.options.busyPauseMs);
    }
  }

  private backoff(): number {
    const first = this.options.backoffMs ?? 200;
    return Math.min(first * 2 ** (this.failures - 1), this.options.maxBackoffMs ?? 5_000);
  }

  /** Sleeps `ms` (or until a hint when undefined); a hint ends an idle wait, never a back-off or a busy pause. */
  private sleep(ms: number | undefined): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      this.wake = ms === undefined ? done : () => (this.running ? undefined : done());
    });
  }

  /** Hands over what the ledger logged after its checkpoint; answers whether anything was handed over. */
  private async drain(entry: {
    ledger: LedgerRef;
    log: boolean;
    mapping: boolean;
  }): Promise<boolean> {
    const t = this.tailedOf(entry.ledger);
    let handed = false;
    while (entry.log && this.running) {
      const pages = await readLogPagesAfter(
        this.options.dynamo,
        this.options.table,
        t.ledger,
        t.position.logSk,
        PAGES_PER_READ,
      );
      if (pages.length === 0) break;
      await this.handOver(
        pages.map((p) => recordOf('INSERT', p, p.sk?.S ?? '')),
        (sequence) => {
          t.position = { ...t.position, logSk: sequence };
        },
      );
      handed = true;
      await this.save(t, this.options.checkpointEveryMs ?? 1_000);
      if (pages.length < PAGES_PER_READ) break;
    }
    if (entry.mapping && this.running) handed = (await this.drainMapping(t)) || handed;
    return handed;
  }

  private async drainMapping(t: Tailed): Promise<boolean> {
    const image = await readMappingImage(this.options.dynamo, this.options.table, t.ledger);
    const version = image ? mappingVersionOf(image) : 0;
    if (!image || version <= t.position.mappingVersion) return false;
    await this.handOver([recordOf('MODIFY', image, `MAPPING#${version}`)], () => {
      t.position = { ...t.position, mappingVersion: version };
    });
    await this.save(t, this.options.checkpointEveryMs ?? 1_000);
    return true;
  }

  /** Hands `records` over; `accept` moves the checkpoint past each one taken, up to the first failed. */
  private async handOver(records: _Record[], accept: (sequence: string) => void): Promise<void> {
    const { batchItemFailures } = await this.options.handler(records);
    const failedAt = batchItemFailures.length
      ? records.findIndex(
          (r) => r.dynamodb?.SequenceNumber === batchItemFailures[0]!.itemIdentifier,
        )
      : records.length;
    const taken = Math.max(failedAt, 0);
    for (const r of records.slice(0, taken)) accept(r.dynamodb?.SequenceNumber ?? '');
    if (taken < records.length)
      throw new Error(`the handler failed at record ${records[taken]?.dynamodb?.SequenceNumber}`);
  }

  private tailedOf(ledger: LedgerRef): Tailed {
    const key = tailKey(ledger);
    let t = this.tailed.get(key);
    if (!t) {
      t = {
        ledger,
        position: { logSk: '', mappingVersion: 0 },
        saved: { logSk: '', mappingVersion: 0, atMs: 0 },
      };
      this.tailed.set(key, t);
    }
    return t;
  }

  /** Saves a moved checkpoint unless one was saved within `everyMs`: a failed save only means a replay. */
  private async save(t: Tailed, everyMs: number): Promise<void> {
    const { position, saved } = t;
    if (position.logSk === saved.logSk && position.mappingVersion === saved.mappingVersion) return;
    if (Date.now() - saved.atMs < everyMs) return;
    t.saved = { ...position, atMs: Date.now() };
    try {
      await this.options.checkpoints.save(t.ledger, position);
    } catch (err) {
      t.saved = { ...saved };
      this.options.logger?.log('warn', 'log-tail: saving a checkpoint failed; a restart replays', {
        error: String(err),
      });
    }
  }
}

/** A record as the table's stream would carry the item (the handler reads its keys, image and sequence). */
function recordOf(eventName: 'INSERT' | 'MODIFY', image: RawItem, sequence: string): _Record {
  return {
    eventID: sequence,
    eventName,
    eventSource: 'local:log-tail',
    dynamodb: {
      Keys: { pk: image.pk!, sk: image.sk! } as never,
      NewImage: image as never,
      SequenceNumber: sequence,
    },
  };
}
