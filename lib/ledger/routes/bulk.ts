import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import { BulkSizeExceededError, type PlatformError, ValidationError } from '../../errors/index.js';
import { contractError } from '../../http/error-mapper.js';
import { readBodyText, readJsonBody, withoutNullFields } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import { booleanFlag } from '../../http/query-flags.js';
import type { HonoTypes } from '../../http/types.js';
import { parseJson } from '../../json/bigint-json.js';
import { BOOLEAN, openapi, query } from '../../openapi/describe.js';
import { validate } from '../../validation/validate.js';
import { type BulkElement, MAX_BULK_ELEMENTS } from '../commands/bulk.js';
import type { SchemaReads } from '../commands/schema-write.js';
import type { StoredSchema } from '../domain/schema/schema-data.js';
import { applyTransactionSchema } from '../domain/schema/transaction-schema.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { CommandOutcome } from '../write/ledger-commands.js';
import { type BulkDeps, type ElementOutcome, runBulk } from '../write/run-bulk.js';
import { prepareEach, runWithRefusals } from './bulk-refusals.js';
import { bulkElementSchema } from './bulk-requests.js';
import { requestLedger } from './request.js';
import { requestSchema, SCHEMA_VERSION_PARAMETER } from './schema-version.js';
import { bulkResponseSchema } from './schemas.js';

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
 * POST /v2/<ledger>/_bulk (docs/api.md §3.2). Every element is validated before anything runs, and every element gets
 * a result, in order, each with the `logID` the SDK's models require (0 for an error). Non-atomic: elements run
 * one by one — or up to 10 at once with `parallel` —, and after the first failure the rest are not applied
 * unless `continueOnFailure`. Atomic: all elements are one DynamoDB transaction, so either all are written or
 * none; an element may revert or add metadata to a transaction an earlier element creates. 400 when any element
 * failed. `atomic` with `parallel` is refused, as the reference does.
 */
export function bulkRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => BulkDeps & { lookup: LedgerLookup; schemas: SchemaReads },
): void {
  app.post(
    '/v2/:ledger/_bulk',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v2CreateBulk',
        summary: 'Run a bulk of operations',
        description:
          'Up to 100 elements (413 `BULK_SIZE_EXCEEDED` beyond); 400 when an element failed. Also accepts `application/vnd.formance.ledger.api.v2.bulk+json-stream` (one element per line).',
        tags: ['ledger: transactions'],
        parameters: [
          query('atomic', 'All elements in one commit, or none.', BOOLEAN),
          query('parallel', 'Run elements concurrently (not with atomic).', BOOLEAN),
          query('continueOnFailure', 'Go on after a failed element.', BOOLEAN),
          SCHEMA_VERSION_PARAMETER,
        ],
        body: v.array(bulkElementSchema),
        responses: {
          200: { description: 'Every element succeeded.', schema: bulkResponseSchema },
          400: {
            description: 'An element failed: its result says why.',
            schema: bulkResponseSchema,
          },
        },
      },
    ),
    async (c) => {
      const deps = depsOf(c);
      const ledger = await requestLedger(c, deps.lookup);
      const atomic = booleanFlag(c.req.query('atomic'), 'atomic');
      const parallel = booleanFlag(c.req.query('parallel'), 'parallel');
      const continueOnFailure = booleanFlag(c.req.query('continueOnFailure'), 'continueOnFailure');
      if (atomic && parallel)
        throw new ValidationError('atomic and parallel options are mutually exclusive');
      const validated = await readBulkElements(c);
      const options = { atomic, parallel, continueOnFailure };
      let outcomes: ElementOutcome[];
      let elements: BulkElement[];
      if (atomic) {
        // All or nothing: a schema error refuses the whole bulk before anything runs.
        const schema = await requestSchema(c, deps.schemas, ledger);
        elements = validated.map((element) => underSchema(element, schema));
        outcomes = await runBulk(ledger, elements, options, deps);
      } else {
        // Each element answers its own schema error, as the reference's; the others run as usual.
        const schema = requestSchema(c, deps.schemas, ledger);
        const found = await schema.then(
          (s) => ({ schema: s }),
          (err: unknown) => ({ err }),
        );
        const prepared = prepareEach(validated, (element) => {
          if ('err' in found) throw found.err;
          return underSchema(element, found.schema);
        });
        elements = prepared.map((p) => p.element);
        outcomes = await runWithRefusals(ledger, prepared, options, deps);
      }
      const results = outcomes.map((outcome, i) => elementResult(elements[i]!, outcome));
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
    },
  );
}

/** The body's elements (an array, or the JSON stream), each validated; more than the limit is refused first. */
async function readBulkElements(c: Context<HonoTypes>) {
  const raw = JSON_STREAM.test(c.req.header('content-type') ?? '')
    ? parseJsonStream(await readBodyText(c))
    : await readJsonBody(c, v.array(v.unknown(), 'must be an array of bulk elements'), {
        array: true,
        parse: parseJson,
      });
  if (raw.length > MAX_BULK_ELEMENTS)
    throw new BulkSizeExceededError(
      `a bulk holds at most ${MAX_BULK_ELEMENTS} elements (got ${raw.length})`,
    );
  return raw.map((element, i) =>
    validate(bulkElementSchema, withoutNullFields(element), `body.${i}`),
  );
}

/** A create element under the bulk's schema version: its template resolved, the chart its postings must fit. */
function underSchema(element: BulkElement, schema: StoredSchema | undefined): BulkElement {
  if (element.action !== 'CREATE_TRANSACTION')
    return schema
      ? { ...element, schema: { version: schema.version, chart: schema.chart } }
      : element;
  const applied = applyTransactionSchema(element.data, schema);
  return { ...element, data: applied.input, ...(applied.schema ? { schema: applied.schema } : {}) };
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

/** An element's result as the contract shows it. */
function elementResult(element: BulkElement, outcome: ElementOutcome): ElementResult {
  if (outcome.kind === 'failed') return failed(outcome.error);
  if (outcome.kind === 'not-applied') return notApplied(outcome.why);
  return success(element, outcome.outcome);
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
