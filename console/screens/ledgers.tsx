import { apiList } from '../api.js';
import { Metadata, Pager, Show, Time, useLoad } from '../components.js';
import { href, type Route } from '../router.js';

interface Ledger {
  id: bigint;
  name: string;
  bucket: string;
  metadata: Record<string, string>;
  features: Record<string, string>;
  addedAt: string;
}

export const PAGE_SIZE = '15';

export function Ledgers({ route }: { route: Route }) {
  const cursor = route.query.get('cursor') ?? undefined;
  const [ledgers] = useLoad(
    (signal) => apiList<Ledger>('/api/ledger/v2', { pageSize: PAGE_SIZE }, cursor, signal),
    [cursor],
  );
  return (
    <section>
      <h2>Ledgers</h2>
      <Show loaded={ledgers}>
        {(page) =>
          page.data.length === 0 ? (
            <p class="muted">No ledgers yet.</p>
          ) : (
            <>
              <table>
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Bucket</th>
                    <th>Log hashing</th>
                    <th>Metadata</th>
                    <th>Created</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((ledger) => (
                    <tr key={ledger.name} data-ledger={ledger.name}>
                      <td>
                        <a href={href(['ledgers', ledger.name, 'accounts'])}>{ledger.name}</a>
                      </td>
                      <td>{ledger.bucket}</td>
                      <td>{ledger.features?.HASH_LOGS ?? '—'}</td>
                      <td>
                        <Metadata metadata={ledger.metadata} />
                      </td>
                      <td>
                        <Time value={ledger.addedAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager page={page} segments={['ledgers']} />
            </>
          )
        }
      </Show>
    </section>
  );
}
