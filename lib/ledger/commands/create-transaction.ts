import { createHash } from 'node:crypto';
import { ConflictError, NoPostingsError } from '../../errors/index.js';
import { canonicalJson } from '../../json/canonical.js';
import { formatInstant, type Instant, parseInstant } from '../../time/instant.js';
import type { Decision, LedgerRecord, LedgerState, WriteRequest } from '../domain/change.js';
import { checkExpectations, type Expectation } from '../domain/expectations.js';
import { postingEffects, postingReads } from '../domain/posting-effects.js';
import type { Posting } from '../domain/postings.js';
import {
  accountMetadataUnderSchema,
  type WriteSchema,
} from '../domain/schema/transaction-schema.js';
import { type Transaction, transactionView } from '../domain/transaction.js';
import { withExpectationReads } from './expectations.js';
import { runScript, type ScriptPlan } from './script-transaction.js';

/**
 * What a transaction write takes: the routes' createTransactionSchema produces it (routes/write-requests.ts), the log
 * import rebuilds it from an entry (replayed-writes.ts).
 */
export interface CreateTransactionInput {
  postings?: Posting[];
  script?: {
    plain?: string;
    /** A transaction template of the schema version the write names (`schemaVersion`): its Numscript runs. */
    template?: string;
    vars?: Record<string, unknown>;
  };
  /** The reference's choice of Numscript runtime: one interpreter serves both here. */
  runtime?: 'experimental-interpreter' | 'machine';
  metadata?: Record<string, string>;
  reference?: string;
  /** RFC 3339, read here (parseInstant). */
  timestamp?: string;
  accountMetadata?: Record<string, Record<string, string>>;
  force?: boolean;
  /** Balance preconditions (docs/api.md §3.6). */
  expect?: Expectation[];
}

export interface CreateTransactionOptions {
  dryRun: boolean;
  force: boolean;
  idempotencyKey?: string;
  /** The schema version the write names: its chart rules on the postings decided (domain/schema). */
  schema?: WriteSchema;
  /** The version to record in the log without its chart's rules (an imported entry's). */
  schemaVersion?: string;
}

export type TransactionResult = ReturnType<typeof transactionView>;

/** Hash of what makes two requests "the same" for Idempotency-Key: the parsed body and the query flags. */
export function requestHash(input: unknown, options: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson({ input, options })).digest('base64url');
}

/**
 * POST /v2/<ledger>/transactions as a ledger write: reads the volumes and accounts it touches, applies the
 * postings in order, and decides the transaction, its volumes and moves, new or changed accounts and the
 * reference.
 */
export function createTransactionWrite(
  ledger: LedgerRecord,
  input: CreateTransactionInput,
  options: CreateTransactionOptions,
  plan?: ScriptPlan,
): WriteRequest<TransactionResult> {
  // A script comes planned (operations.ts, which also refuses postings and a script together).
  if (input.script !== undefined && !plan)
    throw new Error('a script transaction needs its plan (planScript)');
  const given: Posting[] = input.postings ?? [];
  if (!plan && given.length === 0)
    throw new NoPostingsError('a transaction needs at least one posting');
  const timestamp =
    input.timestamp === undefined ? undefined : parseInstant(input.timestamp, 'body.timestamp');
  // A script's own clauses (`allowing overdraft ...`) are its balance rule: its postings are applied as decided.
  const force = options.force || input.force === true || plan !== undefined;
  const requestAccountMetadata = input.accountMetadata ?? {};
  const reads = withExpectationReads(
    plan ? plan.reads : postingReads(given, Object.keys(requestAccountMetadata)),
    input.expect,
  );

  return {
    ledger,
    reads: {
      ...reads,
      ...(input.reference !== undefined ? { references: [input.reference] } : {}),
    },
    dryRun: options.dryRun,
    ...(options.idempotencyKey !== undefined
      ? {
          idempotency: {
            key: options.idempotencyKey,
            requestHash: requestHash(input, { force: options.force, dryRun: options.dryRun }),
          },
        }
      : {}),
    decide: (state, { now }) =>
      decideTransaction(state, now, {
        input,
        given,
        plan,
        force,
        timestamp,
        requestAccountMetadata,
        schema: options.schema,
        schemaVersion: options.schema?.version ?? options.schemaVersion,
        limitsForce: options.force || input.force === true,
      }),
  };
}

/** What createTransactionWrite decides from: the request, its postings or plan, and its balance rule. */
interface TransactionDecision {
  input: CreateTransactionInput;
  given: Posting[];
  plan: ScriptPlan | undefined;
  force: boolean;
  timestamp: Instant | undefined;
  requestAccountMetadata: Record<string, Record<string, string>>;
  schema: WriteSchema | undefined;
  schemaVersion: string | undefined;
  /** `force` as the caller asked it (a script's own force never lifts a limit). */
  limitsForce: boolean;
}

/**
 * The transaction decided on the state read: the next id, the postings (given, or the script's run on the state),
 * their effects on volumes and accounts, and the log entry. A reference already taken is a conflict.
 */
function decideTransaction(
  state: LedgerState,
  now: Instant,
  decision: TransactionDecision,
): Decision<TransactionResult> {
  const { input, given, plan, force, timestamp, requestAccountMetadata } = decision;
  if (input.reference !== undefined && state.referenceTaken(input.reference))
    throw new ConflictError(`duplicate reference "${input.reference}"`);
  const id = state.head.lastTxId + 1;
  const at = timestamp ?? now;
  const nowText = formatInstant(now);
  const script = plan ? runScript(plan, state, input.metadata ?? {}) : undefined;
  const postings: Posting[] = script ? script.postings : given;
  const written = script
    ? mergeAccountMetadata(requestAccountMetadata, script.accountMetadata)
    : requestAccountMetadata;
  const accountMetadata = decision.schema
    ? accountMetadataUnderSchema(decision.schema, postings, written, (a) => !state.account(a))
    : written;
  const tx: Transaction = {
    id,
    postings,
    metadata: script ? script.metadata : (input.metadata ?? {}),
    timestamp: formatInstant(at),
    insertedAt: nowText,
    updatedAt: nowText,
    ...(input.reference !== undefined ? { reference: input.reference } : {}),
    ...(input.script?.template !== undefined ? { template: input.script.template } : {}),
    reverted: false,
  };
  const effects = postingEffects(state, postings, {
    force,
    limitsForce: decision.limitsForce,
    at,
    now,
    txId: id,
    accountMetadata,
  });
  checkExpectations(input.expect, {
    before: (account, asset) => state.volume(account, asset),
    after: (account, asset) => effects.post[account]?.[asset] ?? state.volume(account, asset),
  });
  const logged = transactionView(tx);
  return {
    result: transactionView(tx, { post: effects.post }),
    change: {
      log: {
        type: 'NEW_TRANSACTION',
        data: { transaction: logged, accountMetadata },
        ...(decision.schemaVersion !== undefined ? { schemaVersion: decision.schemaVersion } : {}),
      },
      transactions: [{ record: { tx, post: effects.post } }],
      volumes: effects.volumes,
      moves: effects.moves,
      accounts: effects.accounts,
      references: input.reference !== undefined ? [{ reference: input.reference, txId: id }] : [],
      lastTxId: id,
      accountsAdded: effects.accountsAdded,
    },
  };
}

/** The request's account metadata with the script's `set_account_meta` over it, account by account. */
function mergeAccountMetadata(
  request: Record<string, Record<string, string>>,
  script: Record<string, Record<string, string>>,
): Record<string, Record<string, string>> {
  // A Map, then fromEntries: an address such as `__proto__` stays a key (merged[address] = ... would set the prototype).
  const merged = new Map(Object.entries(request));
  for (const [account, metadata] of Object.entries(script))
    merged.set(account, { ...(merged.get(account) ?? {}), ...metadata });
  return Object.fromEntries(merged);
}
