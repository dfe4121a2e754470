import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { startTestPlatform } from '../support/platform.js';
import { readmeBlock, runBash } from '../support/readme.js';

/**
 * The guides' walkthroughs (docs/guides), run verbatim with bash, curl and jq against one local platform, in the
 * order a reader meets them: the one line `BASE=http://127.0.0.1:8080` (or the URL of `_metrics`) pointed at this
 * platform, and the variables a guide says it continues with (`$BASE`, `$TOKEN`) as the guide before it leaves
 * them. Each story is one bash run, as one terminal is.
 */
let platform: RunningPlatform;
const LOCAL = 'http://127.0.0.1:8080';

beforeAll(async () => {
  platform = await startTestPlatform();
});

afterAll(async () => {
  await platform?.stop();
});

/**
 * What a run printed, with what differs from run to run named instead: this platform's URL, times, generated ids
 * and secrets, and the response headers that carry a date or a request id.
 */
function stable(out: string): string {
  return out
    .split('\n')
    .filter((line) => !/^(date|apigw-requestid|x-request-id|connection|keep-alive):/i.test(line))
    .join('\n')
    .replaceAll(platform.baseUrl, '$BASE')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    .replace(/whsec_[A-Za-z0-9+/=]+/g, 'whsec_<secret>');
}

/** The blocks joined into one script, with the local URL replaced by this platform's (it must be there once). */
function story(names: string[]): string {
  const script = names.map(readmeBlock).join('\n');
  expect(script.split(LOCAL)).toHaveLength(2);
  return script.replace(LOCAL, platform.baseUrl);
}

describe('guides, run as written', () => {
  it('clients and tokens, then the ledger: transfers, balances, reverts, point in time, contracts, Numscript', async () => {
    const out = await runBash(
      story(['auth', 'ledger', 'ledger-pit', 'ledger-mapping', 'numscript']),
      {},
    );
    expect(stable(out)).toMatchInlineSnapshot(`
      "$BASE/api/auth/oauth/token
      HTTP/1.1 204 No Content

      [
        {
          "id": 1,
          "name": "main",
          "bucket": "_default",
          "metadata": {},
          "features": {
            "ACCOUNT_METADATA_HISTORY": "SYNC",
            "TRANSACTION_METADATA_HISTORY": "SYNC",
            "HASH_LOGS": "SYNC",
            "INDEX_ADDRESS_SEGMENTS": "ON",
            "INDEX_TRANSACTION_ACCOUNTS": "ON",
            "MOVES_HISTORY": "ON",
            "MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES": "SYNC",
            "INDEX_ACCOUNT_BALANCES": "OFF",
            "PENDING_TRANSFERS": "OFF"
          },
          "addedAt": "<time>"
        }
      ]
      HTTP/1.1 401 Unauthorized
      content-type: application/json
      www-authenticate: Bearer error="invalid_token", error_description="missing bearer token"
      Content-Length: 66

      {"errorCode":"UNAUTHORIZED","errorMessage":"missing bearer token"}2
      {"errorCode":"INSUFFICIENT_FUND","errorMessage":"account \\"users:alice\\" has insufficient funds for posting 0 (999999 USD/2): balance would be -992499"} 400
      {"USD/2":{"input":10000,"output":2500,"balance":7500}}
      {"USD/2":0}
      [{"source":"merchants:acme","destination":"users:alice","amount":2500,"asset":"USD/2"}]
      [3,2,1]
      ok: 3 log entries verified
      {"USD/2":{"input":10000,"output":0,"balance":10000}}
      [1]
      "users:*"
      [3,2,1]
      [
        {
          "source": "users:alice",
          "destination": "platform:fees",
          "amount": 50,
          "asset": "USD/2"
        },
        {
          "source": "users:alice",
          "destination": "merchants:acme",
          "amount": 1949,
          "asset": "USD/2"
        }
      ]
      "
    `);
  });

  it('payments', async () => {
    const out = await runBash(readmeBlock('payments'), { BASE: platform.baseUrl });
    expect(stable(out)).toMatchInlineSnapshot(`
      "{
        "id": "2lx2PkvIdmxonpCUl3MO2U40od787tbm-V0t3xV_Y6M",
        "connectorID": "bank-1",
        "provider": "bank-1",
        "reference": "po-0001",
        "createdAt": "<time>",
        "type": "PAYOUT",
        "status": "PENDING",
        "scheme": "SEPA_CREDIT",
        "asset": "EUR/2",
        "amount": 250000,
        "initialAmount": 250000,
        "metadata": {
          "invoice": "INV-1"
        }
      }
      "SUCCEEDED"
      "2lx2PkvIdmxonpCUl3MO2U40od787tbm-V0t3xV_Y6M"
      "
    `);
  });

  it('webhook configurations', async () => {
    const out = await runBash(readmeBlock('webhook-configs'), { BASE: platform.baseUrl });
    expect(stable(out)).toMatchInlineSnapshot(`
      "{
        "id": "<uuid>",
        "active": true
      }
      {
        "id": "<uuid>",
        "name": "ledger feed",
        "endpoint": "https://hooks.example.com/ledger",
        "eventTypes": [
          "ledger.committed_transactions",
          "payments.saved_payment"
        ],
        "secret": "whsec_<secret>",
        "active": true,
        "createdAt": "<time>",
        "updatedAt": "<time>"
      }
      false
      true
      whsec_<secret>
      "
    `);
  });

  it('metrics', async () => {
    const out = await runBash(story(['metrics']), {});
    // What the stories before this one did, counted: the guide's example lines are of this form.
    expect(out.split('\n')).toEqual(
      expect.arrayContaining([
        'platform_http_requests_total{service="auth",route="POST /api/auth/oauth/token",status_class="2xx"} 4',
        'platform_http_requests_total{service="ledger",route="POST /api/ledger/v2/:ledger/transactions",status_class="4xx"} 1',
        'platform_http_requests_total{service="payments",route="POST /api/payments/v3/payments",status_class="2xx"} 2',
        'platform_http_requests_total{service="webhooks",route="PUT /api/webhooks/configs/:id/secret/change",status_class="2xx"} 1',
        'platform_ledger_commits_total{service="ledger",mode="group"} 4',
      ]),
    );
  });

  it('the ledger beyond the reference: limits, preconditions, balance history and monitors (after the metrics, which count the stories before them)', async () => {
    const out = await runBash(story(['auth', 'ledger-beyond', 'ledger-monitors']), {});
    // The auth walkthrough's own lines come first; this one's follow its last line.
    expect(out.slice(out.indexOf('[{"account"'))).toBe(
      [
        '[{"account":"wallet:*","asset":"USD/2","min":0,"max":50000}]',
        '1',
        '{"errorCode":"LIMIT_EXCEEDED","errorMessage":"account \\"wallet:bob\\" USD/2: balance would be 60000, above the maximum 50000, which breaks limits rule 0 (wallet:*)"} 400',
        '2',
        '{"errorCode":"PRECONDITION_FAILED","errorMessage":"expect[0]: wallet:bob USD/2 balance is 18000 before the write, expected $eq 30000; expect[1]: wallet:bob USD/2 balance is 6000 after the write, expected $gte 10000"} 409',
        '[["2026-01-01T10:00:00Z",1,30000],["2026-01-01T12:00:00Z",2,18000]]',
        '[["2026-01-01T06:00:00Z",0],["2026-01-01T12:00:00Z",18000],["2026-01-01T18:00:00Z",18000]]',
        '[{"type":"below","amount":10000}]',
        '3',
        '4',
        '["ledger.balance_monitor_triggered","wallet:bob",18000,9000,3]',
        '204',
        '',
      ].join('\n'),
    );
  });

  it('pending transfers: a hold, the available balance, two captures, a refused void', async () => {
    const out = await runBash(story(['auth', 'ledger-pending']), {});
    expect(out.slice(out.indexOf('{"EUR/2"') - 2)).toBe(
      [
        '1',
        '{"EUR/2":{"posted":10000,"pendingIn":0,"pendingOut":6000,"available":4000}}',
        'INSUFFICIENT_FUND',
        '["PENDING",2]',
        '["POSTED",4500,1500]',
        '{"EUR/2":{"posted":5500,"pendingIn":0,"pendingOut":0,"available":5500}}',
        'PENDING_RESOLVED',
        '',
      ].join('\n'),
    );
  });

  it('webhook deliveries to a receiver in a second terminal, then listed, replayed and stopped (last: the metrics count the stories before it)', async () => {
    // Terminal 2, as the guide has it: the receiver runs beside the calls until it is stopped.
    const receiver = spawn('bash', ['-c', readmeBlock('webhook-receiver')], { stdio: 'pipe' });
    let received = '';
    receiver.stdout.on('data', (chunk: Buffer) => {
      received += chunk.toString();
    });
    try {
      await listening(9000);
      const out = await runBash(
        ['webhook-configs', 'webhook-deliveries', 'webhook-deliveries-list']
          .map(readmeBlock)
          .join('\n'),
        { BASE: platform.baseUrl },
      );
      const lines = out.split('\n');
      // The payment (201) and the ledger transaction (200), both delivered, the replay of a finished delivery
      // (pending again), and the config's deletion (200).
      expect(lines.filter((l) => /^\d{3}$/.test(l))).toEqual(['201', '200', '200']);
      expect(lines.filter((l) => l === '{"status":"succeeded"}')).toHaveLength(2);
      expect(lines).toContain('pending');
      // What terminal 2 printed: one line per delivery, its webhook-id then the body.
      expect(received.split('\n').filter((l) => /^\S+ \{"/.test(l)).length).toBeGreaterThanOrEqual(
        2,
      );
    } finally {
      receiver.kill();
    }
  });
});

describe('export a ledger to S3 and query it', () => {
  it('exports the log as Parquet to the S3 emulator; DuckDB sums the postings to the ledger balances', async () => {
    // The CLI with the guide's credentials and no profile of the machine running the tests.
    const home = mkdtempSync(join(tmpdir(), 'guide-exports-'));
    const env = { HOME: home, XDG_CONFIG_HOME: home };
    const out = await runBash(story(['exports']), env);
    // Columns are as wide as their longest value (a time's digits vary): compared with single spaces.
    expect(stable(out).replace(/ +/g, ' ').split('\n')).toEqual([
      'created ledger sales',
      'transaction 1 committed',
      'ID TIMESTAMP POSTING REFERENCE METADATA',
      ' 1 <time> world -> users:ann 10000 EUR/2',
      'transaction 2 committed',
      'ID TIMESTAMP POSTING REFERENCE METADATA',
      ' 2 <time> users:ann -> shop:sales 2500 EUR/2 order=7',
      'transaction 3 committed',
      'ID TIMESTAMP POSTING REFERENCE METADATA',
      ' 3 <time> world -> users:bob 700 USD/2',
      'ID TIMESTAMP POSTING REFERENCE METADATA',
      ' 4 <time> users:bob -> world 700 USD/2 com.formance.spec/state/reverts=3',
      'created pipeline <uuid> (running)',
      'ID STATE EXPORTED EXPORTER CREATED',
      '<uuid> running #4 <uuid> <time>',
      '',
    ]);

    // The emulator's folder: the guide names `npm start`'s, this platform keeps its own (it must be there once).
    const query = readmeBlock('exports-query');
    expect(query.split('.data/s3/')).toHaveLength(2);
    const exported = await runBash(query.replace('.data/s3/', `${platform.s3.directory}/`), env);
    const balances = await runBash(readmeBlock('exports-balances'), {
      ...env,
      PLATFORM_URL: platform.baseUrl,
      PLATFORM_CLIENT_ID: 'local-dev',
      PLATFORM_CLIENT_SECRET: 'local-dev-secret',
    });
    const expected = [
      '["shop:sales","EUR/2",2500]',
      '["users:ann","EUR/2",7500]',
      '["users:bob","USD/2",0]',
      '["world","EUR/2",-10000]',
      '["world","USD/2",0]',
      '',
    ].join('\n');
    expect(exported).toBe(expected);
    expect(balances).toBe(expected);
    // And the guide shows what it prints.
    expect(
      readFileSync(join(import.meta.dirname, '../../docs/guides/exports.md'), 'utf8'),
    ).toContain(`\`\`\`text\n${expected}\`\`\``);
  });
});

/** Resolves once something accepts connections on the loopback port (the receiver the guide starts). */
async function listening(port: number): Promise<void> {
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(socket.end() !== undefined));
      socket.once('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}
