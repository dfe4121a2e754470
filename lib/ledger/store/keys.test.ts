import { describe, expect, it } from 'vitest';
import {
  holdDueKeys,
  type LedgerRef,
  ledgerKeys,
  ledgerOfHold,
  ledgerOfPartition,
  registryKeys,
} from './keys.js';

describe('ledger keys are scoped to an environment', () => {
  const ledger = { environment: 'sandbox-1', name: 'main' };
  const other = { environment: 'prod', name: 'main' };
  const blocks = { blockIds: 4, timeShards: 3 };
  /** Every partition key a ledger key function makes, with plausible arguments. */
  const partitionsOf = (l: LedgerRef): string[] =>
    [
      ledgerKeys.head(l).pk,
      ledgerKeys.transaction(l, 1).pk,
      ledgerKeys.transaction({ ...l, transactionKeys: blocks }, 9).pk,
      ledgerKeys.transactionBlock(l, 0),
      ledgerKeys.transactionsByTime(l, 1),
      ...ledgerKeys.transactionTimeShards({ ...l, transactionKeys: blocks }),
      ledgerKeys.log(l, 1).pk,
      ledgerKeys.logPartition(l),
      ledgerKeys.account(l, 'users:1').pk,
      ledgerKeys.volume(l, 'users:1', 'USD/2').pk,
      ledgerKeys.accountPartition(l, 'users:1'),
      ledgerKeys.accountList(l),
      ledgerKeys.movePage(l, 'users:1', 'USD/2', 'x', 1).pk,
      ledgerKeys.movePartition(l, 'users:1', 'USD/2'),
      ledgerKeys.lateMove(l, 'users:1', 'USD/2', 'x', 1).pk,
      ledgerKeys.lateMovePartition(l, 'users:1', 'USD/2'),
      ledgerKeys.accountMetadataPartition(l, 'k', 'v'),
      ledgerKeys.addressSegmentPartition(l, 2, 0, 'users'),
      ledgerKeys.balancesByAsset(l, 'USD/2'),
      ledgerKeys.transactionMetadataPartition(l, 'k', 'v'),
      ledgerKeys.transactionMetadata(l, 'k', 'v', 1).pk,
      ledgerKeys.reference(l, 'ref'),
      ledgerKeys.idempotency(l, 'ik').pk,
      ledgerKeys.result(l, 'req').pk,
      ledgerKeys.transactionRevisions(l, 1),
      ledgerKeys.mapping(l).pk,
    ].map((k) => (typeof k === 'string' ? k : k.pk));

  it('every ledger item key starts E#<environment>#L#<ledger>, and no two environments share one', () => {
    const mine = partitionsOf(ledger);
    expect(
      mine.every((pk) => pk === 'E#sandbox-1#L#main' || pk.startsWith('E#sandbox-1#L#main#')),
    ).toBe(true);
    const theirs = new Set(partitionsOf(other));
    expect(mine.filter((pk) => theirs.has(pk))).toEqual([]);
    expect(ledgerKeys.head(ledger)).toEqual({ pk: 'E#sandbox-1#L#main', sk: 'HEAD' });
    expect(ledgerKeys.log(ledger, 3)).toEqual({
      pk: 'E#sandbox-1#L#main#LOG',
      sk: '000000000000003',
    });
  });

  it('transactions: one partition each without a layout; blocks of ids and time shards by id with one', () => {
    expect(ledgerKeys.transaction(ledger, 9)).toEqual({
      pk: 'E#sandbox-1#L#main#TX',
      sk: '000000000000009',
    });
    expect(ledgerKeys.transactionsByTime(ledger, 9)).toBe('E#sandbox-1#L#main#TXT');
    expect(ledgerKeys.transactionTimeShards(ledger)).toEqual(['E#sandbox-1#L#main#TXT']);
    const spread = { ...ledger, transactionKeys: blocks };
    expect([1, 3, 4, 7, 8].map((id) => ledgerKeys.transaction(spread, id).pk)).toEqual([
      'E#sandbox-1#L#main#TX#0',
      'E#sandbox-1#L#main#TX#0',
      'E#sandbox-1#L#main#TX#1',
      'E#sandbox-1#L#main#TX#1',
      'E#sandbox-1#L#main#TX#2',
    ]);
    expect([1, 3, 4, 5].map((id) => ledgerKeys.transactionsByTime(spread, id))).toEqual([
      'E#sandbox-1#L#main#TXT#1',
      'E#sandbox-1#L#main#TXT#0',
      'E#sandbox-1#L#main#TXT#1',
      'E#sandbox-1#L#main#TXT#2',
    ]);
    expect(ledgerKeys.transactionTimeShards(spread)).toEqual([
      'E#sandbox-1#L#main#TXT#0',
      'E#sandbox-1#L#main#TXT#1',
      'E#sandbox-1#L#main#TXT#2',
    ]);
  });

  it('registry keys: ledger items, the id sequence, bucket members and the list, per environment', () => {
    expect(registryKeys.ledger(ledger)).toEqual({ pk: 'E#sandbox-1#LEDGER#main', sk: 'LEDGER' });
    expect(registryKeys.sequence('sandbox-1')).toEqual({
      pk: 'E#sandbox-1#LEDGER_SEQ',
      sk: 'LEDGER_SEQ',
    });
    expect(registryKeys.bucketMember('sandbox-1', '_default', 2)).toEqual({
      pk: 'E#sandbox-1#BUCKET#_default',
      sk: '000000000000002',
    });
    expect(registryKeys.listPartition('prod')).toBe('E#prod#LEDGERS');
  });

  it('refuses an environment that is not an environment id, so no key escapes its prefix', () => {
    expect(() => ledgerKeys.head({ environment: 'a#L#x', name: 'main' })).toThrow(
      'not an environment id',
    );
    expect(() => registryKeys.listPartition('')).toThrow('not an environment id');
  });

  it("reads a ledger's own and log partitions back, and nothing else", () => {
    expect(ledgerOfPartition('E#sandbox-1#L#main')).toEqual({ ledger, partition: 'ledger' });
    expect(ledgerOfPartition('E#sandbox-1#L#main#LOG')).toEqual({ ledger, partition: 'log' });
    for (const pk of [
      'L#main',
      'L#main#LOG',
      'E#sandbox-1#L#main#TX',
      'E#sandbox-1#L#main#TX#0',
      'E#sandbox-1#LEDGER#main',
      'E#Bad#L#main',
      'E#sandbox-1#L#',
    ])
      expect(ledgerOfPartition(pk)).toBeUndefined();
  });
});

describe("holds' due index", () => {
  it('a hold names its ledger back from its own key; any other key names none', () => {
    const ledger = { environment: 'env1', name: 'cards' };
    expect(ledgerOfHold(ledgerKeys.pending(ledger, 7).pk)).toEqual(ledger);
    expect(ledgerOfHold(ledgerKeys.pendingDue(ledger))).toBeUndefined();
    expect(ledgerOfHold(ledgerKeys.head(ledger).pk)).toBeUndefined();
  });

  it("spreads one ledger's holds over the shards, each entry sorted by expiry then id", () => {
    const ledger = { environment: 'env1', name: 'cards' };
    const entries = Array.from({ length: 64 }, (_, id) =>
      holdDueKeys.entry(ledger, id, '2026-01-02T03:04:05.000000Z'),
    );
    expect(new Set(entries.map((e) => e.dueKey))).toEqual(new Set(holdDueKeys.shards()));
    expect(entries[5]!.dueAt).toBe('2026-01-02T03:04:05.000000Z#000000000000005');
    expect(entries[5]!.dueAt <= holdDueKeys.dueBy('2026-01-02T03:04:05.000000Z')).toBe(true);
    expect(entries[5]!.dueAt <= holdDueKeys.dueBy('2026-01-02T03:04:04.999999Z')).toBe(false);
  });
});
