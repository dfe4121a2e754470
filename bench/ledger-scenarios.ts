/**
 * The ledger write-path load scenarios: closed-loop clients over HTTP, each scenario on its own fresh ledger.
 * Requests carry no Idempotency-Key, as the issue's load check sent none: an acknowledged transaction is tied to
 * its request by the id answered, one without an answer by its postings (ledger-invariants.ts). With `keyed`, each
 * request is sent with a unique key (so a client could retry; none does here: a retry would hide the answer being
 * measured), which costs each commit an idempotency record per request. Every acknowledged transaction and every
 * request left without a definite answer (503, 504, network error) is recorded for the invariant checker.
 *
 * - world-to-any: `world → users:<one of 1000>`, small amounts.
 * - any-to-any: 200 funded accounts, then random transfers between them; one in ten asks for more than all the
 *   users hold together, so it must be refused with 400 INSUFFICIENT_FUND whatever the order of commits.
 * - hot-pair: `world → bank` on every transaction, the reference's worst case (one pair of volumes, every write).
 * - hot-spend: one account funded with exactly the budget, every client spending small amounts from it until
 *   a refusal at amount 1 shows it is empty.
 * - bulk-any-to-any: the any-to-any accounts, each request an atomic bulk of BULK_SIZE transfers between them
 *   (the reference v3 benchmark's shape); tx/s counts elements.
 */
import { parseJson } from '../lib/json/bigint-json.js';
import { callJson, expectOk } from './http.js';
import type { LoadRecord, SentPosting, UncertainRequest } from './ledger-invariants.js';
import type { LedgerTarget } from './ledger-snapshot.js';
import { type LatencySummary, round, summarise } from './stats.js';

export const SCENARIO_NAMES = ['world-to-any', 'any-to-any', 'hot-pair', 'hot-spend'] as const;
/** Run beside the matrix's scenarios, at BULK_CLIENTS only, on the embedded default (its target is there). */
export const BULK_SCENARIO = 'bulk-any-to-any';
export const BULK_CLIENTS = 32;
const BULK_SIZE = 50;
export type ScenarioName = (typeof SCENARIO_NAMES)[number] | typeof BULK_SCENARIO;

export const ASSET = 'USD/2';
const WORLD_TO_ANY_ACCOUNTS = 1000;
const ANY_TO_ANY_ACCOUNTS = 200;
const ANY_TO_ANY_FUNDING = 10_000n;
const OVERDRAW_SHARE = 0.1;
const HOT_ACCOUNT = 'hot:wallet';
/** hot-spend stops after this many requests per unit of budget even if never refused: a hang would be worse than a failed invariant. */
const HOT_SPEND_REQUEST_CAP = 4;
/**
 * How a 503 says the write did not commit (the write path's contract): such an answer whose transaction
 * exists anyway is an invariant failure, where other 503s are only counted.
 */
const NOT_COMMITTED = /not committed/i;

export type StopRule = { seconds: number } | { requests: number };

export interface ScenarioParams {
  clients: number;
  stop: StopRule;
  /** hot-spend: the exact amount the hot account is funded with. */
  hotSpendBudget: bigint;
  /** Each request sent with its tag as a unique Idempotency-Key (an idempotency record per request in the commit). */
  keyed?: boolean;
}

export interface ScenarioRun extends LatencySummary {
  scenario: ScenarioName;
  ledger: string;
  clients: number;
  durationS: number;
  requests: number;
  committed: number;
  committedPerSec: number;
  /** Answers of the timed phase by status key; the set-up's are all 200 or the run fails. */
  statuses: Record<string, number>;
  record: LoadRecord;
}

const randomInt = (n: number) => Math.floor(Math.random() * n);
const transfer = (source: string, destination: string, amount: bigint): SentPosting[] => [
  { source, destination, asset: ASSET, amount },
];

/** What one request came to, from a client's point of view. */
type Answer =
  | { kind: 'committed' }
  | { kind: 'refused'; key: string }
  | { kind: 'uncertain' }
  | { kind: 'other' };

/** Everything the clients of one phase saw. */
class Tally {
  readonly latencies: number[] = [];
  readonly statuses: Record<string, number> = {};
  readonly acknowledged: LoadRecord['acknowledged'] = [];
  readonly uncertain: UncertainRequest[] = [];
  requests = 0;

  count(key: string): void {
    this.statuses[key] = (this.statuses[key] ?? 0) + 1;
  }
}

/** The status key of an answer: 400s by errorCode, the statuses the write path is expected to give by number. */
function statusKey(status: number, body: unknown): string {
  if (status === 400)
    return `400 ${(body as { errorCode?: string } | undefined)?.errorCode ?? 'without errorCode'}`;
  if (status >= 200 && status < 300) return String(status);
  return [409, 429, 503, 504].includes(status) ? String(status) : `other ${status}`;
}

/** A request's transaction body. */
function transactionBody(postings: SentPosting[]) {
  // The request body takes JSON numbers; the amounts here are small, so Number is exact.
  return { postings: postings.map((p) => ({ ...p, amount: Number(p.amount) })) };
}

async function send(
  target: LedgerTarget,
  ledger: string,
  tag: string,
  postings: SentPosting[],
  tally: Tally,
  keyed: boolean,
): Promise<Answer> {
  tally.requests++;
  let res;
  try {
    res = await callJson<{ data?: { id: bigint }; errorCode?: string; errorMessage?: string }>(
      target.baseUrl,
      target.token,
      'POST',
      `/api/ledger/v2/${ledger}/transactions`,
      transactionBody(postings),
      {
        ...(keyed ? { headers: { 'Idempotency-Key': tag } } : {}),
        parse: parseJson,
      },
    );
  } catch {
    tally.count('network error');
    tally.uncertain.push({ tag, outcome: 'network error', declaredNotCommitted: false, postings });
    return { kind: 'uncertain' };
  }
  const key = statusKey(res.status, res.body);
  tally.count(key);
  if (res.status >= 200 && res.status < 300) {
    tally.latencies.push(res.ms);
    tally.acknowledged.push({ id: Number(res.body.data!.id), tag, postings });
    return { kind: 'committed' };
  }
  if (res.status === 503 || res.status === 504) {
    tally.uncertain.push({
      tag,
      outcome: res.status === 503 ? '503' : '504',
      declaredNotCommitted: res.status === 503 && NOT_COMMITTED.test(res.body?.errorMessage ?? ''),
      postings,
    });
    return { kind: 'uncertain' };
  }
  return res.status >= 400 && res.status < 500 ? { kind: 'refused', key } : { kind: 'other' };
}

/** Sends each request as one transaction. */
const singles =
  (target: LedgerTarget, ledger: string, tally: Tally, keyed = false) =>
  (tag: string, postings: SentPosting[]) =>
    send(target, ledger, tag, postings, tally, keyed);

/**
 * `clients` closed loops: each asks `next` for its next postings (undefined: this client is done) and sends them
 * as soon as the previous answer is in, until the stop rule says the phase is over.
 */
async function closedLoop<R = SentPosting[]>(
  ledger: string,
  phase: string,
  clients: number,
  stop: StopRule,
  next: (client: number, last: Answer | undefined) => R | undefined,
  sender: (tag: string, request: R) => Promise<Answer>,
): Promise<number> {
  const start = performance.now();
  const end = 'seconds' in stop ? start + stop.seconds * 1000 : Infinity;
  let issued = 0;
  const more = () => ('requests' in stop ? issued < stop.requests : performance.now() < end);
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      let last: Answer | undefined;
      for (let n = 0; more(); n++) {
        const postings = next(client, last);
        if (!postings) return;
        issued++;
        last = await sender(`${ledger}-${phase}-c${client}-${n}`, postings);
      }
    }),
  );
  return (performance.now() - start) / 1000;
}

/** any-to-any's funding: every account of the scenario from world. */
const anyToAnyFundings = () =>
  Array.from({ length: ANY_TO_ANY_ACCOUNTS }, (_, i) =>
    transfer('world', `users:${i}`, ANY_TO_ANY_FUNDING),
  );

/** A transfer between two distinct any-to-any accounts; `overdraw`: more than all of them hold together. */
function anyToAnyTransfer(overdraw: boolean): SentPosting[] {
  const source = randomInt(ANY_TO_ANY_ACCOUNTS);
  const destination = (source + 1 + randomInt(ANY_TO_ANY_ACCOUNTS - 1)) % ANY_TO_ANY_ACCOUNTS;
  const unpayable = ANY_TO_ANY_FUNDING * BigInt(ANY_TO_ANY_ACCOUNTS) + 1n;
  return transfer(
    `users:${source}`,
    `users:${destination}`,
    overdraw ? unpayable : BigInt(1 + randomInt(100)),
  );
}

/**
 * One atomic bulk of transfers, each element tagged `<tag>-<index>` (sent as its element key `ik` when `keyed`):
 * committed, every element is acknowledged with the bulk's latency; without a definite answer, every element is
 * uncertain.
 */
async function sendBulk(
  target: LedgerTarget,
  ledger: string,
  tag: string,
  elements: SentPosting[][],
  tally: Tally,
  keyed: boolean,
): Promise<Answer> {
  tally.requests++;
  const tagOf = (i: number) => `${tag}-${i}`;
  const body = elements.map((postings, i) => ({
    action: 'CREATE_TRANSACTION',
    ...(keyed ? { ik: tagOf(i) } : {}),
    data: transactionBody(postings),
  }));
  type Result = { data?: { id: bigint }; errorCode?: string };
  let res;
  try {
    res = await callJson<{ data?: Result[]; errorMessage?: string }>(
      target.baseUrl,
      target.token,
      'POST',
      `/api/ledger/v2/${ledger}/_bulk?atomic=true`,
      body,
      { parse: parseJson },
    );
  } catch {
    res = undefined;
  }
  if (res && res.status >= 200 && res.status < 300) {
    tally.count(String(res.status));
    res.body.data!.forEach((r, i) => {
      tally.latencies.push(res.ms);
      tally.acknowledged.push({
        id: Number(r.data!.id),
        tag: tagOf(i),
        postings: elements[i]!,
      });
    });
    return { kind: 'committed' };
  }
  const failed = res?.body.data?.find((r) => r.errorCode)?.errorCode;
  const answer = res
    ? failed
      ? `400 ${failed}`
      : statusKey(res.status, res.body)
    : 'network error';
  tally.count(answer);
  if (res && res.status !== 503 && res.status !== 504)
    return res.status >= 400 && res.status < 500
      ? { kind: 'refused', key: answer }
      : { kind: 'other' };
  for (const [i, postings] of elements.entries())
    tally.uncertain.push({
      tag: tagOf(i),
      outcome: !res ? 'network error' : res.status === 503 ? '503' : '504',
      declaredNotCommitted: res?.status === 503 && NOT_COMMITTED.test(res.body?.errorMessage ?? ''),
      postings,
    });
  return { kind: 'uncertain' };
}

/** Set-up writes (funding) must all be acknowledged: the timed phase depends on them. */
function requireAllCommitted(tally: Tally, what: string): void {
  const failed = Object.entries(tally.statuses).filter(([key]) => key !== '200');
  if (failed.length) throw new Error(`${what}: ${failed.map(([k, n]) => `${n}× ${k}`).join(', ')}`);
}

async function fund(
  target: LedgerTarget,
  ledger: string,
  clients: number,
  fundings: SentPosting[][],
  setup: Tally,
): Promise<void> {
  const queue = [...fundings];
  await closedLoop(
    ledger,
    'fund',
    clients,
    { requests: fundings.length },
    () => queue.shift(),
    singles(target, ledger, setup),
  );
  requireAllCommitted(setup, `${ledger} funding`);
}

export async function runScenario(
  target: LedgerTarget,
  scenario: ScenarioName,
  ledger: string,
  params: ScenarioParams,
): Promise<ScenarioRun> {
  expectOk(
    await callJson(target.baseUrl, target.token, 'POST', `/api/ledger/v2/${ledger}`),
    `create ledger ${ledger}`,
  );
  const setup = new Tally();
  const timed = new Tally();
  let expectedRefusals: string[] = [];
  let hotSpend: LoadRecord['hotSpend'];
  let elapsed: number;

  const keyed = params.keyed ?? false;
  const single = singles(target, ledger, timed, keyed);
  const load = (next: () => SentPosting[]) =>
    closedLoop(ledger, 'load', params.clients, params.stop, next, single);

  if (scenario === 'world-to-any') {
    elapsed = await load(() =>
      transfer('world', `users:${randomInt(WORLD_TO_ANY_ACCOUNTS)}`, BigInt(1 + randomInt(100))),
    );
  } else if (scenario === 'hot-pair') {
    elapsed = await load(() => transfer('world', 'bank', BigInt(1 + randomInt(100))));
  } else if (scenario === BULK_SCENARIO) {
    await fund(target, ledger, params.clients, anyToAnyFundings(), setup);
    expectedRefusals = ['400 INSUFFICIENT_FUND'];
    elapsed = await closedLoop(
      ledger,
      'load',
      params.clients,
      params.stop,
      () => Array.from({ length: BULK_SIZE }, () => anyToAnyTransfer(false)),
      (tag, elements) => sendBulk(target, ledger, tag, elements, timed, keyed),
    );
  } else if (scenario === 'any-to-any') {
    await fund(target, ledger, params.clients, anyToAnyFundings(), setup);
    expectedRefusals = ['400 INSUFFICIENT_FUND'];
    elapsed = await load(() => anyToAnyTransfer(Math.random() < OVERDRAW_SHARE));
  } else {
    const budget = params.hotSpendBudget;
    await fund(target, ledger, 1, [transfer('world', HOT_ACCOUNT, budget)], setup);
    hotSpend = { account: HOT_ACCOUNT, asset: ASSET, budget };
    expectedRefusals = ['400 INSUFFICIENT_FUND'];
    // Each client draws amounts up to its ceiling; a refusal halves the ceiling, and a refusal at 1 means the
    // account was empty, which it stays (nothing pays into it): that client is done.
    const ceiling = Array.from({ length: params.clients }, () => 5);
    elapsed = await closedLoop(
      ledger,
      'spend',
      params.clients,
      { requests: Number(budget) * HOT_SPEND_REQUEST_CAP },
      (client, last) => {
        if (last?.kind === 'refused') {
          if (ceiling[client] === 1) return undefined;
          ceiling[client] = Math.max(1, Math.floor(ceiling[client]! / 2));
        }
        return transfer(
          HOT_ACCOUNT,
          `shops:${randomInt(100)}`,
          BigInt(1 + randomInt(ceiling[client]!)),
        );
      },
      single,
    );
  }

  const committed = timed.latencies.length;
  return {
    scenario,
    ledger,
    clients: params.clients,
    durationS: round(elapsed, 1),
    requests: timed.requests,
    committed,
    committedPerSec: round(committed / elapsed, 1),
    ...summarise(timed.latencies),
    statuses: timed.statuses,
    record: {
      acknowledged: [...setup.acknowledged, ...timed.acknowledged],
      uncertain: [...setup.uncertain, ...timed.uncertain],
      statuses: timed.statuses,
      expectedRefusals,
      ...(hotSpend ? { hotSpend } : {}),
    },
  };
}
