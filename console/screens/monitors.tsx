import { Amount, Metadata, Time } from '../components.js';
import type { Route } from '../router.js';
import { LedgerList } from './ledger-list.js';

interface Monitor {
  id: string;
  account: string;
  asset: string;
  condition: {
    type: 'below' | 'above' | 'negative' | 'changes';
    amount?: bigint;
    field?: 'balance' | 'available';
  };
  metadata: Record<string, string>;
  createdAt: string;
}

const CONDITION: Record<Monitor['condition']['type'], string> = {
  below: 'falls below',
  above: 'rises above',
  negative: 'becomes negative',
  changes: 'changes',
};

/**
 * A ledger's balance monitors (docs/api.md §3.6): which balances raise `ledger.balance_monitor_triggered`, and
 * when. Created and deleted through the API or `platform monitors`.
 */
export function Monitors({ ledger, route }: { ledger: string; route: Route }) {
  return (
    <LedgerList<Monitor>
      ledger={ledger}
      route={route}
      tab="monitors"
      empty="No balance monitors in this ledger (create one with POST /v2/<ledger>/monitors or `platform monitors create`)."
    >
      {(rows) => (
        <table>
          <thead>
            <tr>
              <th>Account</th>
              <th>Asset</th>
              <th>When the (available) balance</th>
              <th>Metadata</th>
              <th>Created</th>
              <th>Id</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((m) => (
              <tr key={m.id} data-monitor={m.id}>
                <td class="address">{m.account}</td>
                <td>{m.asset}</td>
                <td class="condition">
                  {m.condition.field === 'available' ? 'available ' : ''}
                  {CONDITION[m.condition.type]}
                  {m.condition.amount !== undefined ? (
                    <>
                      {' '}
                      <Amount value={m.condition.amount} asset={m.asset} />
                    </>
                  ) : null}
                </td>
                <td>
                  <Metadata metadata={m.metadata} />
                </td>
                <td>
                  <Time value={m.createdAt} />
                </td>
                <td class="muted">{m.id}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </LedgerList>
  );
}
