import { href, type Route } from '../router.js';

/**
 * The transactions list's filters, kept in the route (`?account=…&reference=…`) so a filtered list can be reloaded
 * or linked; as the API's `query` (`$match` on account, reference; both: `$and`).
 */
export function transactionQuery(route: Route): Record<string, string> {
  const matches = (['account', 'reference'] as const)
    .map((field) => [field, route.query.get(field)?.trim()] as const)
    .filter((entry): entry is readonly ['account' | 'reference', string] => !!entry[1])
    .map(([field, value]) => ({ $match: { [field]: value } }));
  if (matches.length === 0) return {};
  return { query: JSON.stringify(matches.length === 1 ? matches[0] : { $and: matches }) };
}

export function TransactionFilter({ ledger, route }: { ledger: string; route: Route }) {
  const apply = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const value = (name: string) => String(form.get(name) ?? '').trim() || undefined;
    location.hash = href(['ledgers', ledger, 'transactions'], {
      account: value('account'),
      reference: value('reference'),
    });
  };
  return (
    <form class="filters" onSubmit={apply} data-filter="transactions">
      <label>
        Account
        <input
          name="account"
          placeholder="users:alice or users:"
          value={route.query.get('account') ?? ''}
        />
      </label>
      <label>
        Reference
        <input name="reference" value={route.query.get('reference') ?? ''} />
      </label>
      <button type="submit">Filter</button>
      {route.query.has('account') || route.query.has('reference') ? (
        <a class="button" href={href(['ledgers', ledger, 'transactions'])}>
          Clear
        </a>
      ) : null}
    </form>
  );
}
