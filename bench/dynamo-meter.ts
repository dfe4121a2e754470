/**
 * Counts every DynamoDB request the platform's code makes in this process, with the capacity DynamoDB reports.
 *
 * The services build their own document clients (the ledger even has a second one for bigint reads), so instead
 * of threading a hook through code the benchmark does not own, `DynamoDBDocumentClient.prototype.send` is
 * wrapped once: the first send of each client adds an `initialize`-step middleware to that client's stack. The
 * middleware asks for `ReturnConsumedCapacity: INDEXES` on every command and records what comes back — so the
 * capacity figures are DynamoDB Local's own accounting, not computed here. Failed requests report no capacity.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type ActionUnits, transactWriteUnits } from './transact-write-units.js';

export interface DynamoCall {
  operation: string;
  /** Capacity units DynamoDB reported for the request (reads or writes, as the operation implies). */
  units: number;
  kind: 'read' | 'write' | 'other';
  /** TransactWriteItems only, when the meter computes them: the units by DynamoDB's rules (see transact-write-units). */
  computedUnits?: number;
  /** With computedUnits: what each action of the transaction costs. */
  actions?: ActionUnits[];
  /** The error name, when the request failed. */
  error?: string;
}

export interface CallSummary {
  requests: number;
  readRequests: number;
  writeRequests: number;
  readUnits: number;
  writeUnits: number;
  /** Write units by DynamoDB's rules: reported units, with each TransactWriteItems' units computed instead. */
  writeUnitsByRules: number;
  byOperation: Record<string, number>;
  /** TransactionCanceledException / TransactionConflictException answers: the ledger writer retries these. */
  transactionCancellations: number;
  errors: Record<string, number>;
}

const OPERATION: Record<string, { name: string; kind: DynamoCall['kind'] }> = {
  Get: { name: 'GetItem', kind: 'read' },
  GetItem: { name: 'GetItem', kind: 'read' },
  Query: { name: 'Query', kind: 'read' },
  Scan: { name: 'Scan', kind: 'read' },
  BatchGet: { name: 'BatchGetItem', kind: 'read' },
  BatchGetItem: { name: 'BatchGetItem', kind: 'read' },
  TransactGet: { name: 'TransactGetItems', kind: 'read' },
  TransactGetItems: { name: 'TransactGetItems', kind: 'read' },
  Put: { name: 'PutItem', kind: 'write' },
  PutItem: { name: 'PutItem', kind: 'write' },
  Update: { name: 'UpdateItem', kind: 'write' },
  UpdateItem: { name: 'UpdateItem', kind: 'write' },
  Delete: { name: 'DeleteItem', kind: 'write' },
  DeleteItem: { name: 'DeleteItem', kind: 'write' },
  BatchWrite: { name: 'BatchWriteItem', kind: 'write' },
  BatchWriteItem: { name: 'BatchWriteItem', kind: 'write' },
  TransactWrite: { name: 'TransactWriteItems', kind: 'write' },
  TransactWriteItems: { name: 'TransactWriteItems', kind: 'write' },
};

export class DynamoMeter {
  calls: DynamoCall[] = [];
  /** Set → TransactWriteItems units are also computed by DynamoDB's rules, reading item sizes with this client. */
  sizer: DynamoDBClient | undefined;

  reset(): void {
    this.calls = [];
  }

  record(call: DynamoCall): void {
    this.calls.push(call);
  }

  summary(calls: readonly DynamoCall[] = this.calls): CallSummary {
    const s: CallSummary = {
      requests: 0,
      readRequests: 0,
      writeRequests: 0,
      readUnits: 0,
      writeUnits: 0,
      writeUnitsByRules: 0,
      byOperation: {},
      transactionCancellations: 0,
      errors: {},
    };
    for (const c of calls) {
      s.requests++;
      if (c.kind === 'read') {
        s.readRequests++;
        s.readUnits += c.units;
      }
      if (c.kind === 'write') {
        s.writeRequests++;
        s.writeUnits += c.units;
        s.writeUnitsByRules += c.computedUnits ?? c.units;
      }
      s.byOperation[c.operation] = (s.byOperation[c.operation] ?? 0) + 1;
      if (c.error) {
        s.errors[c.error] = (s.errors[c.error] ?? 0) + 1;
        if (
          c.error === 'TransactionCanceledException' ||
          c.error === 'TransactionConflictException'
        )
          s.transactionCancellations++;
      }
    }
    return s;
  }
}

/** ConsumedCapacity is one object for single-item operations and an array (one per table) for batches. */
export function capacityUnits(consumed: unknown): number {
  const list = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  return list.reduce(
    (sum: number, c: { CapacityUnits?: number }) => sum + (c?.CapacityUnits ?? 0),
    0,
  );
}

let installed: DynamoMeter | undefined;

/** Wraps every document client of this process (once); returns the one meter they all report to. */
export function installDynamoMeter(): DynamoMeter {
  if (installed) return installed;
  const meter = new DynamoMeter();
  installed = meter;
  const instrumented = new WeakSet<object>();
  const proto = DynamoDBDocumentClient.prototype as unknown as {
    send: (...args: unknown[]) => unknown;
  };
  const originalSend = proto.send;
  proto.send = function (this: DynamoDBDocumentClient, ...args: unknown[]) {
    if (!instrumented.has(this.middlewareStack)) {
      instrumented.add(this.middlewareStack);
      this.middlewareStack.add(
        (next, context) => async (handlerArgs) => {
          const known = OPERATION[String(context.commandName ?? '').replace(/Command$/, '')];
          const operation = known?.name ?? String(context.commandName);
          const input = handlerArgs.input as Record<string, unknown>;
          input.ReturnConsumedCapacity = 'INDEXES';
          const sizer =
            meter.sizer && operation === 'TransactWriteItems'
              ? await transactWriteUnits(meter.sizer, input)
              : undefined;
          try {
            const result = await next(handlerArgs);
            const output = result.output as { ConsumedCapacity?: unknown };
            meter.record({
              operation,
              kind: known?.kind ?? 'other',
              units: capacityUnits(output.ConsumedCapacity),
              ...(sizer
                ? await sizer().then(({ units, actions }) => ({ computedUnits: units, actions }))
                : {}),
            });
            return result;
          } catch (err) {
            meter.record({
              operation,
              kind: known?.kind ?? 'other',
              units: 0,
              error: (err as Error).name,
            });
            throw err;
          }
        },
        { step: 'initialize', name: 'benchDynamoMeter', override: true },
      );
    }
    return originalSend.apply(this, args);
  };
  return meter;
}

/** Counts the SQS requests of one client (SQS bills per request). */
export function countSqsRequests(client: SQSClient): {
  byOperation: Record<string, number>;
  reset(): void;
  total(): number;
} {
  const byOperation: Record<string, number> = {};
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const op = String(context.commandName).replace(/Command$/, '');
      byOperation[op] = (byOperation[op] ?? 0) + 1;
      return next(args);
    },
    { step: 'initialize', name: 'benchSqsCounter', override: true },
  );
  return {
    byOperation,
    reset: () => {
      for (const k of Object.keys(byOperation)) delete byOperation[k];
    },
    total: () => Object.values(byOperation).reduce((a, b) => a + b, 0),
  };
}
