/**
 * Do acknowledged writes survive a crash of `npm start`?
 *
 * Each round starts `npm start` in a process group of its own on one DATA_DIR, sends a burst of concurrent
 * writes (ledger transactions and payments), SIGKILLs the whole process group right after the first payment's answer
 * that brings the acknowledged count to a random target (other requests are still in flight), and the next start
 * on the same DATA_DIR checks that every acknowledged transaction and payment is there, and that the ledger's
 * next id lies past every id a client was given.
 *
 *   npx tsx bench/crash-durability.ts [--rounds 20] [--concurrency 16] [--min-acks 40] [--max-acks 400]
 *
 * test/local/crash-durability.test.ts runs a few rounds of the same.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from '../infra/local/free-port.js';

const REPO_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const LEDGER = 'crash';

export interface CrashOptions {
  dataDir: string;
  rounds: number;
  concurrency: number;
  minAcks: number;
  maxAcks: number;
  log?: (line: string) => void;
}

export interface RoundResult {
  round: number;
  acknowledgedTransactions: number;
  acknowledgedPayments: number;
  missingTransactions: number[];
  missingPayments: string[];
  /** The id the ledger gave the first transaction after the restart, and the highest id acknowledged before. */
  nextId: number;
  maxAcknowledgedId: number;
}

interface Platform {
  child: ChildProcess;
  baseUrl: string;
  exited: Promise<void>;
}

/** `npm start` as a user runs it, in a process group of its own so the whole tree can be killed at once. */
async function startPlatform(dataDir: string): Promise<Platform> {
  const port = await freePort();
  const child = spawn('npm', ['start', '--silent'], {
    cwd: REPO_ROOT,
    detached: true,
    env: {
      ...process.env,
      PORT: String(port),
      S3_PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((r) => child.once('close', () => r()));
  let output = '';
  await new Promise<void>((ready, fail) => {
    const onData = (d: Buffer) => {
      output = (output + d.toString()).slice(-8000);
      if (output.includes('platform ready at')) ready();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-8000)));
    void exited.then(() => fail(new Error(`npm start exited before it was ready:\n${output}`)));
  });
  child.stdout!.resume();
  child.stderr!.resume();
  return { child, baseUrl: `http://127.0.0.1:${port}`, exited };
}

function killGroup(platform: Platform, signal: NodeJS.Signals): void {
  try {
    process.kill(-platform.child.pid!, signal);
  } catch {
    // already gone
  }
}

async function token(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/api/auth/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: 'local-dev',
      client_secret: 'local-dev-secret',
    }),
  });
  if (res.status !== 200) throw new Error(`token request answered ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function call(
  baseUrl: string,
  bearer: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const transaction = (n: number) => ({
  postings: [{ source: 'world', destination: `users:u${n % 50}`, amount: 1, asset: 'USD/2' }],
});
const payment = (reference: string) => ({
  reference,
  connectorID: 'bank-1',
  type: 'PAYOUT',
  amount: 1,
  asset: 'EUR/2',
  scheme: 'SEPA_CREDIT',
  createdAt: '2026-11-22T10:04:05Z',
});

/**
 * The burst: `concurrency` loops alternating ledger transactions and payments. The answer that makes the
 * acknowledged count reach `killAt` SIGKILLs the process group before anything else runs.
 */
async function burst(
  platform: Platform,
  bearer: string,
  round: number,
  concurrency: number,
  killAt: number,
) {
  const transactions: number[] = [];
  const payments: string[] = [];
  let killed = false;
  let sent = 0;
  // On a payment's answer: the payments app runs in the gateway's process, so its answer follows its write
  // most closely (a ledger answer comes through a worker process, a little later).
  const acknowledged = (kind: 'transaction' | 'payment') => {
    if (!killed && kind === 'payment' && transactions.length + payments.length >= killAt) {
      killed = true;
      killGroup(platform, 'SIGKILL');
    }
  };
  const loop = async (worker: number) => {
    for (let i = 0; !killed; i++) {
      const n = sent++;
      try {
        if ((worker + i) % 2 === 0) {
          const res = await call(
            platform.baseUrl,
            bearer,
            'POST',
            `/api/ledger/v2/${LEDGER}/transactions`,
            transaction(n),
          );
          if (killed) return; // answered, but read after the kill: not counted (it may or may not be there)
          if (res.status !== 200)
            throw new Error(`transaction answered ${res.status}: ${JSON.stringify(res.body)}`);
          transactions.push(Number(res.body.data.id));
          acknowledged('transaction');
        } else {
          const res = await call(
            platform.baseUrl,
            bearer,
            'POST',
            '/api/payments/v3/payments',
            payment(`r${round}-${n}`),
          );
          if (killed) return;
          if (res.status !== 201 && res.status !== 200)
            throw new Error(`payment answered ${res.status}: ${JSON.stringify(res.body)}`);
          payments.push(String(res.body.data.id));
          acknowledged('payment');
        }
      } catch (err) {
        if (killed) return; // a request cut by the kill
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, w) => loop(w)));
  return { transactions, payments };
}

/** Which of these are missing: ledger transactions by id, payments by id (8 reads at a time). */
async function missing(
  baseUrl: string,
  bearer: string,
  transactions: number[],
  payments: string[],
) {
  const absentTransactions: number[] = [];
  const absentPayments: string[] = [];
  const checks = [
    ...transactions.map((id) => async () => {
      const res = await call(baseUrl, bearer, 'GET', `/api/ledger/v2/${LEDGER}/transactions/${id}`);
      if (res.status === 404) absentTransactions.push(id);
      else if (res.status !== 200 || Number(res.body.data.id) !== id)
        throw new Error(`GET transaction ${id} answered ${res.status}`);
    }),
    ...payments.map((id) => async () => {
      const res = await call(
        baseUrl,
        bearer,
        'GET',
        `/api/payments/v3/payments/${encodeURIComponent(id)}`,
      );
      if (res.status === 404) absentPayments.push(id);
      else if (res.status !== 200 || res.body.data.id !== id)
        throw new Error(`GET payment ${id} answered ${res.status}`);
    }),
  ];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let check = checks.shift(); check; check = checks.shift()) await check();
    }),
  );
  return { absentTransactions: absentTransactions.sort((a, b) => a - b), absentPayments };
}

export async function runCrashRounds(options: CrashOptions): Promise<RoundResult[]> {
  const log = options.log ?? (() => undefined);
  const results: RoundResult[] = [];
  let platform = await startPlatform(options.dataDir);
  try {
    let bearer = await token(platform.baseUrl);
    const created = await call(platform.baseUrl, bearer, 'POST', `/api/ledger/v2/${LEDGER}`);
    if (created.status !== 204) throw new Error(`creating the ledger answered ${created.status}`);
    for (let round = 1; round <= options.rounds; round++) {
      const killAt =
        options.minAcks + Math.floor(Math.random() * (options.maxAcks - options.minAcks + 1));
      const acked = await burst(platform, bearer, round, options.concurrency, killAt);
      await platform.exited;
      platform = await startPlatform(options.dataDir);
      bearer = await token(platform.baseUrl);
      const { absentTransactions, absentPayments } = await missing(
        platform.baseUrl,
        bearer,
        acked.transactions,
        acked.payments,
      );
      const next = await call(
        platform.baseUrl,
        bearer,
        'POST',
        `/api/ledger/v2/${LEDGER}/transactions`,
        transaction(0),
      );
      if (next.status !== 200)
        throw new Error(`the first transaction after the restart answered ${next.status}`);
      const result: RoundResult = {
        round,
        acknowledgedTransactions: acked.transactions.length,
        acknowledgedPayments: acked.payments.length,
        missingTransactions: absentTransactions,
        missingPayments: absentPayments,
        nextId: Number(next.body.data.id),
        maxAcknowledgedId: Math.max(-1, ...acked.transactions),
      };
      results.push(result);
      log(
        `round ${round}: acknowledged ${result.acknowledgedTransactions} transactions, ${result.acknowledgedPayments} payments; ` +
          `missing ${absentTransactions.length} (${absentTransactions.join(',')}), ${absentPayments.length} payments; ` +
          `next id ${result.nextId} after max acknowledged ${result.maxAcknowledgedId}`,
      );
    }
  } finally {
    killGroup(platform, 'SIGTERM');
    await platform.exited;
  }
  return results;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '20' },
      concurrency: { type: 'string', default: '16' },
      'min-acks': { type: 'string', default: '40' },
      'max-acks': { type: 'string', default: '400' },
    },
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'crash-durability-'));
  try {
    const results = await runCrashRounds({
      dataDir,
      rounds: Number(values.rounds),
      concurrency: Number(values.concurrency),
      minAcks: Number(values['min-acks']),
      maxAcks: Number(values['max-acks']),
      log: (line) => process.stdout.write(`${line}\n`),
    });
    const sum = (f: (r: RoundResult) => number) => results.reduce((a, r) => a + f(r), 0);
    const lost = sum((r) => r.missingTransactions.length + r.missingPayments.length);
    const reissued = results.filter((r) => r.nextId <= r.maxAcknowledgedId).length;
    process.stdout.write(
      `\n${results.length} rounds: ${sum((r) => r.acknowledgedTransactions)} transactions and ${sum((r) => r.acknowledgedPayments)} payments acknowledged; ` +
        `${sum((r) => r.missingTransactions.length)} transactions and ${sum((r) => r.missingPayments.length)} payments missing after restart; ` +
        `${reissued} rounds re-issued an acknowledged id\n`,
    );
    process.exitCode = lost > 0 || reissued > 0 ? 1 : 0;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
