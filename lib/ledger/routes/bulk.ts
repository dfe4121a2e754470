import type { Hono } from 'hono';
import * as v from 'valibot';
import { BulkSizeExceededError, PlatformError } from '../../errors/index.js';
import { contractError } from '../../http/error-mapper.js';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import { booleanFlag } from '../../http/query-flags.js';
import type { AppEnv } from '../../http/types.js';
import { parseJson } from '../../json/bigint-json.js';
import { validate } from '../../validation/validate.js';
import { MAX_BULK_ELEMENTS, bulkElementSchema, toId, type BulkElement } from '../commands/bulk.js';
import type { MetadataTarget } from '../commands/metadata.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { TransactionReads } from '../store/transaction-reads.js';
import type { LedgerWriter } from '../store/writer.js';
import type { CommandOutcome, LedgerCommands } from '../sequencer/ledger-commands.js';
import { operationRequest, type LedgerOperation } from '../commands/operations.js';
import type { WriteRequest } from '../domain/change.js';

/** Raised inside an atomic bulk so the response can say which element failed. */
class ElementFailure extends Error {
  constructor(
    readonly index: number,
    readonly error: PlatformError,
  ) {
    super(error.message);
  }
}

type ElementResult = { responseType: string; data?: unknown; logID?: number; errorCode?: string; errorDescription?: string };

/**
 * POST /v2/<ledger>/_bulk (API.md §3.2). Every element is validated before anything runs. Non-atomic: elements
 * run one by one, stopping at the first failure unless `continueOnFailure`. Atomic: all elements are one
 * DynamoDB transaction, so either all are written or none (and then every other element reports that it was
 * not applied). 400 when any element failed.
 */
export function bulkRoutes(app: Hono<AppEnv>, deps: { lookup: LedgerLookup; writer: LedgerWriter; commands: LedgerCommands; reads: TransactionReads }): void {
  app.post('/v2/:ledger/_bulk', async (c) => {
    const ledger = await deps.lookup.resolve(c.req.param('ledger'));
    const readTransaction = async (id: number) => (await deps.reads.get(ledger, id))?.tx;
    const atomic = booleanFlag(c.req.query('atomic'), 'atomic');
    const continueOnFailure = booleanFlag(c.req.query('continueOnFailure'), 'continueOnFailure');
    const raw = await readJsonBody(c, v.array(v.unknown(), 'must be an array of bulk elements'), { parse: parseJson });
    if (raw.length > MAX_BULK_ELEMENTS) throw new BulkSizeExceededError(`a bulk holds at most ${MAX_BULK_ELEMENTS} elements (got ${raw.length})`);
    const elements = raw.map((element, i) => validate(bulkElementSchema, element, `body.${i}`));

    const results: ElementResult[] = [];
    if (atomic) {
      try {
        const requests = await Promise.all(
          elements.map(async (e, i) => {
            try {
              return tagged(i, await operationRequest(ledger, operationOf(e), readTransaction));
            } catch (err) {
              throw err instanceof PlatformError ? new ElementFailure(i, err) : err;
            }
          }),
        );
        // All or none: one direct commit, never relayed (a sequenced writer decides requests one by one).
        const outcomes = await deps.writer.writeAtomic(ledger, requests);
        outcomes.forEach((o, i) => results.push(success(elements[i]!, o.kind === 'committed' ? { kind: 'committed', result: o.result, logId: o.log.id } : o)));
      } catch (err) {
        const failure = err instanceof ElementFailure ? err : undefined;
        if (!failure) throw err;
        elements.forEach((_, i) =>
          results.push(
            i === failure.index
              ? failed(failure.error)
              : { responseType: 'ERROR', errorCode: 'VALIDATION', errorDescription: `not applied: the atomic bulk failed at element ${failure.index}` },
          ),
        );
      }
    } else {
      for (const element of elements) {
        try {
          results.push(success(element, await deps.commands.execute(ledger, operationOf(element))));
        } catch (err) {
          if (!(err instanceof PlatformError)) throw err;
          results.push(failed(err));
          if (!continueOnFailure) break;
        }
      }
    }
    const firstError = results.find((r) => r.responseType === 'ERROR');
    return jsonResponse(
      c,
      { data: results, ...(firstError ? { errorCode: firstError.errorCode, errorMessage: firstError.errorDescription } : {}) },
      firstError ? 400 : 200,
    );
  });
}

/** A bulk element as the operation a single request would ask for (bulk elements have no dry run). */
function operationOf(element: BulkElement): LedgerOperation {
  const ik = element.ik !== undefined ? { idempotencyKey: element.ik } : {};
  switch (element.action) {
    case 'CREATE_TRANSACTION':
      return { kind: 'create', input: element.data, options: { dryRun: false, force: false, ...ik } };
    case 'ADD_METADATA':
      return { kind: 'metadata', target: target(element.data), change: { kind: 'save', metadata: element.data.metadata }, options: { dryRun: false, ...ik } };
    case 'DELETE_METADATA':
      return { kind: 'metadata', target: target(element.data), change: { kind: 'delete', key: element.data.key }, options: { dryRun: false, ...ik } };
    case 'REVERT_TRANSACTION':
      return {
        kind: 'revert',
        id: toId(element.data.id),
        body: element.data.metadata ? { metadata: element.data.metadata } : {},
        options: { force: element.data.force === true, atEffectiveDate: element.data.atEffectiveDate === true, dryRun: false, ...ik },
      };
  }
}

function target(data: { targetType: 'ACCOUNT'; targetId: string } | { targetType: 'TRANSACTION'; targetId: bigint | number | string }): MetadataTarget {
  return data.targetType === 'ACCOUNT' ? { type: 'ACCOUNT', address: data.targetId } : { type: 'TRANSACTION', id: toId(data.targetId) };
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
  const data = element.action === 'CREATE_TRANSACTION' || element.action === 'REVERT_TRANSACTION' ? { data: outcome.result } : {};
  return { responseType: element.action, ...data, ...(outcome.kind === 'committed' ? { logID: outcome.logId } : {}) };
}

function failed(error: PlatformError): ElementResult {
  return { responseType: 'ERROR', errorCode: contractError(error).errorCode, errorDescription: error.message };
}
