import { Amount, Metadata, Time } from '../components.js';
import { href, type Route } from '../router.js';
import { LedgerList } from './ledger-list.js';

interface HoldPosting {
  source: string;
  destination: string;
  amount: bigint;
  asset: string;
  posted: bigint;
  voided: bigint;
  remaining: bigint;
}

interface Hold {
  id: bigint;
  postings: HoldPosting[];
  metadata: Record<string, string>;
  insertedAt: string;
  expiresAt?: string;
  status: 'PENDING' | 'POSTED' | 'VOIDED' | 'EXPIRED';
  transactions: bigint[];
}

/** The badge of a hold's state: open holds stand out; expired ones are a warning (released unposted). */
const STATUS: Record<Hold['status'], string> = {
  PENDING: 'badge info',
  POSTED: 'badge ok',
  VOIDED: 'badge',
  EXPIRED: 'badge warn',
};

/**
 * A ledger's holds (pending transfers, docs/api.md §3.6), newest first: each posting with what was held, posted and
 * what remains, the hold's state and expiry, and the transactions its posts made. Created, posted and voided through
 * the API or `platform holds`.
 */
export function Holds({ ledger, route }: { ledger: string; route: Route }) {
  return (
    <LedgerList<Hold>
      ledger={ledger}
      route={route}
      tab="pending"
      empty="No holds in this ledger (create one with POST /v2/<ledger>/pending or `platform holds create`)."
    >
      {(rows) => (
        <table>
          <thead>
            <tr>
              <th class="number">Id</th>
              <th>State</th>
              <th>Postings: held, posted, remaining</th>
              <th>Expires</th>
              <th>Posted as</th>
              <th>Metadata</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((hold) => (
              <tr key={String(hold.id)} data-hold={String(hold.id)}>
                <td class="number">{String(hold.id)}</td>
                <td class="state">
                  <span class={STATUS[hold.status]}>{hold.status}</span>
                </td>
                <td>
                  <ul class="postings">
                    {hold.postings.map((p, i) => (
                      <li key={i} class="posting">
                        <span class="address">{p.source}</span>
                        <span class="arrow"> → </span>
                        <span class="address">{p.destination}</span>{' '}
                        <Amount value={p.amount} asset={p.asset} />
                        <span class="muted"> posted </span>
                        <span class="posted">
                          <Amount value={p.posted} asset={p.asset} showAsset={false} />
                        </span>
                        <span class="muted"> remaining </span>
                        <span class="remaining">
                          <Amount value={p.remaining} asset={p.asset} showAsset={false} />
                        </span>
                      </li>
                    ))}
                  </ul>
                </td>
                <td class="expires">
                  {hold.expiresAt ? (
                    <Time value={hold.expiresAt} />
                  ) : (
                    <span class="muted">never</span>
                  )}
                </td>
                <td class="transactions">
                  {hold.transactions.length === 0 ? (
                    <span class="muted">—</span>
                  ) : (
                    hold.transactions.map((id, i) => (
                      <span key={String(id)}>
                        {i > 0 ? ', ' : null}
                        <a href={href(['ledgers', ledger, 'transactions', String(id)])}>
                          {String(id)}
                        </a>
                      </span>
                    ))
                  )}
                </td>
                <td>
                  <Metadata metadata={hold.metadata} />
                </td>
                <td>
                  <Time value={hold.insertedAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </LedgerList>
  );
}
