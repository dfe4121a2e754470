import { describe, expect, it } from 'vitest';
import { ledgerKeys, ledgerOfPartition, registryKeys } from './keys.js';

describe('ledger keys are scoped to an environment', () => {
  const ledger = { environment: 'sandbox-1', name: 'main' };
  const other = { environment: 'prod', name: 'main' };
  /** Every partition key a ledger key function makes, with plausible arguments. */
  const partitionsOf = (l: typeof ledger): string[] =>
    [
      ledgerKeys.head(l).pk,
      ledgerKeys.transaction(l, 1).pk,
      ledgerKeys.transactionPartition(l),
      ledgerKeys.transactionsByTime(l),
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
      'E#sandbox-1#LEDGER#main',
      'E#Bad#L#main',
      'E#sandbox-1#L#',
    ])
      expect(ledgerOfPartition(pk)).toBeUndefined();
  });
});
