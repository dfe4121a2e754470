import { apiGet } from '../api.js';
import { Amount, Breadcrumbs, LedgerTabs, Metadata, Show, Time, useLoad } from '../components.js';
import { href } from '../router.js';
import { TransactionLogEntry } from './transaction-log-entry.js';

interface Volume {
  input: bigint;
  output: bigint;
  balance: bigint;
}
type Volumes = Record<string, Record<string, Volume>>;

interface Transaction {
  id: bigint;
  postings: Array<{ source: string; destination: string; amount: bigint; asset: string }>;
  metadata: Record<string, string>;
  timestamp: string;
  insertedAt?: string;
  reference?: string;
  reverted: boolean;
  revertedAt?: string;
  preCommitVolumes?: Volumes;
  postCommitVolumes?: Volumes;
}

interface Account {
  address: string;
  metadata: Record<string, string>;
  volumes?: Record<string, Volume>;
  firstUsage?: string;
  insertionDate?: string;
  updatedAt?: string;
}

const ledgerPath = (ledger: string) => `/api/ledger/v2/${encodeURIComponent(ledger)}`;
const accountLink = (ledger: string, address: string) => (
  <a class="address" href={href(['ledgers', ledger, 'accounts', address])}>
    {address}
  </a>
);

/** One transaction: its postings, metadata, every account's volumes before and after it, and its log entry. */
export function TransactionDetail({ ledger, id }: { ledger: string; id: string }) {
  const [loaded] = useLoad(
    (signal) =>
      apiGet<{ data: Transaction }>(
        `${ledgerPath(ledger)}/transactions/${encodeURIComponent(id)}`,
        { expand: 'volumes' },
        signal,
      ),
    [ledger, id],
  );
  return (
    <section data-screen="transaction">
      <Breadcrumbs
        items={[
          ['Ledgers', href(['ledgers'])],
          [ledger, href(['ledgers', ledger, 'transactions'])],
          [`Transaction ${id}`, undefined],
        ]}
      />
      <LedgerTabs ledger={ledger} current="transactions" />
      <Show loaded={loaded}>
        {({ data: tx }) => (
          <>
            <dl class="facts">
              <div>
                <dt>Id</dt>
                <dd data-fact="id">
                  {String(tx.id)}
                  {tx.reverted ? <span class="badge warn">reverted</span> : null}
                </dd>
              </div>
              <div>
                <dt>Reference</dt>
                <dd>{tx.reference ?? <span class="muted">—</span>}</dd>
              </div>
              <div>
                <dt>Timestamp</dt>
                <dd>
                  <Time value={tx.timestamp} />
                </dd>
              </div>
              <div>
                <dt>Inserted</dt>
                <dd>
                  <Time value={tx.insertedAt} />
                </dd>
              </div>
              {tx.revertedAt ? (
                <div>
                  <dt>Reverted</dt>
                  <dd>
                    <Time value={tx.revertedAt} />
                  </dd>
                </div>
              ) : null}
            </dl>
            <h2>Postings</h2>
            <ul class="postings">
              {tx.postings.map((p, i) => (
                <li key={i} class="posting" data-posting={String(i)}>
                  {accountLink(ledger, p.source)}
                  <span class="arrow"> → </span>
                  {accountLink(ledger, p.destination)} <Amount value={p.amount} asset={p.asset} />
                </li>
              ))}
            </ul>
            <h2>Metadata</h2>
            <Metadata metadata={tx.metadata} />
            <h2>Volumes</h2>
            <VolumeChanges
              ledger={ledger}
              before={tx.preCommitVolumes}
              after={tx.postCommitVolumes}
            />
            <h2>Log entry</h2>
            <TransactionLogEntry ledger={ledger} id={tx.id} />
          </>
        )}
      </Show>
    </section>
  );
}

function VolumeChanges({
  ledger,
  before = {},
  after = {},
}: {
  ledger: string;
  before?: Volumes | undefined;
  after?: Volumes | undefined;
}) {
  const rows = Object.entries(after).flatMap(([address, assets]) =>
    Object.entries(assets).map(([asset, post]) => ({
      address,
      asset,
      pre: before[address]?.[asset],
      post,
    })),
  );
  if (rows.length === 0) return <p class="muted">No volumes in the answer.</p>;
  return (
    <div class="scroll">
      <table>
        <thead>
          <tr>
            <th>Account</th>
            <th>Asset</th>
            <th class="number">Balance before</th>
            <th class="number">Balance after</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.address} ${r.asset}`} data-volume={`${r.address} ${r.asset}`}>
              <td>{accountLink(ledger, r.address)}</td>
              <td>{r.asset}</td>
              <td class="number">
                {r.pre ? <Amount value={r.pre.balance} asset={r.asset} showAsset={false} /> : '—'}
              </td>
              <td class="number">
                <Amount value={r.post.balance} asset={r.asset} showAsset={false} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** One account: its metadata, its volumes by asset, and a link to the transactions that move it. */
export function AccountDetail({ ledger, address }: { ledger: string; address: string }) {
  const [loaded] = useLoad(
    (signal) =>
      apiGet<{ data: Account }>(
        `${ledgerPath(ledger)}/accounts/${encodeURIComponent(address)}`,
        { expand: 'volumes' },
        signal,
      ),
    [ledger, address],
  );
  return (
    <section data-screen="account">
      <Breadcrumbs
        items={[
          ['Ledgers', href(['ledgers'])],
          [ledger, href(['ledgers', ledger, 'accounts'])],
          [address, undefined],
        ]}
      />
      <LedgerTabs ledger={ledger} current="accounts" />
      <Show loaded={loaded}>
        {({ data: account }) => (
          <>
            <dl class="facts">
              <div>
                <dt>Address</dt>
                <dd data-fact="address">{account.address}</dd>
              </div>
              <div>
                <dt>First used</dt>
                <dd>
                  <Time value={account.firstUsage} />
                </dd>
              </div>
            </dl>
            <h2>Volumes</h2>
            {Object.keys(account.volumes ?? {}).length === 0 ? (
              <p class="muted">No volumes: nothing has moved this account yet.</p>
            ) : (
              <div class="scroll">
                <table>
                  <thead>
                    <tr>
                      <th>Asset</th>
                      <th class="number">Balance</th>
                      <th class="number">Input</th>
                      <th class="number">Output</th>
                    </tr>
                  </thead>
                  <tbody>
                    {Object.entries(account.volumes ?? {}).map(([asset, v]) => (
                      <tr key={asset} data-asset={asset}>
                        <td>{asset}</td>
                        {[v.balance, v.input, v.output].map((value, i) => (
                          <td key={i} class="number">
                            <Amount value={value} asset={asset} showAsset={false} />
                          </td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <h2>Metadata</h2>
            <Metadata metadata={account.metadata} />
            <p>
              <a
                class="button"
                data-action="account-transactions"
                href={href(['ledgers', ledger, 'transactions'], { account: account.address })}
              >
                Its transactions
              </a>
            </p>
          </>
        )}
      </Show>
    </section>
  );
}
