/**
 * Numscript through the ledger (#19): `script` on v2 create, bulk elements, v1 transactions and v1 `/script`,
 * in both write paths (direct and group commit), with the reference's error codes. The language itself is
 * covered in lib/numscript/spec; here, what the ledger does with a script's result: exact postings, metadata,
 * balances read inside the write's snapshot, nothing written on refusal.
 */

import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lib/dynamo/client.js';
import { BucketTables } from '../../../lib/ledger/store/bucket-tables.js';
import { dynamoLedgerTable } from '../../../lib/ledger/store/dynamo-ledger-table.js';
import { LedgerLookup } from '../../../lib/ledger/store/ledger-lookup.js';
import { LedgerRegistry } from '../../../lib/ledger/store/registry.js';
import type { Intent, IntentResult } from '../../../lib/ledger/write/intent.js';
import { LedgerSequencer } from '../../../lib/ledger/write/sequencer.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';
import { WAIT_LIMIT_MS } from '../../support/time-scale.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let counter = 0;

const fresh = async () => {
  const name = `ns${++counter}-${Date.now() % 100000}`;
  expect((await call('POST', `/v2/${name}`)).status).toBe(204);
  return name;
};
const balance = async (ledger: string, address: string, asset = 'USD/2') =>
  ((await call('GET', `/v2/${ledger}/accounts/${address}?expand=volumes`)).body.data?.volumes?.[
    asset
  ]?.balance as bigint | undefined) ?? 0n;
const script = (
  ledger: string,
  plain: string,
  vars: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
  query = '',
  headers: Record<string, string> = {},
) =>
  call(
    'POST',
    `/v2/${ledger}/transactions${query}`,
    { script: { plain, vars }, ...extra },
    headers,
  );

const PAY = `vars {
  monetary $amount
  account $dest
}
send $amount (
  source = @world
  destination = $dest
)
set_tx_meta("order", "o-1")
`;

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime));
});

describe('Numscript on POST /v2/<ledger>/transactions', () => {
  it('commits the script’s postings and metadata, exactly', async () => {
    const ledger = await fresh();
    const res = await script(
      ledger,
      PAY,
      { amount: 'USD/2 12345678901234567890123', dest: 'users:1' },
      { metadata: { by: 'test' }, reference: 'ref-1' },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      id: 1n,
      postings: [
        {
          source: 'world',
          destination: 'users:1',
          amount: 12345678901234567890123n,
          asset: 'USD/2',
        },
      ],
      metadata: { by: 'test', order: 'o-1' },
      reference: 'ref-1',
    });
    expect(await balance(ledger, 'users:1')).toBe(12345678901234567890123n);
    // Vars as the v1 form ({asset, amount}) and numbers work too.
    const v1vars = await script(ledger, PAY.replace('set_tx_meta("order", "o-1")', ''), {
      amount: { asset: 'USD/2', amount: 5 },
      dest: 'users:2',
    });
    expect(v1vars.status, v1vars.text).toBe(200);
    expect(await balance(ledger, 'users:2')).toBe(5n);
  });

  it('splits by allotment as the reference rounds: parts floored, leftover units to the first clauses', async () => {
    const ledger = await fresh();
    expect((await script(ledger, PAY, { amount: 'USD/2 100', dest: 'users:1' })).status).toBe(200);
    const res = await script(
      ledger,
      `send [USD/2 100] (
  source = @users:1
  destination = {
    1/3 to @a
    2/3 to @b
  }
)`,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.postings).toEqual([
      { source: 'users:1', destination: 'a', amount: 34n, asset: 'USD/2' },
      { source: 'users:1', destination: 'b', amount: 66n, asset: 'USD/2' },
    ]);
    expect([
      await balance(ledger, 'users:1'),
      await balance(ledger, 'a'),
      await balance(ledger, 'b'),
    ]).toEqual([0n, 34n, 66n]);
  });

  it('reads balances inside the write: INSUFFICIENT_FUND writes nothing; an overdraft clause is the script’s rule', async () => {
    const ledger = await fresh();
    expect((await script(ledger, PAY, { amount: 'USD/2 10', dest: 'users:1' })).status).toBe(200);
    const short = await script(
      ledger,
      'send [USD/2 11] (\n  source = @users:1\n  destination = @shop\n)',
    );
    expect(short.status).toBe(400);
    expect(short.body.errorCode).toBe('INSUFFICIENT_FUND');
    const over = await script(
      ledger,
      'send [USD/2 40] (\n  source = @users:1 allowing overdraft up to [USD/2 30]\n  destination = @shop\n)',
    );
    expect(over.status, over.text).toBe(200);
    expect([await balance(ledger, 'users:1'), await balance(ledger, 'shop')]).toEqual([-30n, 40n]);
    expect((await call('GET', `/v2/${ledger}/stats`)).body.data.transactions).toBe(2n);
  });

  it('follows meta() to an account the script did not name', async () => {
    const ledger = await fresh();
    expect((await script(ledger, PAY, { amount: 'USD/2 50', dest: 'users:1' })).status).toBe(200);
    expect(
      (await call('POST', `/v2/${ledger}/accounts/users:1/metadata`, { payout: 'bank:9' })).status,
    ).toBe(204);
    const res = await script(
      ledger,
      `vars {
  account $payout = meta(@users:1, "payout")
}
send [USD/2 20] (
  source = @users:1
  destination = $payout
)
set_account_meta(@users:1, "paid", "yes")`,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.postings).toEqual([
      { source: 'users:1', destination: 'bank:9', amount: 20n, asset: 'USD/2' },
    ]);
    expect(await balance(ledger, 'bank:9')).toBe(20n);
    expect((await call('GET', `/v2/${ledger}/accounts/users:1`)).body.data.metadata).toEqual({
      payout: 'bank:9',
      paid: 'yes',
    });
  });

  it('answers the reference’s errors, and writes nothing', async () => {
    const ledger = await fresh();
    const cases: Array<[string, Record<string, unknown>, string, string?]> = [
      [
        'send [USD/2 10] (\n  source = @world\n  destination = \n)',
        {},
        'COMPILATION_FAILED',
        'line 4, column 1',
      ],
      [PAY, { dest: 'users:1' }, 'COMPILATION_FAILED', 'amount'],
      [PAY, { amount: 'USD/2 1', dest: 'users:1' }, 'METADATA_OVERRIDE'],
    ];
    for (const [plain, vars, code, mentions] of cases) {
      const res = await script(
        ledger,
        plain,
        vars,
        code === 'METADATA_OVERRIDE' ? { metadata: { order: 'mine' } } : {},
      );
      expect(res.status, plain).toBe(400);
      expect(res.body.errorCode, plain).toBe(code);
      if (mentions) expect(res.body.errorMessage).toContain(mentions);
      // The position once, at the end, where it used to be printed twice.
      if (mentions?.startsWith('line '))
        expect(res.body.errorMessage.split('(line ')).toHaveLength(2);
    }
    const both = await call('POST', `/v2/${ledger}/transactions`, {
      script: { plain: PAY, vars: {} },
      postings: [{ source: 'world', destination: 'a', amount: 1n, asset: 'USD' }],
    });
    expect(both.status).toBe(400);
    expect(both.body.errorMessage).toBe('body: send postings or a script, not both');
    const dry = await script(
      ledger,
      PAY,
      { amount: 'USD/2 7', dest: 'users:3' },
      {},
      '?dryRun=true',
    );
    expect(dry.status, dry.text).toBe(200);
    expect((await call('GET', `/v2/${ledger}/stats`)).body.data.transactions).toBe(0n);
  });

  it('replays with an Idempotency-Key, and runs in bulk elements', async () => {
    const ledger = await fresh();
    const first = await script(ledger, PAY, { amount: 'USD/2 3', dest: 'users:1' }, {}, '', {
      'Idempotency-Key': 'ns-1',
    });
    const again = await script(ledger, PAY, { amount: 'USD/2 3', dest: 'users:1' }, {}, '', {
      'Idempotency-Key': 'ns-1',
    });
    expect([first.status, again.status, again.headers.get('idempotency-hit')]).toEqual([
      200,
      200,
      'true',
    ]);
    expect(again.body).toEqual(first.body);
    const bulk = await call('POST', `/v2/${ledger}/_bulk?atomic=true`, [
      {
        action: 'CREATE_TRANSACTION',
        data: { script: { plain: PAY, vars: { amount: 'USD/2 4', dest: 'users:2' } } },
      },
      {
        action: 'CREATE_TRANSACTION',
        data: {
          script: {
            plain: 'send [USD/2 4] (\n  source = @users:2\n  destination = @users:3\n)',
            vars: {},
          },
        },
      },
    ]);
    expect(bulk.status, bulk.text).toBe(200);
    expect([
      await balance(ledger, 'users:1'),
      await balance(ledger, 'users:2'),
      await balance(ledger, 'users:3'),
    ]).toEqual([3n, 0n, 4n]);
  });
});

const SCALED_SPEND = (amount: string, to: string) => `#![feature("experimental-asset-scaling")]
send [EUR/2 ${amount}] (
  source = @src with scaling through @fx:eur
  destination = @${to}
)`;

describe('Numscript asset scaling in the write path', () => {
  it('reads every scale the account holds inside the write and posts the conversions', async () => {
    const ledger = await fresh();
    const fund = await call('POST', `/v2/${ledger}/transactions`, {
      postings: [
        { source: 'world', destination: 'src', amount: 3, asset: 'EUR' },
        { source: 'world', destination: 'src', amount: 500, asset: 'EUR/3' },
      ],
    });
    expect(fund.status, fund.text).toBe(200);
    const res = await script(ledger, SCALED_SPEND('250', 'shop'));
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.postings).toEqual([
      { source: 'src', destination: 'fx:eur', amount: 500n, asset: 'EUR/3' },
      { source: 'src', destination: 'fx:eur', amount: 2n, asset: 'EUR' },
      { source: 'fx:eur', destination: 'src', amount: 250n, asset: 'EUR/2' },
      { source: 'src', destination: 'shop', amount: 250n, asset: 'EUR/2' },
    ]);
    expect([
      await balance(ledger, 'src', 'EUR'),
      await balance(ledger, 'src', 'EUR/2'),
      await balance(ledger, 'src', 'EUR/3'),
      await balance(ledger, 'fx:eur', 'EUR'),
      await balance(ledger, 'fx:eur', 'EUR/2'),
      await balance(ledger, 'fx:eur', 'EUR/3'),
      await balance(ledger, 'shop', 'EUR/2'),
    ]).toEqual([1n, 0n, 0n, 2n, -250n, 500n, 250n]);
    // What is left (EUR 1) converts to at most EUR/2 100: refused, nothing written.
    const short = await script(ledger, SCALED_SPEND('101', 'shop'));
    expect(short.status).toBe(400);
    expect(short.body.errorCode).toBe('INSUFFICIENT_FUND');
    const unflagged = await script(
      ledger,
      SCALED_SPEND('1', 'shop').replace(/^#!\[feature\("experimental-asset-scaling"\)\]\n/, ''),
    );
    expect(unflagged.status).toBe(400);
    expect(unflagged.body.errorCode).toBe('COMPILATION_FAILED');
    expect((await call('GET', `/v2/${ledger}/stats`)).body.data.transactions).toBe(2n);
  });
});

describe('Numscript on the v1 routes', () => {
  it('POST /<ledger>/transactions with a script, and /<ledger>/script (errors in a 200 ScriptResponse)', async () => {
    const ledger = await fresh();
    const tx = await call('POST', `/${ledger}/transactions`, {
      script: { plain: PAY, vars: { amount: 'USD/2 9', dest: 'users:1' } },
    });
    expect(tx.status, tx.text).toBe(200);
    expect(tx.body.data[0]).toMatchObject({ txid: 1n, metadata: { order: 'o-1' } });
    const run = await call('POST', `/${ledger}/script`, {
      plain: 'send [USD/2 4] (\n  source = @users:1\n  destination = @users:2\n)',
      reference: 'v1-ref',
      metadata: { a: 'b' },
    });
    expect(run.status, run.text).toBe(200);
    expect(run.body.transaction).toMatchObject({
      txid: 2n,
      reference: 'v1-ref',
      metadata: { a: 'b' },
      postings: [{ source: 'users:1', destination: 'users:2', amount: 4n }],
    });
    const refused = await call('POST', `/${ledger}/script`, {
      plain: 'send [USD/2 400] (\n  source = @users:1\n  destination = @users:2\n)',
    });
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({ errorCode: 'INSUFFICIENT_FUND' });
    expect(refused.body.transaction).toBeUndefined();
    const broken = await call('POST', `/${ledger}/script`, { plain: 'send' });
    expect(broken.body.errorCode).toBe('COMPILATION_FAILED');
    expect((await call('GET', `/v2/${ledger}/stats`)).body.data.transactions).toBe(2n);
  });
});

describe('Numscript through the sequenced writer (group commit)', () => {
  it('plans through the writer’s cache and decides in order: the second spend of one balance is refused', async () => {
    const ledger = await fresh();
    expect((await script(ledger, PAY, { amount: 'USD/2 10', dest: 'users:1' })).status).toBe(200);
    const doc = createDocumentClient(runtime.connection, { bigintNumbers: true });
    const table = runtime.config.tables.ledger;
    const record = await new LedgerLookup(new LedgerRegistry(doc, new BucketTables(table))).resolve(
      'default',
      ledger,
    );
    const sequencer = new LedgerSequencer({
      items: dynamoLedgerTable(doc, table, record),
      table,
      ledger: record,
      owner: randomUUID(),
    });
    const spend = (n: number): Intent => ({
      reqId: randomUUID(),
      environment: 'default',
      ledger,
      deadline: Date.now() + WAIT_LIMIT_MS,
      operation: {
        kind: 'create',
        input: {
          script: { plain: `send [USD/2 8] (\n  source = @users:1\n  destination = @shop:${n}\n)` },
        },
        options: { dryRun: false, force: false },
      },
    });
    const intents = [spend(1), spend(2)];
    const { results } = await sequencer.process(intents);
    const [a, b] = intents.map((i) => results.get(i.reqId)!) as [IntentResult, IntentResult];
    expect(a.status).toBe('committed');
    expect(b).toEqual({
      status: 'refused',
      error: { kind: 'insufficient_fund', message: expect.any(String) },
    });
    expect([
      await balance(ledger, 'users:1'),
      await balance(ledger, 'shop:1'),
      await balance(ledger, 'shop:2'),
    ]).toEqual([2n, 8n, 0n]);
  });

  it('a scaling source plans through the writer’s cache: the second conversion sees the first', async () => {
    const ledger = await fresh();
    const fund = await call('POST', `/v2/${ledger}/transactions`, {
      postings: [{ source: 'world', destination: 'src', amount: 3, asset: 'EUR' }],
    });
    expect(fund.status, fund.text).toBe(200);
    const doc = createDocumentClient(runtime.connection, { bigintNumbers: true });
    const table = runtime.config.tables.ledger;
    const record = await new LedgerLookup(new LedgerRegistry(doc, new BucketTables(table))).resolve(
      'default',
      ledger,
    );
    const sequencer = new LedgerSequencer({
      items: dynamoLedgerTable(doc, table, record),
      table,
      ledger: record,
      owner: randomUUID(),
    });
    const spend = (amount: string, to: string): Intent => ({
      reqId: randomUUID(),
      environment: 'default',
      ledger,
      deadline: Date.now() + WAIT_LIMIT_MS,
      operation: {
        kind: 'create',
        input: { script: { plain: SCALED_SPEND(amount, to) } },
        options: { dryRun: false, force: false },
      },
    });
    const intents = [spend('150', 'a'), spend('150', 'b'), spend('1', 'c')];
    const { results } = await sequencer.process(intents);
    expect(intents.map((i) => results.get(i.reqId)!.status)).toEqual([
      'committed',
      'committed',
      'refused',
    ]);
    // The first took 2 EUR for 150 (50 spare stay on src as EUR/2); the second needs that spare and 1 EUR.
    expect([
      await balance(ledger, 'src', 'EUR'),
      await balance(ledger, 'src', 'EUR/2'),
      await balance(ledger, 'a', 'EUR/2'),
      await balance(ledger, 'b', 'EUR/2'),
      await balance(ledger, 'fx:eur', 'EUR'),
    ]).toEqual([0n, 0n, 150n, 150n, 3n]);
  });
});
