/**
 * Pending (two-phase) transfers (docs/api.md §3.6) through HTTP on DynamoDB Local, with the embedded group commit:
 * a hold lowers the available balance (and the overdraft rule reads it), partial and final posts, voids, the
 * balances route, list and read, the errors in the contract's shape, a ledger without the feature refused naming it,
 * an export replayed into a new ledger with every hash equal, the events, and concurrent posts of one hold posting
 * exactly its amount.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { operationRequest } from '../../../lib/ledger/commands/operations.js';
import type { LedgerRecord } from '../../../lib/ledger/domain/change.js';
import { resolveFeatures } from '../../../lib/ledger/domain/features.js';
import { earliestHoldDueMs } from '../../../lib/ledger/store/due-holds.js';
import { PendingReads } from '../../../lib/ledger/store/pending-reads.js';
import { LedgerWriter } from '../../../lib/ledger/store/writer.js';
import { sweepExpiredHolds } from '../../../lib/ledger/write/sweep-holds.js';
import { ledgerClient, ledgerEventsOf } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let app: Awaited<ReturnType<typeof ledgerClient>>['app'];
let token: string;
let runtime: Awaited<ReturnType<typeof testTables>>['runtime'];
let counter = 0;

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call, app, token } = await ledgerClient(runtime, { embedded: {} }));
});

async function fresh(features: Record<string, string> = { PENDING_TRANSFERS: 'ON' }) {
  const name = `pending${++counter}-${Date.now() % 100000}`;
  expect((await call('POST', `/v2/${name}`, { features })).status).toBe(204);
  return name;
}

const usd = (source: string, destination: string, amount: number) => ({
  source,
  destination,
  amount,
  asset: 'USD',
});

async function fund(ledger: string, account: string, amount: number) {
  const res = await call('POST', `/v2/${ledger}/transactions`, {
    postings: [usd('world', account, amount)],
  });
  expect(res.status, res.text).toBe(200);
}

const balances = async (ledger: string, account: string) =>
  (await call('GET', `/v2/${ledger}/accounts/${account}/balances`)).body.data;

describe('pending transfers over HTTP', () => {
  it('hold, partial post, final post: balances posted / pending / available at each step', async () => {
    const name = await fresh();
    await fund(name, 'card:1', 100);
    const created = await call('POST', `/v2/${name}/pending`, {
      postings: [usd('card:1', 'merchant:1', 60), usd('card:1', 'fees', 2)],
      metadata: { auth: 'A1' },
      timeout: 3600,
    });
    expect(created.status, created.text).toBe(201);
    const hold = created.body.data;
    expect(hold).toEqual({
      id: 2n,
      postings: [
        { ...usd('card:1', 'merchant:1', 60), amount: 60n, posted: 0n, voided: 0n, remaining: 60n },
        { ...usd('card:1', 'fees', 2), amount: 2n, posted: 0n, voided: 0n, remaining: 2n },
      ],
      metadata: { auth: 'A1' },
      insertedAt: expect.stringMatching(/^\d{4}-/),
      expiresAt: expect.stringMatching(/^\d{4}-/),
      status: 'PENDING',
      transactions: [],
    });
    expect(await balances(name, 'card:1')).toEqual({
      USD: { posted: 100n, pendingIn: 0n, pendingOut: 62n, available: 38n },
    });
    expect(await balances(name, 'merchant:1')).toEqual({
      USD: { posted: 0n, pendingIn: 60n, pendingOut: 0n, available: 0n },
    });
    const spend = await call('POST', `/v2/${name}/transactions`, {
      postings: [usd('card:1', 'elsewhere', 39)],
    });
    expect([spend.status, spend.body.errorCode]).toEqual([400, 'INSUFFICIENT_FUND']);

    const partial = await call('POST', `/v2/${name}/pending/2/post`, { amounts: [25, 2] });
    expect(partial.status, partial.text).toBe(200);
    expect(partial.body.data.transaction).toMatchObject({
      id: 2n,
      postings: [
        { ...usd('card:1', 'merchant:1', 25), amount: 25n },
        { ...usd('card:1', 'fees', 2), amount: 2n },
      ],
    });
    expect(partial.body.data.pending).toMatchObject({ status: 'PENDING', transactions: [2n] });
    expect(await balances(name, 'card:1')).toEqual({
      USD: { posted: 73n, pendingIn: 0n, pendingOut: 35n, available: 38n },
    });
    const final = await call('POST', `/v2/${name}/pending/2/post`, {
      amounts: [30, 0],
      final: true,
      metadata: { capture: 'last' },
    });
    expect(final.status, final.text).toBe(200);
    expect(final.body.data.pending).toMatchObject({
      status: 'POSTED',
      postings: [
        { posted: 55n, voided: 5n, remaining: 0n },
        { posted: 2n, voided: 0n, remaining: 0n },
      ],
      transactions: [2n, 3n],
    });
    expect(await balances(name, 'card:1')).toEqual({
      USD: { posted: 43n, pendingIn: 0n, pendingOut: 0n, available: 43n },
    });
    // The post is an ordinary transaction for the reference's readers.
    const tx = await call('GET', `/v2/${name}/transactions/3`);
    expect(tx.body.data).toMatchObject({ metadata: { capture: 'last' }, reverted: false });
    const again = await call('POST', `/v2/${name}/pending/2/post`, {});
    expect([again.status, again.body.errorCode]).toEqual([409, 'PENDING_RESOLVED']);
    const logs = (await call('GET', `/v2/${name}/logs?pageSize=10`)).body.cursor.data;
    // Newest first: the fund, the hold, its two posts.
    expect(logs.map((l: { type: string }) => l.type)).toEqual([
      'NEW_TRANSACTION',
      'NEW_TRANSACTION',
      'CREATED_PENDING',
      'NEW_TRANSACTION',
    ]);
    const kinds = (await ledgerEventsOf(runtime, name)).map((e) => e.type);
    expect(kinds).toEqual([
      'ledger.committed_transactions',
      'ledger.created_pending',
      'ledger.committed_transactions',
      'ledger.posted_pending',
      'ledger.committed_transactions',
      'ledger.posted_pending',
      'ledger.voided_pending',
    ]);
  });

  it('void, read, list by status; bad input and unknown holds in the contract shape', async () => {
    const name = await fresh();
    await fund(name, 'w:1', 50);
    const a = await call('POST', `/v2/${name}/pending`, { postings: [usd('w:1', 's', 10)] });
    const b = await call('POST', `/v2/${name}/pending`, { postings: [usd('w:1', 's', 20)] });
    expect([a.status, b.status]).toEqual([201, 201]);
    const voided = await call('POST', `/v2/${name}/pending/${a.body.data.id}/void`);
    expect(voided.status, voided.text).toBe(200);
    expect(voided.body.data).toMatchObject({
      status: 'VOIDED',
      postings: [{ voided: 10n, remaining: 0n }],
    });
    expect((await call('GET', `/v2/${name}/pending/${b.body.data.id}`)).body.data).toEqual(
      b.body.data,
    );
    const all = (await call('GET', `/v2/${name}/pending`)).body.cursor;
    expect(all.data.map((h: { id: bigint }) => h.id)).toEqual([b.body.data.id, a.body.data.id]);
    const open = (await call('GET', `/v2/${name}/pending?status=PENDING`)).body.cursor;
    expect(open.data.map((h: { id: bigint }) => h.id)).toEqual([b.body.data.id]);
    const paged = (await call('GET', `/v2/${name}/pending?pageSize=1`)).body.cursor;
    expect([paged.hasMore, paged.data.length]).toEqual([true, 1]);
    const next = (await call('GET', `/v2/${name}/pending?cursor=${paged.next}`)).body.cursor;
    expect(next.data.map((h: { id: bigint }) => h.id)).toEqual([a.body.data.id]);

    const refusals = [
      await call('POST', `/v2/${name}/pending`, { postings: [usd('w:1', 's', 31)] }),
      await call('POST', `/v2/${name}/pending`, { postings: [] }),
      await call('POST', `/v2/${name}/pending`, { postings: [usd('w:1', 's', 1)], timeout: 0 }),
      await call('POST', `/v2/${name}/pending/${b.body.data.id}/post`, { amounts: [21] }),
      await call('POST', `/v2/${name}/pending/${b.body.data.id}/post`, { amounts: [1, 1] }),
      await call('POST', `/v2/${name}/pending/${a.body.data.id}/void`),
      await call('POST', `/v2/${name}/pending/999/post`, {}),
      await call('GET', `/v2/${name}/pending?status=OPEN`),
    ];
    expect(refusals.map((r) => [r.status, r.body.errorCode])).toEqual([
      [400, 'INSUFFICIENT_FUND'],
      [400, 'VALIDATION'],
      [400, 'VALIDATION'],
      [400, 'VALIDATION'],
      [400, 'VALIDATION'],
      [409, 'PENDING_RESOLVED'],
      [404, 'NOT_FOUND'],
      [400, 'VALIDATION'],
    ]);
    expect(await balances(name, 'w:1')).toEqual({
      USD: { posted: 50n, pendingIn: 0n, pendingOut: 20n, available: 30n },
    });
  });

  it('a ledger without PENDING_TRANSFERS refuses holds naming the feature; its balances have nothing held', async () => {
    const name = await fresh({});
    await fund(name, 'u', 5);
    const refused = await call('POST', `/v2/${name}/pending`, { postings: [usd('u', 'v', 1)] });
    expect([refused.status, refused.body.errorCode, refused.body.errorMessage]).toEqual([
      400,
      'VALIDATION',
      'missing feature "PENDING_TRANSFERS"',
    ]);
    expect((await call('GET', `/v2/${name}/pending`)).status).toBe(400);
    expect(await balances(name, 'u')).toEqual({
      USD: { posted: 5n, pendingIn: 0n, pendingOut: 0n, available: 5n },
    });
  });

  it('an export with holds, posts and voids replays into a new ledger with every entry and hash equal', async () => {
    const source = await fresh();
    await fund(source, 'c', 100);
    await call('POST', `/v2/${source}/pending`, { postings: [usd('c', 'm', 40)], timeout: 600 });
    await call('POST', `/v2/${source}/pending/2/post`, { amounts: [15] });
    await call('POST', `/v2/${source}/pending/2/post`, { amounts: [5], final: true });
    await call('POST', `/v2/${source}/pending`, { postings: [usd('c', 'm', 7)] });
    expect((await call('POST', `/v2/${source}/pending/5/void`)).status).toBe(200);
    const exported = await app.request(`/api/ledger/v2/${source}/logs/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(exported.status).toBe(200);
    const target = await fresh();
    const imported = await call('POST', `/v2/${target}/logs/import`, await exported.text(), {
      'content-type': 'application/octet-stream',
    });
    expect([imported.status, imported.text]).toEqual([204, '']);
    const logs = async (ledger: string) =>
      (await call('GET', `/v2/${ledger}/logs?pageSize=20`)).body.cursor.data;
    const sourceLogs = await logs(source);
    expect(sourceLogs).toHaveLength(6);
    expect(await logs(target)).toEqual(sourceLogs);
    expect((await call('GET', `/v2/${target}/pending/2`)).body.data).toEqual(
      (await call('GET', `/v2/${source}/pending/2`)).body.data,
    );
    expect(await balances(target, 'c')).toEqual({
      USD: { posted: 80n, pendingIn: 0n, pendingOut: 0n, available: 80n },
    });
  });

  it('30 concurrent posts of 10 on a hold of 200 (group commit): exactly 200 posted, the rest PENDING_RESOLVED', async () => {
    const name = await fresh();
    await fund(name, 'payer', 250);
    const hold = await call('POST', `/v2/${name}/pending`, {
      postings: [usd('payer', 'payee', 200)],
    });
    const id = hold.body.data.id;
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        call('POST', `/v2/${name}/pending/${id}/post`, { amounts: [10] }),
      ),
    );
    const codes = answers.map((r) => (r.status === 200 ? 'ok' : r.body.errorCode));
    expect(codes.filter((c) => c === 'ok')).toHaveLength(20);
    expect(codes.filter((c) => c !== 'ok')).toEqual(Array(10).fill('PENDING_RESOLVED'));
    expect(await balances(name, 'payee')).toEqual({
      USD: { posted: 200n, pendingIn: 0n, pendingOut: 0n, available: 200n },
    });
    expect(await balances(name, 'payer')).toEqual({
      USD: { posted: 50n, pendingIn: 0n, pendingOut: 0n, available: 50n },
    });
    const after = (await call('GET', `/v2/${name}/pending/${id}`)).body.data;
    expect([after.status, after.transactions.length]).toEqual(['POSTED', 20]);
  });

  it('the sweeper releases due holds only, as EXPIRED entries; a resolved one is skipped, never raced', async () => {
    const name = await fresh();
    await fund(name, 'card', 100);
    const due = await call('POST', `/v2/${name}/pending`, {
      postings: [usd('card', 'shop', 30)],
      timeout: 60,
    });
    const later = await call('POST', `/v2/${name}/pending`, {
      postings: [usd('card', 'shop', 20)],
      timeout: 3600,
    });
    const posted = await call('POST', `/v2/${name}/pending`, {
      postings: [usd('card', 'shop', 10)],
      timeout: 60,
    });
    expect((await call('POST', `/v2/${name}/pending/${posted.body.data.id}/post`, {})).status).toBe(
      200,
    );
    const ledger: LedgerRecord = {
      environment: 'default',
      id: 0,
      name,
      bucket: '_default',
      metadata: {},
      features: resolveFeatures({ PENDING_TRANSFERS: 'ON' }),
      addedAt: '',
    };
    const table = runtime.config.tables.ledger;
    // The sweeper's clock a minute and a second on: the first hold is due, the second is not.
    const now = () => Date.now() + 61_000;
    const writer = new LedgerWriter({ doc: runtime.doc, tableFor: () => table, now });
    const reads = new PendingReads(runtime.doc, () => table);
    const parts = {
      now,
      due: reads.due.bind(reads),
      commands: {
        execute: async (l: LedgerRecord, op: Parameters<typeof operationRequest>[1]) => {
          const outcome = await writer.write(await operationRequest(l, op, async () => undefined));
          return outcome.kind === 'committed'
            ? { kind: 'committed' as const, result: outcome.result, logId: outcome.log.id }
            : outcome;
        },
      },
    };
    // The local timer sleeps until the index's earliest expiry: the due hold's, then a later one's.
    const dueAtMs = Date.parse(due.body.data.expiresAt);
    expect(await earliestHoldDueMs(runtime.doc, table)).toBe(dueAtMs);
    expect(await sweepExpiredHolds(parts, ledger)).toEqual([Number(due.body.data.id)]);
    expect(await sweepExpiredHolds(parts, ledger)).toEqual([]);
    expect(await earliestHoldDueMs(runtime.doc, table)).toBeGreaterThan(dueAtMs);
    const statuses = await Promise.all(
      [due, later, posted].map(
        async (h) => (await call('GET', `/v2/${name}/pending/${h.body.data.id}`)).body.data.status,
      ),
    );
    expect(statuses).toEqual(['EXPIRED', 'PENDING', 'POSTED']);
    expect(await balances(name, 'card')).toEqual({
      USD: { posted: 90n, pendingIn: 0n, pendingOut: 20n, available: 70n },
    });
    const newest = (await call('GET', `/v2/${name}/logs?pageSize=1`)).body.cursor.data[0];
    expect([newest.type, newest.data.reason]).toEqual(['VOIDED_PENDING', 'EXPIRED']);
  });
  it('expect on a hold: checked before it is created and after a post; a failure writes nothing', async () => {
    const name = await fresh();
    await fund(name, 'card:2', 100);
    const logCount = async () =>
      (await call('GET', `/v2/${name}/logs?pageSize=100`)).body.cursor.data.length;
    const before = await logCount();
    const refused = await call('POST', `/v2/${name}/pending`, {
      postings: [usd('card:2', 'shop', 30)],
      expect: [
        { account: 'card:2', asset: 'USD', balance: { $eq: 100 } },
        { account: 'other', asset: 'USD', balance: { $gt: 0 } },
      ],
    });
    expect([refused.status, refused.body.errorCode]).toEqual([409, 'PRECONDITION_FAILED']);
    expect(refused.body.errorMessage).toBe(
      'expect[1]: other USD balance is 0 before the write, expected $gt 0',
    );
    expect(await logCount()).toBe(before);
    expect(await balances(name, 'card:2')).toEqual({
      USD: { posted: 100n, pendingIn: 0n, pendingOut: 0n, available: 100n },
    });

    const held = await call('POST', `/v2/${name}/pending`, {
      postings: [usd('card:2', 'shop', 30)],
      expect: [{ account: 'card:2', asset: 'USD', balance: { $eq: 100 }, at: 'after' }],
    });
    expect(held.status, held.text).toBe(201);
    const id = held.body.data.id;

    const late = await call('POST', `/v2/${name}/pending/${id}/post`, {
      amounts: [10],
      expect: [{ account: 'shop', asset: 'USD', at: 'after', balance: { $gte: 20 } }],
    });
    expect([late.status, late.body.errorCode]).toEqual([409, 'PRECONDITION_FAILED']);
    expect(late.body.errorMessage).toBe(
      'expect[0]: shop USD balance is 10 after the write, expected $gte 20',
    );
    expect((await call('GET', `/v2/${name}/pending/${id}`)).body.data.postings[0]).toMatchObject({
      posted: 0n,
      remaining: 30n,
    });
    const posted = await call('POST', `/v2/${name}/pending/${id}/post`, {
      amounts: [20],
      expect: [
        { account: 'shop', asset: 'USD', at: 'after', balance: { $eq: 20 } },
        { account: 'card:2', asset: 'USD', balance: { $eq: 100 } },
      ],
    });
    expect(posted.status, posted.text).toBe(200);
    expect(await balances(name, 'card:2')).toEqual({
      USD: { posted: 80n, pendingIn: 0n, pendingOut: 10n, available: 70n },
    });
  });
  it('a monitor on the available balance: a hold crosses it, its release crosses back; posted monitors stay quiet', async () => {
    const name = await fresh();
    await fund(name, 'card:3', 100);
    const watch = async (condition: Record<string, unknown>) => {
      const res = await call('POST', `/v2/${name}/monitors`, {
        account: 'card:*',
        asset: 'USD',
        condition,
      });
      expect(res.status, res.text).toBe(201);
      // Amounts are answered exact (bigint here).
      expect(res.body.data.condition).toEqual(
        'amount' in condition
          ? { ...condition, amount: BigInt(condition.amount as number) }
          : condition,
      );
      return res.body.data.id as string;
    };
    const low = await watch({ type: 'below', amount: 50, field: 'available' });
    const back = await watch({ type: 'above', amount: 60, field: 'available' });
    const posted = await watch({ type: 'below', amount: 50 });
    const bad = await call('POST', `/v2/${name}/monitors`, {
      account: 'card:*',
      asset: 'USD',
      condition: { type: 'negative', field: 'pending' },
    });
    expect([bad.status, bad.body.errorCode]).toEqual([400, 'VALIDATION']);

    const hold = await call('POST', `/v2/${name}/pending`, {
      postings: [usd('card:3', 'shop', 70)],
    });
    expect(hold.status).toBe(201);
    expect((await call('POST', `/v2/${name}/pending/${hold.body.data.id}/void`)).status).toBe(200);
    const crossings = (await ledgerEventsOf(runtime, name))
      .filter((e) => e.type === 'ledger.balance_monitor_triggered')
      .map((e) => {
        const p = (e.envelope as { payload: Record<string, unknown> }).payload;
        return [p.monitor, p.account, p.before, p.after];
      });
    expect(crossings).toEqual([
      [low, 'card:3', 100n, 30n],
      [back, 'card:3', 30n, 100n],
    ]);
    expect(crossings.some(([m]) => m === posted)).toBe(false);
  });
});
