import { isEnvironmentId } from '../../environments/environment-id.js';
import type { ErrorKind } from '../../errors/index.js';
import { parseJson, stringifyJson } from '../../json/bigint-json.js';
import type { LedgerOperation } from '../commands/operations.js';

/**
 * A request relayed to a ledger's sequenced writer (group commit): the ledger (its environment and name), its
 * operation, a request id that names its result, and the deadline (epoch ms, the requester's clock) after which
 * the writer must not decide it any more — the requester answers "not committed" once told so. (Atomic bulks
 * are not relayed: they commit directly, or as an atomic group of the embedded engine.)
 */
export interface Intent {
  reqId: string;
  environment: string;
  ledger: string;
  operation: LedgerOperation;
  deadline: number;
  /**
   * An ordered group (a non-atomic bulk that stops at its first failure): once a member is refused or expires,
   * the members after it are skipped, never decided. Members are handed over together, in order.
   */
  group?: string;
  /**
   * With `group`: the group is atomic (an atomic bulk handed to the embedded engine) — decided all-or-nothing in
   * one batch and committed with it (staged when beyond one TransactWriteItems), or answered `too-large` when it
   * cannot fit one commit (MAX_STAGED_ACTIONS).
   */
  atomic?: boolean;
  /** The requester's reply queue (replies.ts): the writer sends the result there too. */
  replyTo?: string;
}

/** One operation's outcome, as the requester answers it. */
export type OperationOutcome =
  /** `inOrder`: its effective volumes are its commit-order ones (store/decide-batch.ts). */
  | { kind: 'committed'; result: unknown; logId: number; inOrder?: boolean }
  | { kind: 'replayed'; result: unknown; logId?: number };

/** What the writer answers for an intent. */
export type IntentResult =
  | { status: 'committed'; outcomes: OperationOutcome[] }
  /** Refused by its decision (insufficient funds, a duplicate reference...): nothing of it was written. */
  | { status: 'refused'; error: { kind: ErrorKind; message: string } }
  /** Its deadline passed before it could be decided: it was not, and never will be, committed. */
  | { status: 'expired' }
  /** A member of a group after one that failed: not decided, nothing written. */
  | { status: 'skipped'; after: string }
  /** A member of an atomic group beyond what one commit takes: not decided, nothing written. */
  | { status: 'too-large' };

/** Intents travel as exact JSON (amounts are big integers). */
export const encodeIntent = (intent: Intent): string => stringifyJson(intent);

/**
 * An intent read back. One without an environment was queued by a version before environments: its requester
 * polls a result key this version never writes, and its ledger is in a layout this version does not read, so it
 * is refused (the message goes back to the queue and on to its dead-letter queue, where the alarm shows it),
 * never guessed to be the default environment's.
 */
export function decodeIntent(text: string): Intent {
  const value = parseJson(text) as Record<string, unknown>;
  if (value.environment === undefined)
    throw new Error('intent names no environment (queued by a version before environments)');
  if (!isEnvironmentId(value.environment)) throw new Error('intent names no valid environment');
  if (
    typeof value.reqId !== 'string' ||
    typeof value.ledger !== 'string' ||
    typeof value.operation !== 'object' ||
    value.operation === null
  ) {
    throw new Error('not a ledger intent');
  }
  return {
    reqId: value.reqId,
    environment: value.environment,
    ledger: value.ledger,
    operation: value.operation as LedgerOperation,
    deadline: Number(value.deadline),
    ...(typeof value.replyTo === 'string' && /^https?:\/\//.test(value.replyTo)
      ? { replyTo: value.replyTo }
      : {}),
  };
}

export const encodeResult = (result: IntentResult): string => stringifyJson(result);
export const decodeResult = (text: string): IntentResult => parseJson(text) as IntentResult;
