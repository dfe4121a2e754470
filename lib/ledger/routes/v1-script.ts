import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import { PlatformError } from '../../errors/index.js';
import { contractError } from '../../http/error-mapper.js';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import { booleanFlag } from '../../http/query-flags.js';
import type { HonoTypes } from '../../http/types.js';
import { parseJson } from '../../json/bigint-json.js';
import { BOOLEAN, header, openapi, query } from '../../openapi/describe.js';
import { metadataMap } from '../../validation/common.js';
import { keyedRecord } from '../../validation/record.js';
import type { SchemaReads } from '../commands/schema-write.js';
import type { transactionView } from '../domain/transaction.js';
import type { LedgerLookup } from '../store/ledger-lookup.js';
import type { LedgerCommands } from '../write/ledger-commands.js';
import { readIdempotencyKey } from './request.js';
import { createUnderSchema, V1_SCHEMA_VERSION_PARAMETER } from './schema-version.js';
import { v1ScriptResponseSchema } from './schemas.js';
import { resolveV1Ledger } from './v1-ledger.js';
import { v1Transaction } from './v1-transactions.js';
import { createTransactionSchema } from './write-requests.js';

const scriptBodySchema = v.strictObject({
  plain: createTransactionSchema.entries.script.wrapped.entries.plain,
  vars: v.optional(keyedRecord(v.string(), v.unknown(), 'must map variable names to values')),
  reference: createTransactionSchema.entries.reference,
  metadata: v.optional(metadataMap),
});

/** The v1 ScriptResponse's error codes (a closed enum in the SDK): anything else is answered as VALIDATION. */
const V1_SCRIPT_CODES = new Set([
  'INTERNAL',
  'INSUFFICIENT_FUND',
  'VALIDATION',
  'CONFLICT',
  'NO_SCRIPT',
  'COMPILATION_FAILED',
  'METADATA_OVERRIDE',
  'NOT_FOUND',
]);

/**
 * v1 `POST /<ledger>/script` (the SDK's `runScript`): a Numscript transaction, as `POST /v2/<ledger>/transactions`
 * with a `script` decides it. The reference answers a script's own failure (insufficient funds, compilation...)
 * with 200 and `{errorCode, errorMessage}` in the body, which is what the SDK reads; `preview` is the dry run.
 */
export function v1ScriptRoutes(
  app: Hono<HonoTypes>,
  depsOf: (c: Context<HonoTypes>) => {
    lookup: LedgerLookup;
    commands: LedgerCommands;
    schemas: SchemaReads;
  },
): void {
  app.post(
    '/:ledger/script',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'runScript',
        summary: 'Run a Numscript (v1)',
        description:
          'A script the ledger refuses answers 200 with `errorCode` and `errorMessage`, as v1 does.',
        tags: ['ledger v1'],
        deprecated: true,
        parameters: [
          query('preview', 'Compute without writing (a dry run).', BOOLEAN),
          V1_SCHEMA_VERSION_PARAMETER,
          header('Idempotency-Key', 'Replays of the same key and body answer the first result.'),
        ],
        body: scriptBodySchema,
        responses: {
          200: {
            description: 'The transaction, or why the script was refused.',
            schema: v1ScriptResponseSchema,
          },
        },
      },
    ),
    async (c) => {
      const { lookup, commands, schemas } = depsOf(c);
      const ledger = await resolveV1Ledger(c, lookup);
      const body = await readJsonBody(c, scriptBodySchema, { parse: parseJson });
      const idempotencyKey = readIdempotencyKey(c);
      const { input, schema } = await createUnderSchema(c, schemas, ledger, {
        script: { plain: body.plain, ...(body.vars ? { vars: body.vars } : {}) },
        ...(body.reference !== undefined ? { reference: body.reference } : {}),
        ...(body.metadata ? { metadata: body.metadata } : {}),
      });
      try {
        const outcome = await commands.execute(ledger, {
          kind: 'create',
          input,
          options: {
            dryRun: booleanFlag(c.req.query('preview'), 'preview'),
            force: false,
            ...(schema ? { schema } : {}),
            ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
          },
        });
        if (outcome.kind === 'replayed') c.header('Idempotency-Hit', 'true');
        return jsonResponse(c, {
          transaction: v1Transaction(outcome.result as ReturnType<typeof transactionView>),
        });
      } catch (err) {
        // Only what the script decided is a ScriptResponse error; the platform's own failures stay HTTP errors.
        if (!(err instanceof PlatformError) || !SCRIPT_FAILURES.has(err.kind)) throw err;
        const { errorCode } = contractError(err);
        return jsonResponse(c, {
          errorCode: V1_SCRIPT_CODES.has(errorCode) ? errorCode : 'VALIDATION',
          errorMessage: err.message,
        });
      }
    },
  );
}

const SCRIPT_FAILURES = new Set<PlatformError['kind']>([
  'insufficient_fund',
  'compilation_failed',
  'metadata_override',
  'no_postings',
  'conflict',
  'reads_changed',
  'not_found',
]);
