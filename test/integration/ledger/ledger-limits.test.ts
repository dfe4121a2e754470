/**
 * Persistent balance limits (docs/api.md §3.6) through HTTP on DynamoDB Local, with the embedded group commit
 * (`npm start`'s engine): rules no write breaks — postings, `force`, Numscript, a revert, a bulk — unless the rule
 * allows `force`; concurrent forced writers against a minimum; the v1 mapping and the limits kept apart in the
 * item they share.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let counter = 0;

beforeAll(async () => {
  const { runtime } = await testTables();
  ({ call } = await ledgerClient(runtime, { embedded: {} }));
});

async function fresh(rules: unknown[]): Promise<string> {
  const name = `limits${++counter}-${Date.now() % 100000}`;
  expect((await call('POST', `/v2/${name}`)).status).toBe(204);
  const put = await call('PUT', `/v2/${name}/limits`, { rules });
  expect(put.status, put.text).toBe(200);
  return name;
}

const send = (name: string, source: string, destination: string, amount: number, force = false) =>
  call('POST', `/v2/${name}/transactions${force ? '?force=true' : ''}`, {
    postings: [{ source, destination, amount, asset: 'USD' }],
  });

async function balanceOf(name: string, account: string): Promise<bigint> {
  const res = await call('GET', `/v2/${name}/accounts/${account}?expand=volumes`);
  return res.status === 404 ? 0n : (res.body.data.volumes?.USD?.balance ?? 0n);
}

describe('limits', () => {
  it('are read back as written, and refuse a balance above a maximum or below a minimum, force or not', async () => {
    const rules = [
      { account: 'users:*', asset: 'USD', max: 1000 },
      { account: 'users:*', min: '-50' },
    ];
    const name = await fresh(rules);
    expect((await call('GET', `/v2/${name}/limits`)).body).toEqual({
      data: {
        rules: [
          { account: 'users:*', asset: 'USD', max: 1000n },
          { account: 'users:*', min: -50n },
        ],
      },
    });
    expect((await send(name, 'world', 'users:1', 1000)).status).toBe(200);
    const over = await send(name, 'world', 'users:1', 1);
    expect([over.status, over.body]).toEqual([
      400,
      {
        errorCode: 'LIMIT_EXCEEDED',
        errorMessage:
          'account "users:1" USD: balance would be 1001, above the maximum 1000, which breaks limits rule 0 (users:*)',
      },
    ]);
    // force lifts the overdraft rule, not a limit: down to -50 and no further.
    expect((await send(name, 'users:1', 'shop', 1050, true)).status).toBe(200);
    const under = await send(name, 'users:1', 'shop', 1, true);
    expect([under.status, under.body]).toEqual([
      400,
      {
        errorCode: 'INSUFFICIENT_FUND',
        errorMessage:
          'account "users:1" USD: balance would be -51, below the minimum -50, which breaks limits rule 1 (users:*)',
      },
    ]);
    expect(await balanceOf(name, 'users:1')).toBe(-50n);
    // A pair already outside a bound may move back towards it.
    expect((await send(name, 'world', 'users:1', 10)).status).toBe(200);
  });

  it('hold against Numscript, a revert and a bulk element; force lifts a rule that allows it', async () => {
    const name = await fresh([
      { account: 'wallet:*', min: 0 },
      { account: 'promo:*', min: 0, forceAllowed: true },
    ]);
    expect((await send(name, 'world', 'wallet:1', 100)).status).toBe(200);
    const script = await call('POST', `/v2/${name}/transactions`, {
      script: {
        plain:
          'send [USD 150] (\n  source = @wallet:1 allowing unbounded overdraft\n  destination = @shop\n)',
      },
    });
    expect([script.status, script.body.errorCode]).toEqual([400, 'INSUFFICIENT_FUND']);
    expect((await send(name, 'wallet:1', 'shop', 60)).status).toBe(200);
    const revert = await call('POST', `/v2/${name}/transactions/1/revert?force=true`);
    expect([revert.status, revert.body.errorMessage]).toEqual([
      400,
      'account "wallet:1" USD: balance would be -60, below the minimum 0, which breaks limits rule 0 (wallet:*)',
    ]);
    const bulk = await call('POST', `/v2/${name}/_bulk?continueOnFailure=true`, [
      {
        action: 'CREATE_TRANSACTION',
        data: {
          postings: [{ source: 'wallet:1', destination: 'shop', amount: 41, asset: 'USD' }],
          force: true,
        },
      },
      {
        action: 'CREATE_TRANSACTION',
        data: {
          postings: [{ source: 'promo:1', destination: 'shop', amount: 5, asset: 'USD' }],
          force: true,
        },
      },
    ]);
    expect(
      bulk.body.data.map(
        (r: { responseType: string; errorCode?: string }) => r.errorCode ?? r.responseType,
      ),
    ).toEqual(['INSUFFICIENT_FUND', 'CREATE_TRANSACTION']);
    expect(await balanceOf(name, 'wallet:1')).toBe(40n);
    expect(await balanceOf(name, 'promo:1')).toBe(-5n);
  });

  it("apply TigerBeetle's flags: debits must not exceed credits, credits must not exceed debits", async () => {
    const name = await fresh([
      { account: 'deposit:*', debitsMustNotExceedCredits: true },
      { account: 'loan:*', creditsMustNotExceedDebits: true },
    ]);
    expect((await send(name, 'world', 'deposit:1', 30)).status).toBe(200);
    const overdrawn = await send(name, 'deposit:1', 'world', 31, true);
    expect([overdrawn.status, overdrawn.body.errorMessage]).toEqual([
      400,
      'account "deposit:1" USD: debits would be 31, above credits 30, which breaks limits rule 0 (deposit:*)',
    ]);
    expect((await send(name, 'loan:1', 'world', 20, true)).status).toBe(200);
    const overpaid = await send(name, 'world', 'loan:1', 21);
    expect([overpaid.status, overpaid.body.errorCode, overpaid.body.errorMessage]).toEqual([
      400,
      'LIMIT_EXCEEDED',
      'account "loan:1" USD: credits would be 21, above debits 20, which breaks limits rule 1 (loan:*)',
    ]);
    expect((await send(name, 'world', 'loan:1', 20)).status).toBe(200);
  });

  it('of 40 concurrent forced spends of 1 from 25 with a minimum of 0, exactly 25 commit', async () => {
    const name = await fresh([{ account: 'alice', min: 0 }]);
    expect((await send(name, 'world', 'alice', 25)).status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => send(name, 'alice', `shop:${i}`, 1, true)),
    );
    const statuses = answers.map((a) => a.status);
    expect([
      statuses.filter((s) => s === 200).length,
      statuses.filter((s) => s === 400).length,
    ]).toEqual([25, 15]);
    expect(await balanceOf(name, 'alice')).toBe(0n);
  });

  it('share the v1 mapping item without mixing: each replacement keeps the other', async () => {
    const name = await fresh([{ account: 'users:*', max: 10 }]);
    const mapping = { contracts: [{ account: 'users:*', expr: { $gte: ['$balance', -5] } }] };
    // Read back with exact integers (bigint).
    const stored = { contracts: [{ account: 'users:*', expr: { $gte: ['$balance', -5n] } }] };
    expect((await call('PUT', `/${name}/mapping`, mapping)).status).toBe(200);
    expect((await call('GET', `/${name}/mapping`)).body).toEqual({ data: stored });
    expect((await call('GET', `/v2/${name}/limits`)).body.data.rules).toEqual([
      { account: 'users:*', max: 10n },
    ]);
    // Both in force: the contract lets users:1 go to -5, the limit keeps it at most 10.
    expect((await send(name, 'users:1', 'shop', 5)).status).toBe(200);
    expect((await send(name, 'world', 'users:1', 16)).body.errorCode).toBe('LIMIT_EXCEEDED');
    expect((await call('PUT', `/v2/${name}/limits`, { rules: [] })).status).toBe(200);
    expect((await call('GET', `/${name}/mapping`)).body).toEqual({ data: stored });
    expect((await send(name, 'world', 'users:1', 16)).status).toBe(200);
  });

  it('refuse malformed rules with 400 naming the field', async () => {
    const name = await fresh([]);
    const cases: Array<[unknown, string]> = [
      [
        { rules: [{ account: 'users:*' }] },
        'must set min, max, debitsMustNotExceedCredits or creditsMustNotExceedDebits',
      ],
      [{ rules: [{ account: 'users:*', min: 5, max: 1 }] }, 'min must not be above max'],
      [
        { rules: [{ account: 'users:?', min: 0 }] },
        'body.rules.0.account: must be an address pattern',
      ],
      [{ rules: [{ account: 'a', min: 0, floor: 1 }] }, 'body.rules.0.floor: unknown field'],
    ];
    for (const [body, message] of cases) {
      const res = await call('PUT', `/v2/${name}/limits`, body);
      expect([res.status, res.body.errorCode], res.text).toEqual([400, 'VALIDATION']);
      expect(res.body.errorMessage).toContain(message);
    }
    expect((await call('GET', `/v2/${name}/limits`)).body.data).toEqual({ rules: [] });
  });
});
