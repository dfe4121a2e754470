import type { ErrorKind } from '../../errors/index.js';
import { parseJson, stringifyJson } from '../../json/bigint-json.js';
import type { LedgerOperation } from '../commands/operations.js';

/**
 * A request relayed to a ledger's sequenced writer (group commit): its operation, a request id that names its
 * result, and the deadline (epoch ms, the requester's clock) after which the writer must not decide it any more —
 * the requester answers "not committed" once told so. (Atomic bulks are not relayed: they commit directly.)
 */
export interface Intent {
  reqId: string;
  ledger: string;
  operation: LedgerOperation;
  deadline: number;
}

/** One operation's outcome, as the requester answers it. */
export type OperationOutcome =
  | { kind: 'committed'; result: unknown; logId: number }
  | { kind: 'replayed'; result: unknown; logId?: number };

/** What the writer answers for an intent. */
export type IntentResult =
  | { status: 'committed'; outcomes: OperationOutcome[] }
  /** Refused by its decision (insufficient funds, a duplicate reference...): nothing of it was written. */
  | { status: 'refused'; error: { kind: ErrorKind; message: string } }
  /** Its deadline passed before it could be decided: it was not, and never will be, committed. */
  | { status: 'expired' };

/** Intents travel as exact JSON (amounts are big integers). */
export const encodeIntent = (intent: Intent): string => stringifyJson(intent);

export function decodeIntent(text: string): Intent {
  const value = parseJson(text) as Record<string, unknown>;
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
    ledger: value.ledger,
    operation: value.operation as LedgerOperation,
    deadline: Number(value.deadline),
  };
}

export const encodeResult = (result: IntentResult): string => stringifyJson(result);
export const decodeResult = (text: string): IntentResult => parseJson(text) as IntentResult;
