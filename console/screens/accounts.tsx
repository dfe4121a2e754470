import { apiList } from '../api.js';
import {
  Amount,
  Breadcrumbs,
  LedgerTabs,
  Metadata,
  Pager,
  Show,
  Time,
  useLoad,
} from '../components.js';
import { href, type Route } from '../router.js';
import { PAGE_SIZE } from './ledgers.js';

interface Volume {
  input: bigint;
  output: bigint;
  balance: bigint;
}

interface Account {
  address: string;
  metadata: Record<string, string>;
  volumes?: Record<string, Volume>;
  firstUsage?: string;
  updatedAt?: string;
}

/** A ledger's accounts with their volumes per asset (`expand=volumes`), by address. */
export function Accounts({ ledger, route }: { ledger: string; route: Route }) {
  const cursor = route.query.get('cursor') ?? undefined;
  const [accounts] = useLoad(
    (signal) =>
      apiList<Account>(
        `/api/ledger/v2/${encodeURIComponent(ledger)}/accounts`,
        { pageSize: PAGE_SIZE, expand: 'volumes' },
        cursor,
        signal,
      ),
    [ledger, cursor],
  );
  return (
    <section>
      <Breadcrumbs
        items={[
          ['Ledgers', href(['ledgers'])],
          [ledger, undefined],
        ]}
      />
      <LedgerTabs ledger={ledger} current="accounts" />
      <Show loaded={accounts}>
        {(page) =>
          page.data.length === 0 ? (
            <p class="muted">No accounts in this ledger yet.</p>
          ) : (
            <>
              <table>
                <thead>
                  <tr>
                    <th>Address</th>
                    <th>Asset</th>
                    <th class="number">Balance</th>
                    <th class="number">Input</th>
                    <th class="number">Output</th>
                    <th>Metadata</th>
                    <th>First used</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.flatMap((account) => {
                    const volumes = Object.entries(account.volumes ?? {});
                    const rows = volumes.length > 0 ? volumes : [[undefined, undefined] as const];
                    return rows.map(([asset, volume], i) => (
                      <tr
                        key={`${account.address} ${asset}`}
                        data-account={account.address}
                        data-asset={asset}
                        class={i > 0 ? 'continued' : undefined}
                      >
                        {i === 0 ? (
                          <td rowSpan={rows.length} class="address">
                            {account.address}
                          </td>
                        ) : null}
                        <td>{asset ?? <span class="muted">no volumes</span>}</td>
                        <td class="number balance">
                          {volume ? <Amount value={volume.balance} /> : null}
                        </td>
                        <td class="number">{volume ? <Amount value={volume.input} /> : null}</td>
                        <td class="number">{volume ? <Amount value={volume.output} /> : null}</td>
                        {i === 0 ? (
                          <>
                            <td rowSpan={rows.length}>
                              <Metadata metadata={account.metadata} />
                            </td>
                            <td rowSpan={rows.length}>
                              <Time value={account.firstUsage} />
                            </td>
                          </>
                        ) : null}
                      </tr>
                    ));
                  })}
                </tbody>
              </table>
              <Pager page={page} segments={['ledgers', ledger, 'accounts']} />
            </>
          )
        }
      </Show>
    </section>
  );
}
