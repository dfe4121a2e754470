import type { ComponentChildren } from 'preact';
import { apiList } from '../api.js';
import { Breadcrumbs, LedgerTabs, Pager, Show, useLoad } from '../components.js';
import { href, type Route } from '../router.js';
import { PAGE_SIZE } from './ledgers.js';

/**
 * One of a ledger's tabs that lists a page of `/api/ledger/v2/<ledger>/<tab>` (the route's `cursor` picks the
 * page): breadcrumbs, tabs, what the screen shows `above` the list, the rows as `children` renders them (or
 * `empty` when there are none) and the pager.
 */
export function LedgerList<T>({
  ledger,
  route,
  tab,
  query = {},
  empty,
  above,
  children,
}: {
  ledger: string;
  route: Route;
  tab: 'accounts' | 'transactions' | 'logs' | 'pending' | 'monitors' | 'pipelines';
  query?: Record<string, string>;
  empty: string;
  above?: ComponentChildren;
  children: (rows: T[]) => ComponentChildren;
}) {
  const cursor = route.query.get('cursor') ?? undefined;
  const path = `/api/ledger/v2/${encodeURIComponent(ledger)}/${tab}`;
  const filters = JSON.stringify(query);
  const [loaded] = useLoad(
    (signal) => apiList<T>(path, { pageSize: PAGE_SIZE, ...query }, cursor, signal),
    [path, cursor, filters],
  );
  return (
    <section>
      <Breadcrumbs
        items={[
          ['Ledgers', href(['ledgers'])],
          [ledger, undefined],
        ]}
      />
      <LedgerTabs ledger={ledger} current={tab} />
      {above}
      <Show loaded={loaded}>
        {(page) =>
          page.data.length === 0 ? (
            <p class="muted">{empty}</p>
          ) : (
            <>
              {children(page.data)}
              <Pager page={page} segments={['ledgers', ledger, tab]} />
            </>
          )
        }
      </Show>
    </section>
  );
}
