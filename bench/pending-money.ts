/**
 * The bench's money invariants extended to held money (issue #31 item 6), read back through the public API after
 * the holds cells: on a ledger with pending transfers, posted balances sum to zero per asset; what each account
 * holds out (pendingOut) and is owed (pendingIn) equals the remaining amounts of the holds still open, summed from
 * the hold list; and available is posted − pendingOut, never below zero for an account that is not `world`.
 */
export interface PendingMoneyReport {
  ok: boolean;
  /** Holds still open, and the money they hold. */
  openHolds: number;
  heldTotal: string;
  failures: string[];
}

interface Balance {
  posted: string | number;
  pendingIn: string | number;
  pendingOut: string | number;
  available: string | number;
}

interface HoldPosting {
  source: string;
  destination: string;
  asset: string;
  remaining: string | number;
}

/** GET a path of the ledger's API: its parsed JSON (amounts as strings where they are). */
export type LedgerGet = (path: string) => Promise<unknown>;

export async function checkPendingMoney(
  get: LedgerGet,
  ledger: string,
  accounts: readonly string[],
): Promise<PendingMoneyReport> {
  const out = new Map<string, bigint>();
  const owed = new Map<string, bigint>();
  const add = (m: Map<string, bigint>, key: string, v: bigint) =>
    m.set(key, (m.get(key) ?? 0n) + v);
  let openHolds = 0;
  let held = 0n;
  let cursor: string | undefined;
  do {
    const page = (await get(
      `${ledger}/pending?${cursor ? `cursor=${encodeURIComponent(cursor)}` : 'status=PENDING&pageSize=100'}`,
    )) as { cursor: { data: Array<{ postings: HoldPosting[] }>; hasMore: boolean; next?: string } };
    for (const hold of page.cursor.data) {
      openHolds++;
      for (const p of hold.postings) {
        const remaining = BigInt(p.remaining);
        held += remaining;
        add(out, `${p.source} ${p.asset}`, remaining);
        add(owed, `${p.destination} ${p.asset}`, remaining);
      }
    }
    cursor = page.cursor.hasMore ? page.cursor.next : undefined;
  } while (cursor);

  const failures: string[] = [];
  const postedSum = new Map<string, bigint>();
  for (const account of accounts) {
    const { data } = (await get(`${ledger}/accounts/${account}/balances`)) as {
      data: Record<string, Balance>;
    };
    for (const [asset, b] of Object.entries(data)) {
      const [posted, pendingIn, pendingOut, available] = [
        b.posted,
        b.pendingIn,
        b.pendingOut,
        b.available,
      ].map((v) => BigInt(v));
      add(postedSum, asset, posted!);
      const key = `${account} ${asset}`;
      if (pendingOut !== (out.get(key) ?? 0n))
        failures.push(`${key}: pendingOut ${pendingOut}, open holds ${out.get(key) ?? 0n}`);
      if (pendingIn !== (owed.get(key) ?? 0n))
        failures.push(`${key}: pendingIn ${pendingIn}, open holds ${owed.get(key) ?? 0n}`);
      if (available !== posted! - pendingOut!)
        failures.push(
          `${key}: available ${available} ≠ posted ${posted} − pendingOut ${pendingOut}`,
        );
      if (account !== 'world' && available! < 0n)
        failures.push(`${key}: available ${available} < 0`);
    }
  }
  for (const [asset, sum] of postedSum)
    if (sum !== 0n) failures.push(`posted balances of ${asset} sum to ${sum}, not 0`);
  return { ok: failures.length === 0, openHolds, heldTotal: held.toString(), failures };
}
