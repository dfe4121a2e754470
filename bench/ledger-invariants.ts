/**
 * The money invariants of one ledger after a load run, checked from what the public API lists (a
 * `LedgerSnapshot`, see ledger-snapshot.ts) against what the clients were told (a `LoadRecord`). Pure: no I/O, so
 * a fabricated snapshot proves that every check can fail. Each invariant reports the first counter-example.
 */
import { verifyChain } from '../lib/ledger/domain/log-chain.js';
import type { LogEntry } from '../lib/ledger/domain/logs.js';

export interface SentPosting {
  source: string;
  destination: string;
  asset: string;
  amount: bigint;
}

/** A request that got no definite answer: it may or may not have committed. */
export interface UncertainRequest {
  /** The request's tag: its Idempotency-Key if it was sent with one (then its log names it). */
  tag: string;
  outcome: '503' | '504' | 'network error';
  /** The answer said the write was not committed (the write path's 503 contract): then it must not exist. */
  declaredNotCommitted: boolean;
  postings: SentPosting[];
}

/** What the clients know after a run. */
export interface LoadRecord {
  acknowledged: Array<{ id: number; tag: string; postings: SentPosting[] }>;
  uncertain: UncertainRequest[];
  /** Answers by status key (`200`, `400 INSUFFICIENT_FUND`, `503`, `network error`...). */
  statuses: Record<string, number>;
  /** The 4xx status keys the scenario provokes on purpose; any other 4xx is a failure. */
  expectedRefusals: string[];
  /** hot-spend: the one account funded with exactly `budget` that every client spent from. */
  hotSpend?: { account: string; asset: string; budget: bigint };
}

export interface ListedTransaction {
  id: number;
  postings: SentPosting[];
}

export interface ListedAccount {
  address: string;
  volumes: Record<string, { input: bigint; output: bigint; balance: bigint }>;
}

/** The ledger as its list routes show it: transactions and logs in ascending id order, as listed. */
export interface LedgerSnapshot {
  transactions: ListedTransaction[];
  accounts: ListedAccount[];
  aggregate: Record<string, bigint>;
  logs: LogEntry[];
}

export interface InvariantResult {
  name: string;
  ok: boolean;
  /** The first counter-example when failed; what was checked when ok. */
  detail: string;
}

export interface InvariantReport {
  ok: boolean;
  transactions: number;
  logs: number;
  /** Transactions that exist although their request was answered 503 / 504 / network error. */
  committedAfterUncertain: Record<UncertainRequest['outcome'], number>;
  invariants: InvariantResult[];
}

/** Accounts allowed below zero: only `world` here (the scenarios use neither `force` nor overdraft mappings). */
const UNBOUNDED = 'world';

const postingText = (p: SentPosting) => `${p.source}→${p.destination} ${p.amount} ${p.asset}`;
const postingsText = (ps: readonly SentPosting[]) => ps.map(postingText).join(', ');

export function checkInvariants(snapshot: LedgerSnapshot, record: LoadRecord): InvariantReport {
  const results: InvariantResult[] = [];
  const check = (name: string, failure: string | undefined, okDetail: string) =>
    results.push(
      failure === undefined
        ? { name, ok: true, detail: okDetail }
        : { name, ok: false, detail: failure },
    );
  const txs = snapshot.transactions;
  const logs = snapshot.logs;

  check(
    'transaction ids are 1..N',
    firstSequenceBreak(
      txs.map((t) => t.id),
      'transaction',
    ),
    `${txs.length} transactions`,
  );
  check(
    'log ids are 1..M',
    firstSequenceBreak(
      logs.map((l) => l.id),
      'log',
    ),
    `${logs.length} logs`,
  );
  const chain = verifyChain(logs);
  check(
    'hash chain verifies',
    chain.ok ? undefined : `log ${chain.brokenAt}: ${chain.reason}`,
    `${logs.length} links`,
  );

  // The Idempotency-Key a transaction was committed under, on its log ('' without one): it ties a keyed request.
  const loggedTag = new Map<number, string>();
  let logFailure: string | undefined;
  const listed = new Map(txs.map((t) => [t.id, t]));
  for (const log of logs) {
    if (log.type !== 'NEW_TRANSACTION') continue;
    const tx = (log.data as { transaction?: { id: unknown; postings: SentPosting[] } }).transaction;
    const id = Number(tx?.id);
    if (loggedTag.has(id))
      logFailure ??= `transaction ${id} is logged twice (logs ${log.id} and an earlier one)`;
    loggedTag.set(id, log.idempotencyKey);
    const shown = listed.get(id);
    if (!shown)
      logFailure ??= `log ${log.id} records transaction ${id}, which the transaction list does not show`;
    else if (postingsText(shown.postings) !== postingsText(tx?.postings ?? [])) {
      logFailure ??= `transaction ${id}: listed as [${postingsText(shown.postings)}], logged as [${postingsText(tx?.postings ?? [])}]`;
    }
  }
  const unlogged = txs.find((t) => !loggedTag.has(t.id));
  if (unlogged) logFailure ??= `transaction ${unlogged.id} has no NEW_TRANSACTION log`;
  check(
    'every transaction logged once, as listed',
    logFailure,
    `${loggedTag.size} NEW_TRANSACTION logs`,
  );

  let ackFailure: string | undefined;
  const ackedIds = new Set<number>();
  for (const ack of record.acknowledged) {
    const tx = listed.get(ack.id);
    if (ackedIds.has(ack.id))
      ackFailure ??= `transaction ${ack.id} was acknowledged to two requests`;
    ackedIds.add(ack.id);
    if (!tx) ackFailure ??= `acknowledged transaction ${ack.id} (tag ${ack.tag}) is not listed`;
    else if (postingsText(tx.postings) !== postingsText(ack.postings)) {
      ackFailure ??= `transaction ${ack.id}: sent [${postingsText(ack.postings)}], listed [${postingsText(tx.postings)}]`;
    } else if (loggedTag.get(ack.id) && loggedTag.get(ack.id) !== ack.tag) {
      ackFailure ??= `transaction ${ack.id} was acknowledged for tag ${ack.tag} but logged under ${loggedTag.get(ack.id)}`;
    }
  }
  check(
    'every acknowledged transaction present once, as sent',
    ackFailure,
    `${record.acknowledged.length} acknowledged`,
  );

  const { committedAfterUncertain, strayFailure, brokenPromise } = matchUnanswered(
    txs.filter((t) => !ackedIds.has(t.id)),
    loggedTag,
    record.uncertain,
  );
  const uncertainCount = record.uncertain.length;
  check(
    'no transaction without an acknowledged or unanswered request',
    strayFailure,
    `${txs.length - ackedIds.size} of ${uncertainCount} unanswered requests committed`,
  );
  const declared = record.uncertain.filter((u) => u.declaredNotCommitted).length;
  check(
    'no "not committed" answer committed',
    brokenPromise,
    `${declared} answered "not committed"`,
  );

  const replay = replayInOrder(txs);
  check(
    'no account but world below zero, in commit order',
    replay.overdraft,
    `${txs.length} transactions replayed`,
  );
  check(
    'balances equal the replay of the postings',
    compareAccounts(snapshot.accounts, replay.volumes),
    `${replay.volumes.size} accounts`,
  );
  const listedSums = sumByAsset(
    snapshot.accounts.flatMap((a) =>
      Object.entries(a.volumes).map(([asset, v]) => ({ asset, balance: v.balance })),
    ),
  );
  const nonZero = [...listedSums].find(([, sum]) => sum !== 0n);
  check(
    'sum of balances per asset is 0',
    nonZero ? `${nonZero[0]} sums to ${nonZero[1]}` : undefined,
    [...listedSums.keys()].join(', ') || 'no asset',
  );
  check(
    'aggregate/balances equals the replay',
    compareAggregate(snapshot.aggregate, replay.volumes),
    JSON.stringify(
      Object.fromEntries(Object.entries(snapshot.aggregate).map(([k, v]) => [k, String(v)])),
    ),
  );

  const unexpected = Object.entries(record.statuses).filter(
    ([key, n]) => n > 0 && /^4\d\d/.test(key) && !record.expectedRefusals.includes(key),
  );
  check(
    'only the expected refusals',
    unexpected.length
      ? `unexpected answers: ${unexpected.map(([k, n]) => `${n}× ${k}`).join(', ')}`
      : undefined,
    record.expectedRefusals.length ? `4xx only ${record.expectedRefusals.join(', ')}` : 'no 4xx',
  );

  if (record.hotSpend) results.push(checkHotSpend(record, txs, replay.volumes, ackedIds));

  return {
    ok: results.every((r) => r.ok),
    transactions: txs.length,
    logs: logs.length,
    committedAfterUncertain,
    invariants: results,
  };
}

/**
 * Ties each transaction no client was acknowledged for to a request left without a definite answer: by the
 * Idempotency-Key on its log when it has one, else by its postings among the unanswered requests not tied yet
 * (the load sends no key: a tag in metadata would cost an index item per request). Postings can be alike, so a
 * match prefers a request that was not told "not committed": a broken promise is reported only when no other
 * request explains the transaction.
 */
function matchUnanswered(
  unacknowledged: readonly ListedTransaction[],
  loggedTag: ReadonlyMap<number, string>,
  uncertain: readonly UncertainRequest[],
) {
  const committedAfterUncertain: InvariantReport['committedAfterUncertain'] = {
    '503': 0,
    '504': 0,
    'network error': 0,
  };
  let strayFailure: string | undefined;
  let brokenPromise: string | undefined;
  const byTag = new Map(uncertain.map((u) => [u.tag, u]));
  const untied = new Map<string, UncertainRequest[]>();
  const tied = new Set<UncertainRequest>();
  for (const tx of unacknowledged) {
    const request = byTag.get(loggedTag.get(tx.id) || '');
    if (request) tied.add(request);
  }
  for (const u of uncertain) {
    if (tied.has(u)) continue;
    const same = untied.get(postingsText(u.postings)) ?? [];
    same.push(u);
    untied.set(postingsText(u.postings), same);
  }
  // Requests told "not committed" last, so they are taken only when nothing else matches.
  for (const same of untied.values())
    same.sort((a, b) => Number(b.declaredNotCommitted) - Number(a.declaredNotCommitted));
  for (const tx of unacknowledged) {
    const tag = loggedTag.get(tx.id);
    const request = tag ? byTag.get(tag) : untied.get(postingsText(tx.postings))?.pop();
    if (!request) {
      strayFailure ??= `transaction ${tx.id} [${postingsText(tx.postings)}]${tag ? ` (key ${tag})` : ''} was acknowledged to no client and matches no unanswered request`;
      continue;
    }
    committedAfterUncertain[request.outcome]++;
    if (request.declaredNotCommitted)
      brokenPromise ??= `transaction ${tx.id} committed although its request (tag ${request.tag}) was answered ${request.outcome} "not committed"`;
    if (postingsText(tx.postings) !== postingsText(request.postings)) {
      strayFailure ??= `transaction ${tx.id} (key ${tag}): sent [${postingsText(request.postings)}], listed [${postingsText(tx.postings)}]`;
    }
  }
  return { committedAfterUncertain, strayFailure, brokenPromise };
}

function firstSequenceBreak(ids: readonly number[], what: string): string | undefined {
  const at = ids.findIndex((id, i) => id !== i + 1);
  if (at < 0) return undefined;
  return `position ${at + 1}: expected ${what} ${at + 1}, found ${what} ${ids[at]} (${ids[at]! <= at ? 'duplicate or out of order' : 'gap'})`;
}

type Volumes = Map<string, Map<string, { input: bigint; output: bigint }>>;

function volumeOf(volumes: Volumes, account: string, asset: string) {
  let assets = volumes.get(account);
  if (!assets) {
    assets = new Map();
    volumes.set(account, assets);
  }
  let v = assets.get(asset);
  if (!v) {
    v = { input: 0n, output: 0n };
    assets.set(asset, v);
  }
  return v;
}

/** Replays the postings in id order; a transaction is atomic, so balances are checked after each one. */
function replayInOrder(txs: readonly ListedTransaction[]): {
  volumes: Volumes;
  overdraft?: string;
} {
  const volumes: Volumes = new Map();
  let overdraft: string | undefined;
  for (const tx of [...txs].sort((a, b) => a.id - b.id)) {
    for (const p of tx.postings) {
      volumeOf(volumes, p.source, p.asset).output += p.amount;
      volumeOf(volumes, p.destination, p.asset).input += p.amount;
    }
    for (const p of tx.postings) {
      const v = volumeOf(volumes, p.source, p.asset);
      if (overdraft === undefined && p.source !== UNBOUNDED && v.input < v.output) {
        overdraft = `after transaction ${tx.id}, ${p.source} holds ${v.input - v.output} ${p.asset}`;
      }
    }
  }
  return overdraft === undefined ? { volumes } : { volumes, overdraft };
}

function compareAccounts(accounts: readonly ListedAccount[], replay: Volumes): string | undefined {
  const seen = new Set<string>();
  for (const account of accounts) {
    seen.add(account.address);
    const replayed =
      replay.get(account.address) ?? new Map<string, { input: bigint; output: bigint }>();
    const assets = new Set([...Object.keys(account.volumes), ...replayed.keys()]);
    for (const asset of assets) {
      const shown = account.volumes[asset];
      const want = replayed.get(asset) ?? { input: 0n, output: 0n };
      const wantBalance = want.input - want.output;
      if (
        !shown ||
        shown.input !== want.input ||
        shown.output !== want.output ||
        shown.balance !== wantBalance
      ) {
        const got = shown
          ? `input ${shown.input}, output ${shown.output}, balance ${shown.balance}`
          : 'no volumes';
        return `${account.address} ${asset}: listed ${got}, replay gives input ${want.input}, output ${want.output}, balance ${wantBalance}`;
      }
    }
  }
  const missing = [...replay.keys()].find((a) => !seen.has(a));
  return missing === undefined ? undefined : `${missing} has postings but is not listed`;
}

function sumByAsset(volumes: Iterable<{ asset: string; balance: bigint }>): Map<string, bigint> {
  const sums = new Map<string, bigint>();
  for (const { asset, balance } of volumes) sums.set(asset, (sums.get(asset) ?? 0n) + balance);
  return sums;
}

function compareAggregate(aggregate: Record<string, bigint>, replay: Volumes): string | undefined {
  const replayed = sumByAsset(
    [...replay.values()].flatMap((assets) =>
      [...assets].map(([asset, v]) => ({ asset, balance: v.input - v.output })),
    ),
  );
  for (const asset of new Set([...Object.keys(aggregate), ...replayed.keys()])) {
    if (aggregate[asset] !== replayed.get(asset))
      return `${asset}: aggregate ${aggregate[asset] ?? 'absent'}, replay ${replayed.get(asset) ?? 'absent'}`;
  }
  return undefined;
}

/** Everything ever taken from the hot account is exactly the budget, it ends at zero, and every acknowledgement is part of that. */
function checkHotSpend(
  record: LoadRecord,
  txs: readonly ListedTransaction[],
  replay: Volumes,
  ackedIds: ReadonlySet<number>,
): InvariantResult {
  const { account, asset, budget } = record.hotSpend!;
  const spentBy = (list: Iterable<{ postings: SentPosting[] }>) => {
    let sum = 0n;
    for (const tx of list)
      for (const p of tx.postings) if (p.source === account && p.asset === asset) sum += p.amount;
    return sum;
  };
  const committed = spentBy(txs);
  const acknowledged = spentBy(record.acknowledged);
  const unanswered = spentBy(txs.filter((t) => !ackedIds.has(t.id)));
  const v = replay.get(account)?.get(asset);
  const balance = v ? v.input - v.output : 0n;
  const funded = v?.input ?? 0n;
  const name = 'hot-spend total equals the budget';
  const failure =
    funded !== budget
      ? `${account} was funded with ${funded}, not ${budget}`
      : committed !== budget
        ? `${committed} was spent from ${account}, budget ${budget}`
        : balance !== 0n
          ? `${account} ends at ${balance}`
          : acknowledged + unanswered !== committed
            ? `acknowledged ${acknowledged} + committed without answer ${unanswered} ≠ spent ${committed}`
            : undefined;
  return failure === undefined
    ? {
        name,
        ok: true,
        detail: `${budget} spent (${acknowledged} acknowledged, ${unanswered} without answer), balance 0`,
      }
    : { name, ok: false, detail: failure };
}
