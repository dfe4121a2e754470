import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inEnvironmentScope } from '../../dynamo/environment-scope.js';
import type { Logger } from '../../observability/logger.js';
import type { LedgerOperation } from '../commands/operations.js';
import type { LedgerRecord } from '../domain/change.js';
import type { Intent } from './intent.js';
import type { IntentSink, RelayAnswer } from './relay.js';
import { LedgerSequencer } from './sequencer.js';

export interface EmbeddedOptions {
  doc: DynamoDBDocumentClient;
  tableFor: (bucket: string) => string;
  logger?: Logger;
  now?: () => number;
  /** How long a write may wait for its batch before it is answered "not committed" (as a relayed one). */
  deadlineMs?: number;
}

/** Intents handed to one batch at most: the sequencer defers what does not fit one TransactWriteItems. */
const MAX_BATCH_INTENTS = 128;
const DEFAULT_DEADLINE_MS = 8_000;
/**
 * A group (a bulk of up to 100 writes) may need several commits: its members get longer, within the 29 s API
 * Gateway gives a request, so a bulk is not cut short by its own size.
 */
const GROUP_DEADLINE_MS = 20_000;

interface Waiting {
  intent: Intent;
  answer: (result: RelayAnswer) => void;
}

/** One ledger's queue and its sequencer; `running` while a drain loop serves it. */
interface LedgerLine {
  sequencer: LedgerSequencer;
  waiting: Waiting[];
  running: boolean;
}

/**
 * The ledger's group commit inside one process (the embedded platform, `npm start`): every write of a ledger
 * waits in that ledger's line, and one loop per ledger hands everything waiting to the sequencer — decided in
 * arrival order over its exact in-memory state and committed in one TransactWriteItems — then answers each
 * requester in memory. A write alone is a batch of one; while a batch commits, the next one gathers. No queue
 * message, no result item, no polling: one DynamoDB request per batch.
 *
 * The protocol is the sequenced writer's (sequencer.ts): every commit is conditional on HEAD's version, so a
 * write committed by anything else (a direct bulk, a mapping change, another process) makes the next commit
 * fail, the sequencer read HEAD again and decide the batch again.
 */
export class EmbeddedGroupCommit implements IntentSink {
  private readonly lines = new Map<string, LedgerLine>();
  private readonly now: () => number;
  private readonly owner = `embedded-${randomUUID()}`;

  constructor(private readonly options: EmbeddedOptions) {
    this.now = options.now ?? Date.now;
  }

  submit(ledger: LedgerRecord, operation: LedgerOperation): Promise<RelayAnswer> {
    return this.enqueue(ledger, [this.intentOf(ledger, operation)])[0]!;
  }

  /** Queued together and in order, so they are decided one after another in as few batches as fit. */
  submitGroup(
    ledger: LedgerRecord,
    operations: readonly LedgerOperation[],
    options: { stopOnFailure: boolean },
  ): { reqIds: string[]; answers: Promise<RelayAnswer[]> } {
    const group = options.stopOnFailure ? randomUUID() : undefined;
    const intents = operations.map((operation) => ({
      ...this.intentOf(ledger, operation, GROUP_DEADLINE_MS),
      ...(group ? { group } : {}),
    }));
    return {
      reqIds: intents.map((i) => i.reqId),
      answers: Promise.all(this.enqueue(ledger, intents)),
    };
  }

  private intentOf(
    ledger: LedgerRecord,
    operation: LedgerOperation,
    deadlineMs = this.options.deadlineMs ?? DEFAULT_DEADLINE_MS,
  ): Intent {
    return {
      reqId: randomUUID(),
      environment: ledger.environment,
      ledger: ledger.name,
      operation,
      deadline: this.now() + deadlineMs,
    };
  }

  private enqueue(ledger: LedgerRecord, intents: readonly Intent[]): Array<Promise<RelayAnswer>> {
    const line = this.lineOf(ledger);
    const answers = intents.map(
      (intent) => new Promise<RelayAnswer>((answer) => line.waiting.push({ intent, answer })),
    );
    if (!line.running) {
      line.running = true;
      // Its environment's scope, whichever request started the loop (lib/dynamo/environment-scope.ts).
      void inEnvironmentScope(ledger.environment, () => this.drain(ledger, line));
    }
    return answers;
  }

  private lineOf(ledger: LedgerRecord): LedgerLine {
    const key = `${ledger.environment}\u0000${ledger.name}`;
    let line = this.lines.get(key);
    if (!line) {
      line = {
        sequencer: new LedgerSequencer({
          doc: this.options.doc,
          table: this.options.tableFor(ledger.bucket),
          ledger,
          owner: this.owner,
          inProcess: true,
          ...(this.options.now ? { now: this.options.now } : {}),
          onCommitError: (err) =>
            this.options.logger?.log('warn', 'ledger engine: commit failed, deciding again', {
              environment: ledger.environment,
              ledger: ledger.name,
              error: `${(err as Error).name}: ${(err as Error).message}`,
            }),
        }),
        waiting: [],
        running: false,
      };
      this.lines.set(key, line);
    }
    return line;
  }

  /** Batches until the line is empty: what arrived while a batch committed is the next batch. */
  private async drain(ledger: LedgerRecord, line: LedgerLine): Promise<void> {
    try {
      while (line.waiting.length > 0) {
        const batch = line.waiting.splice(0, MAX_BATCH_INTENTS);
        line.waiting.unshift(...(await this.commitBatch(ledger, line, batch)));
      }
    } finally {
      line.running = false;
    }
  }

  /** Commits one batch and answers its requesters; answers what did not fit, to go first in the next one. */
  private async commitBatch(
    ledger: LedgerRecord,
    line: LedgerLine,
    batch: Waiting[],
  ): Promise<Waiting[]> {
    try {
      const { results, deferred } = await line.sequencer.process(batch.map((w) => w.intent));
      const later = new Set(deferred.map((i) => i.reqId));
      for (const w of batch) {
        const result = results.get(w.intent.reqId);
        if (result) w.answer(result);
        else if (!later.has(w.intent.reqId)) w.answer({ status: 'unknown' });
      }
      return batch.filter((w) => later.has(w.intent.reqId));
    } catch (err) {
      // The sequencer gave up on the batch (its commits kept failing): whether the last one landed is unknown.
      this.options.logger?.log('error', 'ledger engine: batch failed', {
        environment: ledger.environment,
        ledger: ledger.name,
        intents: batch.length,
        error: (err as Error).message,
      });
      for (const w of batch) w.answer({ status: 'unknown' });
      return [];
    }
  }
}
