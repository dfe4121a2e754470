import { Amount, Metadata, Time } from '../components.js';
import { href, type Route } from '../router.js';
import { LedgerList } from './ledger-list.js';
import { TransactionFilter, transactionQuery } from './transaction-filter.js';

interface Posting {
  source: string;
  destination: string;
  amount: bigint;
  asset: string;
}

interface Transaction {
  id: bigint;
  postings: Posting[];
  metadata: Record<string, string>;
  timestamp: string;
  reference?: string;
  reverted: boolean;
}

/** A ledger's transactions, newest first, with their postings and metadata. */
export function Transactions({ ledger, route }: { ledger: string; route: Route }) {
  return (
    <LedgerList<Transaction>
      ledger={ledger}
      route={route}
      tab="transactions"
      query={transactionQuery(route)}
      above={<TransactionFilter ledger={ledger} route={route} />}
      empty={
        route.query.has('account') || route.query.has('reference')
          ? 'No transactions match this filter.'
          : 'No transactions in this ledger yet.'
      }
    >
      {(rows) => (
        <table>
          <thead>
            <tr>
              <th class="number">Id</th>
              <th>Postings</th>
              <th>Metadata</th>
              <th>Reference</th>
              <th>Timestamp</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((tx) => (
              <tr key={String(tx.id)} data-transaction={String(tx.id)}>
                <td class="number">
                  <a href={href(['ledgers', ledger, 'transactions', String(tx.id)])}>
                    {String(tx.id)}
                  </a>
                  {tx.reverted ? <span class="badge warn">reverted</span> : null}
                </td>
                <td>
                  <ul class="postings">
                    {tx.postings.map((p, i) => (
                      <li key={i} class="posting">
                        <span class="address">{p.source}</span>
                        <span class="arrow"> → </span>
                        <span class="address">{p.destination}</span>{' '}
                        <Amount value={p.amount} asset={p.asset} />
                      </li>
                    ))}
                  </ul>
                </td>
                <td>
                  <Metadata metadata={tx.metadata} />
                </td>
                <td>{tx.reference ?? <span class="muted">—</span>}</td>
                <td>
                  <Time value={tx.timestamp} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </LedgerList>
  );
}
