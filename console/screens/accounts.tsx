import { Amount, Metadata, Time } from '../components.js';
import { href, type Route } from '../router.js';
import { LedgerList } from './ledger-list.js';

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
  return (
    <LedgerList<Account>
      ledger={ledger}
      route={route}
      tab="accounts"
      query={{ expand: 'volumes' }}
      empty="No accounts in this ledger yet."
    >
      {(rows) => (
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
            {rows.flatMap((account) => {
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
                      <a href={href(['ledgers', ledger, 'accounts', account.address])}>
                        {account.address}
                      </a>
                    </td>
                  ) : null}
                  <td>{asset ?? <span class="muted">no volumes</span>}</td>
                  <td class="number balance">
                    {volume ? (
                      <Amount value={volume.balance} asset={asset} showAsset={false} />
                    ) : null}
                  </td>
                  <td class="number">
                    {volume ? (
                      <Amount value={volume.input} asset={asset} showAsset={false} />
                    ) : null}
                  </td>
                  <td class="number">
                    {volume ? (
                      <Amount value={volume.output} asset={asset} showAsset={false} />
                    ) : null}
                  </td>
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
      )}
    </LedgerList>
  );
}
