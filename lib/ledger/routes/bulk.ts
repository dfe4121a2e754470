import type { Hono } from 'hono';
import * as v from 'valibot';
import { BulkSizeExceededError, PlatformError, ValidationError } from '../../errors/index.js';
import { contractError } from '../../http/error-mapper.js';
import { readBodyText, readJsonBody, withoutNullFields } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import { booleanFlag } from '../../http/query-flags.js';
import type { AppEnv } from '../../http/types.js';
import { parseJson } from '../../json/bigint-json.js';
import { BOOLEAN, describe, query } from '../../openapi/describe.js';
import { validate } from '../../validation/validate.js';
import { type BulkElement, bulkElementSchema, MAX_BULK_ELEMENTS, toId } from '../commands/bulk.js';
import type { MetadataTarget } from '../commands/metadata.js';
import { type LedgerOperation, operationRequest } from '../commands/operations.js';
import { revertIdempotency, revertTransactionWrite } from '../commands/revert-transaction.js';
import type { ScriptStateReads } from '../commands/script-transaction.js';
import type { LedgerRecord, WriteRequest } from '../domain/change.js';
import type { Transaction } from '../domain/transaction.js';
import type { CommandOutcome, LedgerCommands } from '../sequencer/ledger-commands.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { TransactionReads } from '../store/transaction-reads.js';
import type { LedgerWriter } from '../store/writer.js';
import { bulkResponseSchema } from './schemas.js';

/** Raised inside an atomic bulk so the response can say which element failed. */
class ElementFailure extends Error {
  constructor(
    readonly index: number,
    readonly error: PlatformError,
  ) {
    super(error.message);
  }
}

type ElementResult = {
  responseType: string;
  data?: unknown;
  logID: number;
  errorCode?: string;
  errorDescription?: string;
};

/** The reference's streaming bulk: JSON elements one after another in the body (not an array). */
const JSON_STREAM = /^application\/vnd\.formance\.ledger\.api\.v2\.bulk\+json-stream\s*(;.*)?$/i;
/**
 * Elements of a `parallel` bulk in flight at once. Every write of a ledger commits through its HEAD, so running
 * them at once only pays when they can be group-committed (a relay is configured, as on AWS and `npm start`);
 * without one they run one at a time, a schedule the reference's parallel mode allows too.
 */
const PARALLELISM = 10;

/**
 * POST /v2/<ledger>/_bulk (API.md §3.2). Every element is validated before anything runs, and every element gets
 * a result, in order, each with the `logID` the SDK's models require (0 for an error). Non-atomic: elements run
 * one by one — or up to 10 at once with `parallel` —, and after the first failure the rest are not applied
 * unless `continueOnFailure`. Atomic: all elements are one DynamoDB transaction, so either all are written or
 * none; an element may revert or add metadata to a transaction an earlier element creates. 400 when any element
 * failed. `atomic` with `parallel` is refused, as the reference does.
 */
export function bulkRoutes(
  app: Hono<AppEnv>,
  deps: {
    lookup: LedgerLookup;
    writer: LedgerWriter;
    commands: LedgerCommands;
    reads: TransactionReads;
    scriptState: (ledger: LedgerRecord) => ScriptStateReads;
  },
): void {
  app.post(
    '/v2/:ledger/_bulk',
    describe({
      operationId: 'v2CreateBulk',
      summary: 'Run a bulk of operations',
      description:
        'Up to 100 elements (413 `BULK_SIZE_EXCEEDED` beyond); 400 when an element failed. Also accepts `application/vnd.formance.ledger.api.v2.bulk+json-stream` (one element per line).',
      tags: ['ledger: transactions'],
      parameters: [
        query('atomic', 'All elements in one commit, or none.', BOOLEAN),
        query('parallel', 'Run elements concurrently (not with atomic).', BOOLEAN),
        query('continueOnFailure', 'Go on after a failed element.', BOOLEAN),
      ],
      body: v.array(bulkElementSchema),
      responses: {
        200: { description: 'Every element succeeded.', schema: bulkResponseSchema },
        400: { description: 'An element failed: its result says why.', schema: bulkResponseSchema },
      },
    }),
  );
  app.post('/v2/:ledger/_bulk', async (c) => {
    const ledger = await deps.lookup.resolve(c.req.param('ledger'));
    const readTransaction = async (id: number) => (await deps.reads.get(ledger, id))?.tx;
    const atomic = booleanFlag(c.req.query('atomic'), 'atomic');
    const parallel = booleanFlag(c.req.query('parallel'), 'parallel');
    const continueOnFailure = booleanFlag(c.req.query('continueOnFailure'), 'continueOnFailure');
    if (atomic && parallel)
      throw new ValidationError('atomic and parallel options are mutually exclusive');
    const raw = JSON_STREAM.test(c.req.header('content-type') ?? '')
      ? parseJsonStream(await readBodyText(c))
      : await readJsonBody(c, v.array(v.unknown(), 'must be an array of bulk elements'), {
          parse: parseJson,
        });
    if (raw.length > MAX_BULK_ELEMENTS)
      throw new BulkSizeExceededError(
        `a bulk holds at most ${MAX_BULK_ELEMENTS} elements (got ${raw.length})`,
      );
    const elements = raw.map((element, i) =>
      validate(bulkElementSchema, withoutNullFields(element), `body.${i}`),
    );

    const results = atomic
      ? await runAtomic(ledger, elements, deps.writer, readTransaction, deps.scriptState(ledger))
      : await runEach(elements, (element) => deps.commands.execute(ledger, operationOf(element)), {
          parallel: parallel && deps.commands.groupCommits,
          continueOnFailure,
        });
    const firstError = results.find((r) => r.responseType === 'ERROR');
    return jsonResponse(
      c,
      {
        data: results,
        ...(firstError
          ? { errorCode: firstError.errorCode, errorMessage: firstError.errorDescription }
          : {}),
      },
      firstError ? 400 : 200,
    );
  });
}

/** All elements in one commit, never relayed (a sequenced writer decides requests one by one): all or none. */
async function runAtomic(
  ledger: LedgerRecord,
  elements: BulkElement[],
  writer: LedgerWriter,
  readTransaction: (id: number) => Promise<Transaction | undefined>,
  scriptState: ScriptStateReads,
): Promise<ElementResult[]> {
  try {
    const requests = await Promise.all(
      elements.map(async (e, i) => {
        const operation = operationOf(e);
        try {
          // A revert of a transaction an earlier element creates is built when decided, from the bulk's own items.
          if (
            operation.kind === 'revert' &&
            !(await readTransaction(operation.id)) &&
            createsEarlier(elements, i)
          )
            return tagged(i, revertInBulk(ledger, operation));
          return tagged(i, await operationRequest(ledger, operation, readTransaction, scriptState));
        } catch (err) {
          throw err instanceof PlatformError ? new ElementFailure(i, err) : err;
        }
      }),
    );
    const outcomes = await writer.writeAtomic(ledger, requests);
    return outcomes.map((o, i) =>
      success(
        elements[i]!,
        o.kind === 'committed' ? { kind: 'committed', result: o.result, logId: o.log.id } : o,
      ),
    );
  } catch (err) {
    if (!(err instanceof ElementFailure)) throw err;
    return elements.map((_, i) =>
      i === err.index
        ? failed(err.error)
        : notApplied(`the atomic bulk failed at element ${err.index}`),
    );
  }
}

/**
 * Elements one by one, or `parallel`: up to PARALLELISM at once, results in element order. After a failure,
 * elements not started yet are not applied unless `continueOnFailure`.
 */
async function runEach(
  elements: BulkElement[],
  execute: (element: BulkElement) => Promise<CommandOutcome>,
  options: { parallel: boolean; continueOnFailure: boolean },
): Promise<ElementResult[]> {
  const results: ElementResult[] = new Array(elements.length);
  let failedAt: number | undefined;
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < elements.length; i = next++) {
      if (failedAt !== undefined && !options.continueOnFailure) {
        results[i] = notApplied(`element ${failedAt} failed`);
        continue;
      }
      try {
        results[i] = success(elements[i]!, await execute(elements[i]!));
      } catch (err) {
        if (!(err instanceof PlatformError)) throw err;
        results[i] = failed(err);
        failedAt ??= i;
      }
    }
  };
  await Promise.all(
    Array.from({ length: options.parallel ? Math.min(PARALLELISM, elements.length) : 1 }, worker),
  );
  return results;
}

/** Whether an element before `index` creates a transaction (so a revert may name one that does not exist yet). */
const createsEarlier = (elements: BulkElement[], index: number) =>
  elements.slice(0, index).some((e) => e.action === 'CREATE_TRANSACTION');

/** A revert decided over the bulk's items: the original is the one the snapshot or an earlier element holds. */
function revertInBulk(
  ledger: LedgerRecord,
  operation: Extract<LedgerOperation, { kind: 'revert' }>,
): WriteRequest<unknown> {
  return {
    ledger,
    reads: { transactions: [operation.id] },
    dryRun: false,
    ...revertIdempotency(operation.id, operation.body, operation.options),
    decide(state, context) {
      return revertTransactionWrite(
        ledger,
        operation.id,
        state.transaction(operation.id)?.tx,
        operation.body,
        operation.options,
      ).decide(state, context);
    },
  };
}

/**
 * The elements of a JSON stream body: JSON objects one after another, separated by whitespace. Each object's end
 * is found by counting braces outside strings; each is then read by the exact parser.
 */
export function parseJsonStream(text: string): unknown[] {
  const elements: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') {
      if (depth++ === 0) start = i;
    } else if (ch === '}') {
      if (--depth < 0) throw new ValidationError('body: not a stream of JSON objects');
      if (depth === 0) elements.push(parseElement(text.slice(start, i + 1), elements.length));
    } else if (depth === 0 && !/\s/.test(ch))
      throw new ValidationError(
        `body: not a stream of JSON objects (unexpected "${ch}" between elements)`,
      );
  }
  if (depth !== 0 || inString) throw new ValidationError('body: the stream ends inside an element');
  return elements;
}

function parseElement(text: string, index: number): unknown {
  try {
    return parseJson(text);
  } catch {
    throw new ValidationError(`body.${index}: not valid JSON`);
  }
}

/** A bulk element as the operation a single request would ask for (bulk elements have no dry run). */
function operationOf(element: BulkElement): LedgerOperation {
  const ik = element.ik !== undefined ? { idempotencyKey: element.ik } : {};
  switch (element.action) {
    case 'CREATE_TRANSACTION':
      return {
        kind: 'create',
        input: element.data,
        options: { dryRun: false, force: false, ...ik },
      };
    case 'ADD_METADATA':
      return {
        kind: 'metadata',
        target: target(element.data),
        change: { kind: 'save', metadata: element.data.metadata },
        options: { dryRun: false, ...ik },
      };
    case 'DELETE_METADATA':
      return {
        kind: 'metadata',
        target: target(element.data),
        change: { kind: 'delete', key: element.data.key },
        options: { dryRun: false, ...ik },
      };
    case 'REVERT_TRANSACTION':
      return {
        kind: 'revert',
        id: toId(element.data.id),
        body: element.data.metadata ? { metadata: element.data.metadata } : {},
        options: {
          force: element.data.force === true,
          atEffectiveDate: element.data.atEffectiveDate === true,
          dryRun: false,
          ...ik,
        },
      };
  }
}

function target(
  data:
    | { targetType: 'ACCOUNT'; targetId: string }
    | { targetType: 'TRANSACTION'; targetId: bigint | number | string },
): MetadataTarget {
  return data.targetType === 'ACCOUNT'
    ? { type: 'ACCOUNT', address: data.targetId }
    : { type: 'TRANSACTION', id: toId(data.targetId) };
}

/** Wraps a request so an error in its decision names the element (atomic bulks decide all elements at once). */
function tagged(index: number, request: WriteRequest<unknown>): WriteRequest<unknown> {
  return {
    ...request,
    decide(state, context) {
      try {
        return request.decide(state, context);
      } catch (err) {
        throw err instanceof PlatformError ? new ElementFailure(index, err) : err;
      }
    },
  };
}

function success(element: BulkElement, outcome: CommandOutcome): ElementResult {
  const data =
    element.action === 'CREATE_TRANSACTION' || element.action === 'REVERT_TRANSACTION'
      ? { data: outcome.result }
      : {};
  // A replay names the log entry its original wrote (idempotency records written before they kept it: 0).
  return {
    responseType: element.action,
    ...data,
    logID: outcome.kind === 'dry-run' ? 0 : (outcome.logId ?? 0),
  };
}

function failed(error: PlatformError): ElementResult {
  return {
    responseType: 'ERROR',
    errorCode: contractError(error).errorCode,
    errorDescription: error.message,
    logID: 0,
  };
}

const notApplied = (why: string): ElementResult => ({
  responseType: 'ERROR',
  errorCode: 'VALIDATION',
  errorDescription: `not applied: ${why}`,
  logID: 0,
});
