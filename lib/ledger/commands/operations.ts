import { ValidationError } from '../../errors/index.js';
import type { LedgerRecord, WriteRequest } from '../domain/change.js';
import type { Transaction } from '../domain/transaction.js';
import {
  type CreateTransactionInput,
  type CreateTransactionOptions,
  createTransactionWrite,
} from './create-transaction.js';
import { type MetadataChange, type MetadataTarget, metadataWrite } from './metadata.js';
import type {
  CreatePendingInput,
  HoldTarget,
  PendingWriteOptions,
  PostPendingInput,
} from './pending.js';
import {
  type RevertBody,
  type RevertOptions,
  revertTransactionWrite,
} from './revert-transaction.js';
import { planScript, type ScriptStateReads } from './script-transaction.js';

/**
 * A ledger write as plain data: what a route asks for, whichever writer carries it out — committed directly by
 * the request, or relayed to the ledger's sequenced writer (which rebuilds the same request from it).
 */
export type LedgerOperation =
  | { kind: 'create'; input: CreateTransactionInput; options: CreateTransactionOptions }
  | {
      kind: 'revert';
      id: number;
      body: RevertBody;
      options: RevertOptions;
    }
  | {
      kind: 'metadata';
      target: MetadataTarget;
      change: MetadataChange;
      options: { dryRun: boolean; idempotencyKey?: string };
    }
  /** Pending transfers (PENDING_TRANSFERS): a post or void carries the hold's postings, which plan its reads. */
  | { kind: 'create-pending'; input: CreatePendingInput; options: PendingWriteOptions }
  | {
      kind: 'post-pending';
      hold: HoldTarget;
      input: PostPendingInput;
      options: PendingWriteOptions;
    }
  | {
      kind: 'void-pending';
      hold: HoldTarget;
      reason: 'VOID' | 'EXPIRED';
      options: PendingWriteOptions;
    };

/** The write request of an operation; a revert reads its original first (the reversed postings are its reads). */
export async function operationRequest(
  ledger: LedgerRecord,
  operation: LedgerOperation,
  readTransaction: (id: number) => Promise<Transaction | undefined>,
  scriptState?: ScriptStateReads,
): Promise<WriteRequest<unknown>> {
  switch (operation.kind) {
    case 'create': {
      const { input } = operation;
      if (input.script === undefined)
        return createTransactionWrite(ledger, input, operation.options);
      if ((input.postings?.length ?? 0) > 0)
        throw new ValidationError('body: send postings or a script, not both');
      if (!scriptState)
        throw new ValidationError('body.script: scripts are not served on this path');
      const { plain } = input.script;
      // A template is resolved into its Numscript by the route, under the schema version the write names.
      if (plain === undefined) throw new ValidationError('body.script.plain: required');
      const plan = await planScript(
        { ...input.script, plain },
        scriptState,
        Object.keys(input.accountMetadata ?? {}),
      );
      return createTransactionWrite(ledger, input, operation.options, plan);
    }
    case 'revert':
      return revertTransactionWrite(
        ledger,
        operation.id,
        await readTransaction(operation.id),
        operation.body,
        operation.options,
      );
    case 'metadata':
      return metadataWrite(ledger, operation.target, operation.change, operation.options);
    // Loaded at a ledger's first pending write: no cold start of a ledger without holds carries them.
    case 'create-pending':
      return (await import('./pending.js')).createPendingWrite(
        ledger,
        operation.input,
        operation.options,
      );
    case 'post-pending':
      return (await import('./pending.js')).postPendingWrite(
        ledger,
        operation.hold,
        operation.input,
        operation.options,
      );
    case 'void-pending':
      return (await import('./pending.js')).voidPendingWrite(
        ledger,
        operation.hold,
        operation.reason,
        operation.options,
      );
  }
}

/** Whether an operation writes nothing (a dry run): it is decided where it is asked, never relayed. */
export const isDryRun = (operation: LedgerOperation) => operation.options.dryRun;
