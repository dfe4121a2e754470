/**
 * The group-commit protocol on the in-memory port (store/memory-ledger-table.ts): the same sequencer, decisions,
 * items and conditions as on DynamoDB, without a database — gapless ids, refusals that leave nothing, a writer that
 * lost its HEAD deciding again, deferral past one transaction's 100 actions, ordered groups, expiry, and what each
 * transport writes after its commit.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../json/bigint-json.js';
import type { LedgerOperation } from '../commands/operations.js';
import { verifyChain } from '../domain/log-chain.js';
import { headFromItem } from '../store/head.js';
import { ledgerKeys } from '../store/keys.js';
import { MemoryLedgerTable } from '../store/memory-ledger-table.js';
import type { Intent, IntentResult } from './intent.js';
import { LedgerSequencer } from './sequencer.js';
import { createOne, testLedger } from './test-support.js';

const ledger = testLedger('mem');
const create = createOne;

const intent = (operation: LedgerOperation, extra: Partial<Intent> = {}): Intent => ({
  reqId: randomUUID(),
  environment: ledger.environment,
  ledger: ledger.name,
  operation,
  deadline: Date.now() + 60_000,
  ...extra,
});

function sequencer(
  table: MemoryLedgerTable,
  options: { inProcess?: boolean; owner?: string } = {},
) {
  return new LedgerSequencer({
    items: table,
    table: 'memory',
    ledger,
    owner: options.owner ?? randomUUID(),
    ...(options.inProcess ? { inProcess: true } : {}),
  });
}

const head = (table: MemoryLedgerTable) => headFromItem(table.get(ledgerKeys.head(ledger))!);
const committedId = (result: IntentResult | undefined) =>
  result?.status === 'committed'
    ? Number((result.outcomes[0]!.result as { id: bigint }).id)
    : result?.status;

describe('group commit on the in-memory port', () => {
  it('commits a batch in one TransactWriteItems: gapless ids in order, one log page, the hash chain', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const batch = [1, 2, 3, 4, 5].map((n) => intent(create('world', `u:${n}`, BigInt(n))));
    const { results, deferred } = await sequencer(table, { inProcess: true }).process(batch);
    expect(deferred).toEqual([]);
    expect(batch.map((i) => committedId(results.get(i.reqId)))).toEqual([1, 2, 3, 4, 5]);
    expect(table.requests.TransactWriteItems).toBe(1);
    const entries = await table.readLogRange(1, 5);
    expect(entries.map((e) => e.log.id)).toEqual([1, 2, 3, 4, 5]);
    expect(verifyChain(entries.map((e) => e.log)).ok).toBe(true);
    expect([head(table).lastTxId, head(table).lastLogId, head(table).accounts]).toEqual([5, 5, 6]);
  });

  it('answers a refused request with its error and writes nothing of it; the others commit', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const batch = [
      intent(create('world', 'a', 10n)),
      intent(create('a', 'b', 11n)),
      intent(create('a', 'b', 10n)),
    ];
    const { results } = await sequencer(table, { inProcess: true }).process(batch);
    expect(batch.map((i) => committedId(results.get(i.reqId)))).toEqual([1, 'refused', 2]);
    expect(results.get(batch[1]!.reqId)).toMatchObject({
      status: 'refused',
      error: { kind: 'insufficient_fund' },
    });
    expect(Number(table.get(ledgerKeys.volume(ledger, 'b', 'USD'))!.input)).toBe(10);
  });

  it('a writer whose HEAD another writer moved reads it again and decides again: ids stay gapless', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const a = sequencer(table, { owner: 'a', inProcess: true });
    const b = sequencer(table, { owner: 'b', inProcess: true });
    const first = intent(create('world', 'x', 1n));
    const second = intent(create('world', 'x', 2n));
    const third = intent(create('world', 'x', 3n));
    expect(committedId((await a.process([first])).results.get(first.reqId))).toBe(1);
    expect(committedId((await b.process([second])).results.get(second.reqId))).toBe(2);
    // a's cached HEAD is stale: its commit fails on the version, it reloads and decides over b's commit.
    expect(committedId((await a.process([third])).results.get(third.reqId))).toBe(3);
    expect(Number(table.get(ledgerKeys.volume(ledger, 'x', 'USD'))!.input)).toBe(6);
    expect(table.requests.TransactWriteItems).toBe(4);
  });

  it('a writer that has seen the ledger since it was empty reads no account it never wrote; one that has not, reads', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const volumes = (accounts: string[]) =>
      accounts.map((a) => {
        const volume = table.get(ledgerKeys.volume(ledger, a, 'USD'));
        return volume && [Number(volume.input), Number(volume.output)];
      });
    const first = sequencer(table, { inProcess: true });
    await first.process([intent(create('world', 'u:1', 10n)), intent(create('world', 'u:2', 5n))]);
    const spends = [create('u:1', 'u:3', 5n), create('u:1', 'u:4', 5n), create('u:2', 'u:5', 6n)];
    const sent = spends.map((s) => intent(s));
    const { results } = await first.process(sent);
    expect(sent.map((i) => results.get(i.reqId)?.status)).toEqual([
      'committed',
      'committed',
      'refused',
    ]);
    expect(table.requests.BatchGetItem ?? 0).toBe(0);
    expect(volumes(['u:1', 'u:2', 'u:3', 'u:4', 'u:5'])).toEqual([
      [10, 10],
      [5, 0],
      [5, 0],
      [5, 0],
      undefined,
    ]);

    // A writer that starts on a ledger with history knows nothing of it: it reads what it decides over.
    await sequencer(table, { inProcess: true }).process([intent(create('u:3', 'u:6', 1n))]);
    expect(table.requests.BatchGetItem).toBe(1);
    expect(volumes(['u:3', 'u:6'])).toEqual([
      [5, 1],
      [1, 0],
    ]);
  });

  it('a writer that presumed an account absent, and lost HEAD to a writer that created it, decides again over it', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const a = sequencer(table, { owner: 'a', inProcess: true });
    await a.process([intent(create('world', 'x', 1n))]);
    await sequencer(table, { owner: 'b', inProcess: true }).process([
      intent(create('world', 'y', 7n)),
    ]);
    // `a` never wrote `y`: it presumes it absent, its commit fails on HEAD, it reads and decides again.
    const spend = intent(create('y', 'x', 7n));
    expect(committedId((await a.process([spend])).results.get(spend.reqId))).toBe(3);
    expect(Number(table.get(ledgerKeys.volume(ledger, 'y', 'USD'))!.output)).toBe(7);
    expect(Number(table.get(ledgerKeys.volume(ledger, 'x', 'USD'))!.input)).toBe(8);
  });

  it('never refuses over stale memory: a batch of refusals reads HEAD, and decides again after another commit', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const a = sequencer(table, { owner: 'a', inProcess: true });
    const early = intent(create('a', 'b', 5n));
    expect((await a.process([early])).results.get(early.reqId)?.status).toBe('refused');
    // Another writer funds `a`; this writer's memory still says `a` holds nothing.
    await sequencer(table, { owner: 'b', inProcess: true }).process([
      intent(create('world', 'a', 10n)),
    ]);
    const spend = intent(create('a', 'b', 5n));
    expect(committedId((await a.process([spend])).results.get(spend.reqId))).toBe(2);
  });

  it('defers what does not fit one transaction, in order, to the next batch', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const writer = sequencer(table, { inProcess: true });
    const batch = Array.from({ length: 60 }, (_, n) => intent(create('world', `new:${n}`, 1n)));
    const first = await writer.process(batch);
    expect(first.deferred.length).toBeGreaterThan(0);
    const decided = batch.length - first.deferred.length;
    expect(first.deferred).toEqual(batch.slice(decided));
    const results = new Map(first.results);
    let pending = first.deferred;
    let batches = 1;
    while (pending.length > 0) {
      const next = await writer.process(pending);
      // Each later batch also decides a prefix of what waits, and defers the rest in order.
      expect(next.deferred).toEqual(pending.slice(pending.length - next.deferred.length));
      for (const [reqId, result] of next.results) results.set(reqId, result);
      pending = next.deferred;
      batches++;
    }
    expect(batches).toBe(table.requests.TransactWriteItems);
    const ids = batch.map((i) => committedId(results.get(i.reqId)));
    expect(ids).toEqual(Array.from({ length: 60 }, (_, n) => n + 1));
  });

  it('skips the members of a group after a failed one, even across a retry, and never the failed one itself', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const writer = sequencer(table, { owner: 'w', inProcess: true });
    // Another writer commits first, so w's first attempt at the batch fails on HEAD and is decided again.
    await sequencer(table, { owner: 'other', inProcess: true }).process([
      intent(create('world', 'g', 5n)),
    ]);
    await writer.process([intent(create('world', 'g', 0n))]);
    await sequencer(table, { owner: 'other', inProcess: true }).process([
      intent(create('world', 'g', 0n)),
    ]);
    const group = 'bulk-1';
    const members = [
      intent(create('g', 'h', 2n), { group }),
      intent(create('g', 'h', 9n), { group }),
      intent(create('g', 'h', 1n), { group }),
      intent(create('world', 'h', 1n), { group }),
    ];
    const outsider = intent(create('g', 'h', 1n));
    const { results } = await writer.process([...members, outsider]);
    expect(members.map((m) => results.get(m.reqId)?.status)).toEqual([
      'committed',
      'refused',
      'skipped',
      'skipped',
    ]);
    expect(results.get(members[2]!.reqId)).toEqual({ status: 'skipped', after: members[1]!.reqId });
    expect(results.get(outsider.reqId)?.status).toBe('committed');
    expect(Number(table.get(ledgerKeys.volume(ledger, 'g', 'USD'))!.output)).toBe(3);
  });

  it('reads no idempotency record up front; a key used before fails one commit, then is answered as its replay', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const keyed = (amount: bigint, key: string): LedgerOperation => ({
      kind: 'create',
      input: { postings: [{ source: 'world', destination: 'k', amount, asset: 'USD' }] },
      options: { dryRun: false, force: false, idempotencyKey: key },
    });
    await sequencer(table, { owner: 'a', inProcess: true }).process([intent(keyed(5n, 'ik-1'))]);
    const b = sequencer(table, { owner: 'b', inProcess: true });
    // A fresh key and the used one in one batch: the first commit fails on the used key's record.
    const fresh = intent(keyed(2n, 'ik-2'));
    const again = intent(keyed(5n, 'ik-1'));
    const before = table.requests.TransactWriteItems;
    const { results } = await b.process([fresh, again]);
    expect(table.requests.TransactWriteItems! - before!).toBe(2);
    expect(results.get(again.reqId)).toMatchObject({
      status: 'committed',
      outcomes: [{ kind: 'replayed', logId: 1 }],
    });
    expect(committedId(results.get(fresh.reqId))).toBe(2);
    expect(Number(table.get(ledgerKeys.volume(ledger, 'k', 'USD'))!.input)).toBe(7);
    // Committed, the writer goes back to reading none: a batch of fresh keys is one commit and no read of them.
    const reads = table.requests.BatchGetItem ?? 0;
    await b.process([intent(keyed(1n, 'ik-3'))]);
    expect([table.requests.BatchGetItem ?? 0, head(table).lastTxId]).toEqual([reads, 3]);
  });

  it('answers an intent past its deadline expired, never deciding it', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const late = intent(create('world', 'z', 1n), { deadline: Date.now() + 100 });
    const { results } = await sequencer(table, { inProcess: true }).process([late]);
    expect(results.get(late.reqId)).toEqual({ status: 'expired' });
    expect(head(table).lastTxId).toBe(0);
    expect(table.requests.TransactWriteItems ?? 0).toBe(0);
  });

  it('in one process writes nothing after its commit; through the queue it writes the results and settles HEAD', async () => {
    const embedded = MemoryLedgerTable.withHead(ledger);
    const one = intent(create('world', 'p', 1n));
    await sequencer(embedded, { inProcess: true }).process([one]);
    expect(embedded.get(ledgerKeys.result(ledger, one.reqId))).toBeUndefined();
    expect(head(embedded).pendingResults).toBeUndefined();
    // A new ledger's writer reads nothing but HEAD (its lease): it has seen the ledger's whole life.
    expect(Object.keys(embedded.requests).sort()).toEqual(['TransactWriteItems', 'UpdateItem']);

    const relayed = MemoryLedgerTable.withHead(ledger);
    const two = intent(create('world', 'p', 1n));
    await sequencer(relayed).process([two]);
    const stored = relayed.get(ledgerKeys.result(ledger, two.reqId));
    expect(parseJson(String(stored!.result))).toMatchObject({ status: 'committed' });
    expect(relayed.get(ledgerKeys.transaction(ledger, 1))).toBeDefined();
    expect(head(relayed).pendingResults).toBeUndefined();
  });
});

describe('a commit that fails without saying whether it landed (one process)', () => {
  /** The port's commits: the first `failures` throw as a lost connection would, after applying or before. */
  function flaky(failures: number, landed: boolean) {
    const table = MemoryLedgerTable.withHead(ledger);
    const commit = table.commit.bind(table);
    let left = failures;
    table.commit = async (...args) => {
      if (left > 0 && !landed) {
        left--;
        throw new Error('socket hang up');
      }
      const outcome = await commit(...args);
      if (left-- > 0) throw new Error('socket hang up');
      return outcome;
    };
    return table;
  }

  it('answers the requests of a commit that landed from the log, and commits none of them twice', async () => {
    const table = flaky(1, true);
    const batch = [intent(create('world', 'a', 1n)), intent(create('world', 'b', 2n))];
    const { results } = await sequencer(table, { inProcess: true }).process(batch);
    expect(batch.map((i) => committedId(results.get(i.reqId)))).toEqual([1, 2]);
    expect([head(table).lastTxId, head(table).lastLogId]).toEqual([2, 2]);
    expect(table.requests.TransactWriteItems).toBe(1);
  });

  it('decides and commits again the requests of a commit that did not land', async () => {
    const table = flaky(1, false);
    const batch = [intent(create('world', 'a', 1n)), intent(create('world', 'b', 2n))];
    const { results } = await sequencer(table, { inProcess: true }).process(batch);
    expect(batch.map((i) => committedId(results.get(i.reqId)))).toEqual([1, 2]);
    expect([head(table).lastTxId, head(table).lastLogId]).toEqual([2, 2]);
  });

  it('in the pipeline too: a prepared batch whose commit landed is answered, the one after it decided again', async () => {
    const table = flaky(1, true);
    const writer = sequencer(table, { inProcess: true });
    const first = [intent(create('world', 'a', 1n))];
    const second = [intent(create('world', 'b', 2n))];
    const preparedFirst = await writer.prepare(first);
    const preparedSecond = await writer.prepare(second);
    expect(await writer.commitPrepared(preparedFirst)).toBe('redo');
    expect(await writer.commitPrepared(preparedSecond)).toBe('redo');
    const { results } = await writer.process([...first, ...second]);
    expect([...first, ...second].map((i) => committedId(results.get(i.reqId)))).toEqual([1, 2]);
    expect([head(table).lastTxId, head(table).lastLogId]).toEqual([2, 2]);
  });
});
