/**
 * Issue #31 item 7: what a write with a balance precondition, a write that triggers a balance monitor, and a hold's
 * create, post and void cost beside a plain transaction — DynamoDB requests, read units, write units by DynamoDB's
 * rules, and in-process latency (the ledger app on DynamoDB Local, direct writes, warm container) — measured the
 * same way as the cost-per-operation section. Part of the full run; alone with BENCH_ONLY=beyond
 * (BENCH_BEYOND_REPETITIONS per cell, default 30).
 */
import type { Hono } from 'hono';
import { DEFAULT_AUTH_CONFIG } from '../infra/local/platform.js';
import { assembleLedgerApp } from '../lib/assembly/ledger-app.js';
import { createAuthApp } from '../lib/auth/app.js';
import { loadAuthConfig } from '../lib/auth/domain/static-clients.js';
import { platformConfigFromVariables, staticClientsSource } from '../lib/config/env.js';
import type { HonoTypes } from '../lib/http/types.js';
import { generatedDocuments } from '../lib/openapi/generated-documents.js';
import { createRuntime } from '../lib/runtime/runtime.js';
import { type DynamoMeter, installDynamoMeter } from './dynamo-meter.js';
import { benchVariables, localDynamoClient } from './environment.js';
import { checkPendingMoney, type PendingMoneyReport } from './pending-money.js';
import { type LatencySummary, round, summarise } from './stats.js';

export interface BeyondCell {
  operation: string;
  repetitions: number;
  /** Means per write over the repetitions (they are equal but for an item crossing a 1 KB block). */
  requests: number;
  readUnits: number;
  writeUnitsByRules: number;
  /** Each distinct per-write WRU by DynamoDB's rules, with how many writes cost it. */
  writeUnitsSeen: Record<string, number>;
  latency: LatencySummary;
}

export interface BeyondCostResult {
  source: string;
  cells: BeyondCell[];
  /** The money invariants over held money, on the holds ledger after its cells (absent in older results). */
  pendingMoney?: PendingMoneyReport;
}

const posting = (destination: string, amount = 1) => ({
  postings: [{ source: 'world', destination, amount, asset: 'USD/2' }],
});

const TX = 'beyond/transactions';

const HOLD = (timeout?: number) => ({
  postings: [{ source: 'card', destination: 'shop', amount: 1, asset: 'USD/2' }],
  ...(timeout !== undefined ? { timeout } : {}),
});

/** A write measured: its path and body, made by `setup` (not measured) when it needs something first. */
interface Measured {
  path: string;
  body?: unknown;
}

type Call = (path: string, body?: unknown) => Promise<string>;

/** A hold made (not measured) for a post or a void to resolve: its path. */
const heldPath = async (call: Call) => {
  const created = JSON.parse(await call('holds/pending', HOLD(3600))) as { data: { id: number } };
  return `holds/pending/${created.data.id}`;
};

/** Plain writes, with preconditions, with monitors. */
const PLAIN_CELLS: Array<{ operation: string; path: string; body: () => unknown }> = [
  {
    operation: 'plain transaction, 1 posting, existing accounts',
    path: TX,
    body: () => posting('users:a'),
  },
  {
    operation: 'the same with a precondition on the pair it credits',
    path: TX,
    body: () => ({
      ...posting('users:a'),
      expect: [{ account: 'users:a', asset: 'USD/2', balance: { $gte: 0 } }],
    }),
  },
  {
    operation: 'the same with a precondition on a pair it does not touch',
    path: TX,
    body: () => ({
      ...posting('users:a'),
      expect: [{ account: 'users:b', asset: 'USD/2', balance: { $eq: 1 } }],
    }),
  },
  {
    operation: 'plain transaction, ledger with 2 monitors, none triggered',
    path: 'monitored/transactions',
    body: () => posting('users:a'),
  },
  {
    operation: 'a transaction that triggers a monitor (`changes`)',
    path: 'monitored/transactions',
    body: () => posting('users:watched'),
  },
];

/** The cells, in the order of the report: plain, preconditions, monitors, holds. */
const CELLS: Array<{ operation: string; setup: (call: Call) => Promise<Measured> }> = [
  ...PLAIN_CELLS.map((c) => ({
    operation: c.operation,
    setup: async () => ({ path: c.path, body: c.body() }),
  })),
  {
    operation: 'plain transaction, ledger with PENDING_TRANSFERS (held items read too)',
    setup: async () => ({ path: 'holds/transactions', body: posting('users:a') }),
  },
  {
    operation: 'hold created, 1 posting, no expiry',
    setup: async () => ({ path: 'holds/pending', body: HOLD() }),
  },
  {
    operation: 'hold created with an expiry (on the due indexes)',
    setup: async () => ({ path: 'holds/pending', body: HOLD(3600) }),
  },
  {
    operation: 'hold (with an expiry) posted in full: a transaction, the hold resolved',
    setup: async (call) => ({ path: `${await heldPath(call)}/post`, body: {} }),
  },
  {
    operation: 'hold (with an expiry) voided',
    setup: async (call) => ({ path: `${await heldPath(call)}/void` }),
  },
];

/** The ledgers: `beyond` without a mapping item, `monitored` with two monitors, `holds` with pending transfers. */
async function prepare(call: Call): Promise<void> {
  await call('beyond');
  await call('beyond/transactions', posting('users:b'));
  await call('holds', { features: { PENDING_TRANSFERS: 'ON' } });
  await call('holds/transactions', {
    postings: [{ source: 'world', destination: 'card', amount: 1_000_000, asset: 'USD/2' }],
  });
  // Monitors: a ledger of their own, so the first cells run without a mapping item.
  await call('monitored');
  await call('monitored/monitors', {
    account: 'users:*',
    asset: 'USD/2',
    condition: { type: 'below', amount: -1_000_000 },
  });
  await call('monitored/monitors', {
    account: 'users:watched',
    asset: 'USD/2',
    condition: { type: 'changes' },
  });
}

/**
 * The meter is the process's one (installDynamoMeter): its sizer — this part's client of this DynamoDB Local — is
 * taken back and closed however the part ends. Left set, every later metered TransactWriteItems of the run (the
 * ledger matrix's, on DynamoDB Locals of their own) would size its items through it, against this DynamoDB Local
 * long stopped: the full run's ECONNREFUSED at the start of the next part.
 */
export async function measureBeyondCosts(
  dynamoEndpoint: string,
  sqsEndpoint: string,
  repetitions: number,
): Promise<BeyondCostResult> {
  const meter = installDynamoMeter();
  const sizer = localDynamoClient(dynamoEndpoint);
  meter.sizer = sizer;
  try {
    return await measureCells(dynamoEndpoint, sqsEndpoint, repetitions, meter);
  } finally {
    meter.sizer = undefined;
    sizer.destroy();
  }
}

async function measureCells(
  dynamoEndpoint: string,
  sqsEndpoint: string,
  repetitions: number,
  meter: DynamoMeter,
): Promise<BeyondCostResult> {
  const env = await benchVariables(dynamoEndpoint, sqsEndpoint, 'bench-beyond-');
  const runtime = createRuntime(platformConfigFromVariables(env));
  const auth = createAuthApp({
    runtime,
    documents: generatedDocuments,
    authConfig: loadAuthConfig(staticClientsSource({ AUTH_CONFIG: DEFAULT_AUTH_CONFIG }), 'local'),
  });
  const ledger = assembleLedgerApp(runtime, { documents: generatedDocuments });
  const token = await adminToken(auth);
  const call: Call = async (path, body) => {
    const res = await ledger.request(`/api/ledger/v2/${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`POST ${path} answered ${res.status}: ${text}`);
    return text;
  };
  await prepare(call);
  const cells = CELLS;
  // Warm: the pairs exist, the mapping is cached, the code paths are compiled.
  for (const cell of cells)
    for (let i = 0; i < 5; i++) {
      const { path, body } = await cell.setup(call);
      await call(path, body);
    }
  const totals = cells.map(() => ({
    samples: [] as number[],
    requests: 0,
    readUnits: 0,
    writeUnits: 0,
    seen: {} as Record<string, number>,
  }));
  // Round robin, one write per cell in turn: a machine's load drifts over the run, not into one cell.
  for (let i = 0; i < repetitions; i++)
    for (const [n, cell] of cells.entries()) {
      const { path, body } = await cell.setup(call);
      meter.reset();
      const started = performance.now();
      await call(path, body);
      const total = totals[n]!;
      total.samples.push(performance.now() - started);
      const s = meter.summary();
      total.requests += s.requests;
      total.readUnits += s.readUnits;
      total.writeUnits += s.writeUnitsByRules;
      total.seen[s.writeUnitsByRules] = (total.seen[s.writeUnitsByRules] ?? 0) + 1;
    }
  const get = async (path: string) => {
    const res = await ledger.request(`/api/ledger/v2/${path}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (res.status !== 200)
      throw new Error(`GET ${path} answered ${res.status}: ${await res.text()}`);
    return res.json();
  };
  const pendingMoney = await checkPendingMoney(get, 'holds', ['world', 'card', 'shop', 'users:a']);
  return {
    pendingMoney,
    source:
      'In-process ledger app on DynamoDB Local (direct writes, warm container); units by DynamoDB rules as in section 2',
    cells: cells.map((cell, n) => {
      const t = totals[n]!;
      return {
        operation: cell.operation,
        repetitions,
        requests: round(t.requests / repetitions, 2),
        readUnits: round(t.readUnits / repetitions, 2),
        writeUnitsByRules: round(t.writeUnits / repetitions, 2),
        writeUnitsSeen: t.seen,
        latency: summarise(t.samples),
      };
    }),
  };
}

async function adminToken(auth: Hono<HonoTypes>): Promise<string> {
  const res = await auth.request('/api/auth/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: 'local-dev',
      client_secret: 'local-dev-secret',
    }).toString(),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`token request answered ${res.status}`);
  return body.access_token;
}

export function renderBeyondCosts(r: BeyondCostResult): string {
  const rows = r.cells.map(
    (c) =>
      `| ${c.operation} | ${c.requests} | ${c.readUnits} | ${c.writeUnitsByRules} (${Object.entries(
        c.writeUnitsSeen,
      )
        .map(([wru, n]) => `${wru}×${n}`)
        .join(', ')}) | ${c.latency.p50Ms} | ${c.latency.p99Ms} |`,
  );
  return [
    '## Beyond the reference ledger: preconditions, monitors and holds (#31 item 7)',
    '',
    `${r.source}; ${r.cells[0]?.repetitions ?? 0} writes per cell, means per write.`,
    '',
    '| Operation | DynamoDB requests | RRU | WRU by DynamoDB rules (per write × writes) | p50 ms | p99 ms |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    ...(r.pendingMoney ? [renderPendingMoney(r.pendingMoney), ''] : []),
  ].join('\n');
}

function renderPendingMoney(p: PendingMoneyReport): string {
  const verdict = p.ok ? 'held' : `**FAILED**: ${p.failures.join('; ')}`;
  return `Money invariants over held money, read back through the API on the holds ledger after its cells (posted balances sum to 0, pendingIn/pendingOut equal the open holds' remaining amounts, available = posted − pendingOut ≥ 0): ${verdict}; ${p.openHolds} holds open, ${p.heldTotal} held.`;
}
