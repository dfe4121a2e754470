/**
 * Pending transfers through the write engine on the in-memory port: a hold's items (the hold, the held volumes),
 * the available check on every write of a ledger with PENDING_TRANSFERS, partial and final posts as transactions,
 * voids and expiries, the log entries (hashed into the chain) and the events read back from the log items — on the
 * direct path and in a group commit, where racing posts of one hold never post more than it holds.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  InsufficientFundError,
  NotFoundError,
  PendingExpiredError,
  PendingResolvedError,
  ValidationError,
} from '../../errors/index.js';
import { parseJson } from '../../json/bigint-json.js';
import { type LedgerOperation, operationRequest } from '../commands/operations.js';
import type { HoldTarget } from '../commands/pending.js';
import type { LedgerRecord } from '../domain/change.js';
import { verifyChain } from '../domain/log-chain.js';
import type { Posting } from '../domain/postings.js';
import { LedgerSequencer } from '../write/sequencer.js';
import { createOne, testLedger } from '../write/test-support.js';
import { ledgerKeys } from './keys.js';
import { ledgerEventsOfImage } from './log-events.js';
import { MemoryLedgerTable } from './memory-ledger-table.js';
import { heldOfItem, parseStoredPending } from './pending-items.js';
import { LedgerWriter } from './writer.js';

const withHolds = (name: string): LedgerRecord => {
  const base = testLedger(name);
  return { ...base, features: { ...base.features, PENDING_TRANSFERS: 'ON' } };
};
const ledger = withHolds('holds');

const T0 = Date.parse('2026-11-28T10:00:00Z');

function writerAt(table: MemoryLedgerTable, clock: { ms: number }) {
  return new LedgerWriter({
    tableFor: () => 'memory',
    tableOf: () => table,
    sleep: async () => {},
    now: () => clock.ms,
  });
}

const usd = (source: string, destination: string, amount: bigint): Posting => ({
  source,
  destination,
  amount,
  asset: 'USD',
});

const hold = (postings: Posting[], extra: { timeout?: number } = {}): LedgerOperation => ({
  kind: 'create-pending',
  input: { postings, ...extra },
  options: { dryRun: false },
});
const post = (
  target: HoldTarget,
  input: { amounts?: bigint[]; final?: boolean } = {},
): LedgerOperation => ({ kind: 'post-pending', hold: target, input, options: { dryRun: false } });
const release = (target: HoldTarget, reason: 'VOID' | 'EXPIRED' = 'VOID'): LedgerOperation => ({
  kind: 'void-pending',
  hold: target,
  reason,
  options: { dryRun: false },
});

const requestOf = (operation: LedgerOperation, on: LedgerRecord = ledger) =>
  operationRequest(on, operation, async () => undefined);

const balance = (table: MemoryLedgerTable, address: string) => {
  const item = table.get(ledgerKeys.volume(ledger, address, 'USD'));
  return item ? BigInt(item.input as bigint) - BigInt(item.output as bigint) : 0n;
};
const heldOf = (table: MemoryLedgerTable, address: string) => {
  const item = table.get(ledgerKeys.held(ledger, address, 'USD'));
  return item ? heldOfItem(item) : undefined;
};
const stored = (table: MemoryLedgerTable, id: number) =>
  parseStoredPending(String(table.get(ledgerKeys.pending(ledger, id))!.body));

function events(
  table: MemoryLedgerTable,
): Array<{ type: string; payload: Record<string, unknown> }> {
  const logPk = ledgerKeys.log(ledger, 1).pk;
  return [...table.items.values()]
    .filter((item) => item.pk === logPk)
    .sort((a, b) => String(a.sk).localeCompare(String(b.sk)))
    .flatMap((item) =>
      ledgerEventsOfImage(item).map(
        (e) => parseJson(e.body) as { type: string; payload: Record<string, unknown> },
      ),
    );
}

describe('pending transfers on the write engine (direct writer)', () => {
  it('a hold lowers the available balance, not the posted one; a payment may not spend held money', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const writer = writerAt(table, { ms: T0 });
    await writer.write(await requestOf(createOne('world', 'alice', 100n)));
    const created = await writer.write(await requestOf(hold([usd('alice', 'shop', 70n)])));
    expect(created.kind === 'committed' && created.log.type).toBe('CREATED_PENDING');
    expect(created.kind === 'committed' && created.log.id).toBe(2);
    expect(balance(table, 'alice')).toBe(100n);
    expect(heldOf(table, 'alice')).toEqual({ pendingInput: 0n, pendingOutput: 70n });
    expect(heldOf(table, 'shop')).toEqual({ pendingInput: 70n, pendingOutput: 0n });
    expect(stored(table, 2)).toMatchObject({ id: 2, status: 'PENDING', transactions: [] });

    // 31 of the 30 still available: refused, nothing written; 30 passes.
    await expect(writer.write(await requestOf(createOne('alice', 'bob', 31n)))).rejects.toThrow(
      InsufficientFundError,
    );
    await expect(writer.write(await requestOf(hold([usd('alice', 'bob', 31n)])))).rejects.toThrow(
      InsufficientFundError,
    );
    await writer.write(await requestOf(createOne('alice', 'bob', 30n)));
    expect(balance(table, 'alice')).toBe(70n);
  });

  it('partial posts are transactions of the held money; a final post releases the rest; then resolved', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const writer = writerAt(table, { ms: T0 });
    await writer.write(await requestOf(createOne('world', 'alice', 100n)));
    await writer.write(
      await requestOf(hold([usd('alice', 'shop', 60n), usd('alice', 'fees', 4n)])),
    );
    const target = { id: 2, postings: [usd('alice', 'shop', 60n), usd('alice', 'fees', 4n)] };
    const first = await writer.write(await requestOf(post(target, { amounts: [20n, 0n] })));
    expect(first.kind === 'committed' && first.log.type).toBe('NEW_TRANSACTION');
    expect(first.kind === 'committed' && first.result).toMatchObject({
      pending: {
        status: 'PENDING',
        postings: [{ posted: 20n, remaining: 40n }, { remaining: 4n }],
      },
      transaction: { id: 2, postings: [usd('alice', 'shop', 20n)] },
    });
    expect([balance(table, 'alice'), balance(table, 'shop')]).toEqual([80n, 20n]);
    expect(heldOf(table, 'alice')).toEqual({ pendingInput: 0n, pendingOutput: 44n });

    await expect(
      writer.write(await requestOf(post(target, { amounts: [41n, 0n] }))),
    ).rejects.toThrow(ValidationError);
    const last = await writer.write(
      await requestOf(post(target, { amounts: [30n, 4n], final: true })),
    );
    expect(last.kind === 'committed' && last.result).toMatchObject({
      pending: {
        status: 'POSTED',
        transactions: [2, 3],
        postings: [
          { posted: 50n, voided: 10n, remaining: 0n },
          { posted: 4n, voided: 0n, remaining: 0n },
        ],
      },
    });
    expect([balance(table, 'alice'), balance(table, 'shop'), balance(table, 'fees')]).toEqual([
      46n,
      50n,
      4n,
    ]);
    expect(heldOf(table, 'alice')).toEqual({ pendingInput: 0n, pendingOutput: 0n });
    await expect(writer.write(await requestOf(post(target)))).rejects.toThrow(PendingResolvedError);
    await expect(writer.write(await requestOf(release(target)))).rejects.toThrow(
      PendingResolvedError,
    );
    // The final post released 10: alice may spend all she has.
    await writer.write(await requestOf(createOne('alice', 'bob', 46n)));

    const kinds = events(table).map((e) => e.type);
    expect(kinds).toEqual([
      'ledger.committed_transactions',
      'ledger.created_pending',
      'ledger.committed_transactions',
      'ledger.posted_pending',
      'ledger.committed_transactions',
      'ledger.posted_pending',
      'ledger.voided_pending',
      'ledger.committed_transactions',
    ]);
    const finalRelease = events(table)[6]!.payload;
    expect(finalRelease).toMatchObject({ reason: 'FINAL', released: [10n, 0n] });
    const entries = await table.readLogRange(1, 5);
    expect(entries.map((e) => e.log.type)).toEqual([
      'NEW_TRANSACTION',
      'CREATED_PENDING',
      'NEW_TRANSACTION',
      'NEW_TRANSACTION',
      'NEW_TRANSACTION',
    ]);
    expect(entries[2]!.log.data.post).toEqual({
      amounts: [20n, 0n],
      final: false,
      released: [0n, 0n],
    });
    expect(verifyChain(entries.map((e) => e.log)).ok).toBe(true);
  });

  it('a void releases what remains; an expiry only lands when due, and a post at expiry is refused', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const clock = { ms: T0 };
    const writer = writerAt(table, clock);
    await writer.write(await requestOf(createOne('world', 'alice', 100n)));
    await writer.write(await requestOf(hold([usd('alice', 'shop', 30n)])));
    await writer.write(await requestOf(hold([usd('alice', 'shop', 50n)], { timeout: 60 })));
    const voided = await writer.write(
      await requestOf(release({ id: 2, postings: [usd('alice', 'shop', 30n)] })),
    );
    expect(voided.kind === 'committed' && voided.log).toMatchObject({
      type: 'VOIDED_PENDING',
      data: { reason: 'VOID', released: [30n] },
    });
    expect(heldOf(table, 'alice')).toEqual({ pendingInput: 0n, pendingOutput: 50n });
    const due = { id: 3, postings: [usd('alice', 'shop', 50n)] };
    expect(table.get(ledgerKeys.pending(ledger, 3))!.gsi1pk).toBe(ledgerKeys.pendingDue(ledger));
    await expect(writer.write(await requestOf(release(due, 'EXPIRED')))).rejects.toThrow(
      PendingResolvedError,
    );
    clock.ms = T0 + 60_000;
    await expect(writer.write(await requestOf(post(due)))).rejects.toThrow(PendingExpiredError);
    const expired = await writer.write(await requestOf(release(due, 'EXPIRED')));
    expect(expired.kind === 'committed' && expired.result).toMatchObject({ status: 'EXPIRED' });
    expect(table.get(ledgerKeys.pending(ledger, 3))!.gsi1pk).toBeUndefined();
    expect(heldOf(table, 'alice')).toEqual({ pendingInput: 0n, pendingOutput: 0n });
    expect(
      events(table)
        .slice(-2)
        .map((e) => [e.type, e.payload.reason]),
    ).toEqual([
      ['ledger.voided_pending', 'VOID'],
      ['ledger.voided_pending', 'EXPIRED'],
    ]);
    await expect(
      writer.write(await requestOf(post({ id: 9, postings: [usd('alice', 'shop', 1n)] }))),
    ).rejects.toThrow(NotFoundError);
  });

  it('a ledger without the feature refuses holds, naming it, and reads no held items', async () => {
    const plain = testLedger('plain');
    await expect(requestOf(hold([usd('world', 'a', 1n)]), plain)).rejects.toThrow(
      'missing feature "PENDING_TRANSFERS"',
    );
    const table = MemoryLedgerTable.withHead(plain);
    const writer = writerAt(table, { ms: T0 });
    await writer.write(await requestOf(createOne('world', 'a', 5n), plain));
    const heldPk = ledgerKeys.heldPartition(plain, 'a');
    expect([...table.items.values()].some((i) => i.pk === heldPk)).toBe(false);
  });
});

describe('pending transfers in a group commit', () => {
  it('40 racing posts of 10 on a hold of 250, across batches: exactly 250 posted, never more', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const clock = { ms: T0 };
    const writer = writerAt(table, clock);
    await writer.write(await requestOf(createOne('world', 'alice', 300n)));
    await writer.write(await requestOf(hold([usd('alice', 'shop', 250n)])));
    const target = { id: 2, postings: [usd('alice', 'shop', 250n)] };
    const sequencer = new LedgerSequencer({
      items: table,
      table: 'memory',
      ledger,
      owner: randomUUID(),
      inProcess: true,
    });
    const intents = Array.from({ length: 40 }, () => ({
      reqId: randomUUID(),
      environment: ledger.environment,
      ledger: ledger.name,
      operation: post(target, { amounts: [10n] }),
      deadline: Date.now() + 60_000,
    }));
    const statuses: string[] = [];
    for (let i = 0; i < intents.length; i += 8) {
      const batch = intents.slice(i, i + 8);
      const { results } = await sequencer.process(batch);
      for (const intent of batch) {
        const result = results.get(intent.reqId)!;
        statuses.push(result.status === 'refused' ? result.error.kind : result.status);
      }
    }
    expect(statuses.filter((s) => s === 'committed')).toHaveLength(25);
    expect(statuses.slice(25)).toEqual(Array(15).fill('pending_resolved'));
    expect([balance(table, 'alice'), balance(table, 'shop')]).toEqual([50n, 250n]);
    expect(heldOf(table, 'alice')).toEqual({ pendingInput: 0n, pendingOutput: 0n });
    expect(stored(table, 2)).toMatchObject({ status: 'POSTED' });
    expect(stored(table, 2).transactions).toHaveLength(25);
  });
});
