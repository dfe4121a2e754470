import { describe, expect, it } from 'vitest';
import { recordPayment } from '../payment.js';
import { type LedgerLink, ledgerLinkOf, linkTransactions } from './ledger-link.js';

const connector = {
  id: 'conn-id',
  reference: '1b4e28ba-2fa1-11d2-883f-0016d3cca427',
  provider: 'generic',
};
const link: LedgerLink = ledgerLinkOf({ ledger: 'books', clientID: 'c', clientSecret: 's' });
const C = connector.reference;

function payment(
  type: 'PAY-IN' | 'PAYOUT' | 'TRANSFER' | 'OTHER',
  history: Array<[string, string, bigint]>,
) {
  return recordPayment(undefined, {
    reference: 'ref-1',
    connectorID: connector.id,
    type,
    amount: history.at(-1)![2],
    asset: 'EUR/2',
    scheme: 'OTHER',
    createdAt: '2026-11-01T00:00:00Z',
    adjustments: history.map(([at, status, amount]) => ({
      reference: 'ref-1',
      createdAt: at,
      status: status as 'SUCCEEDED',
      amount,
      raw: {},
    })),
  });
}

describe('linkTransactions', () => {
  it('posts each type between its accounts at its oldest settled amount, and a later refund reversed once', () => {
    const p = payment('TRANSFER', [
      ['2026-11-01T00:00:00Z', 'PENDING', 90n],
      ['2026-11-02T00:00:00Z', 'SUCCEEDED', 100n],
      ['2026-11-03T00:00:00Z', 'SUCCEEDED', 120n],
      ['2026-11-04T00:00:00Z', 'REFUNDED', 30n],
      ['2026-11-05T00:00:00Z', 'REFUNDED', 40n],
    ]);
    const txs = linkTransactions(link, connector, p, { source: 'a.1', destination: 'b' });
    expect(txs.map((t) => [t.reference, t.postings, t.metadata.payments_status])).toEqual([
      [
        `payments:${p.id}`,
        [
          {
            source: `payments:${C}:a_1`,
            destination: `payments:${C}:b`,
            amount: 100n,
            asset: 'EUR/2',
          },
        ],
        'SUCCEEDED',
      ],
      [
        `payments:${p.id}:refund`,
        [
          {
            source: `payments:${C}:b`,
            destination: `payments:${C}:a_1`,
            amount: 30n,
            asset: 'EUR/2',
          },
        ],
        'REFUNDED',
      ],
    ]);
  });

  it('uses world for the outside side, posts nothing unsettled, for OTHER, or without the account its type moves', () => {
    const settled: Array<[string, string, bigint]> = [['2026-11-02T00:00:00Z', 'SUCCEEDED', 5n]];
    expect(
      linkTransactions(link, connector, payment('PAY-IN', settled), { destination: 'm' })[0]!
        .postings,
    ).toEqual([{ source: 'world', destination: `payments:${C}:m`, amount: 5n, asset: 'EUR/2' }]);
    expect(
      linkTransactions(link, connector, payment('PAYOUT', settled), {
        source: 'm',
        destination: 'x',
      })[0]!.postings,
    ).toEqual([{ source: `payments:${C}:m`, destination: 'world', amount: 5n, asset: 'EUR/2' }]);
    expect(
      linkTransactions(link, connector, payment('PAYOUT', settled), { destination: 'x' }),
    ).toEqual([]);
    expect(
      linkTransactions(link, connector, payment('TRANSFER', settled), { source: 'm' }),
    ).toEqual([]);
    expect(
      linkTransactions(link, connector, payment('OTHER', settled), {
        source: 'm',
        destination: 'n',
      }),
    ).toEqual([]);
    const pending = payment('PAY-IN', [['2026-11-02T00:00:00Z', 'PENDING', 5n]]);
    expect(linkTransactions(link, connector, pending, { destination: 'm' })).toEqual([]);
    const custom = ledgerLinkOf({
      ledger: 'books',
      clientID: 'c',
      clientSecret: 's',
      accounts: { internal: 'bank:{provider}:{account}', world: 'ext:{connector}' },
      statuses: ['PENDING'],
    });
    expect(linkTransactions(custom, connector, pending, { destination: 'm' })[0]!.postings).toEqual(
      [{ source: `ext:${C}`, destination: 'bank:generic:m', amount: 5n, asset: 'EUR/2' }],
    );
  });
});
