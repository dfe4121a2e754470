import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient, stringify } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
type Call = Awaited<ReturnType<typeof ledgerClient>>['call'];
/** The ledger app as a Lambda container runs it (direct commits), and with the embedded engine (`npm start`). */
const callers: Record<string, Call> = {};
let call: Call;
let n = 0;
const fresh = async () => {
  const name = `bulk${++n}`;
  expect((await call('POST', `/v2/${name}`)).status).toBe(204);
  return name;
};
const create = (
  source: string,
  destination: string,
  amount: bigint,
  extra: Record<string, unknown> = {},
) => ({
  action: 'CREATE_TRANSACTION',
  data: { postings: [{ source, destination, amount, asset: 'USD' }], ...extra },
});

beforeAll(async () => {
  ({ runtime } = await testTables());
  callers.direct = (await ledgerClient(runtime)).call;
  callers.embedded = (await ledgerClient(runtime, { embedded: {} })).call;
});

describe.each(['direct', 'embedded'])('bulk (%s writes)', (mode) => {
  beforeAll(() => {
    call = callers[mode]!;
  });

  it('runs every action in order and reports each result with its log id', async () => {
    const ledger = await fresh();
    const res = await call('POST', `/v2/${ledger}/_bulk`, [
      create('world', 'a', 10n),
      {
        action: 'ADD_METADATA',
        data: { targetType: 'TRANSACTION', targetId: 1, metadata: { k: 'v' } },
      },
      {
        action: 'ADD_METADATA',
        data: { targetType: 'ACCOUNT', targetId: 'a', metadata: { tier: '1' } },
      },
      { action: 'REVERT_TRANSACTION', data: { id: 1 } },
      { action: 'DELETE_METADATA', data: { targetType: 'TRANSACTION', targetId: '1', key: 'k' } },
    ]);
    expect(res.status, res.text).toBe(200);
    expect(
      res.body.data.map((r: { responseType: string; logID: bigint }) => [r.responseType, r.logID]),
    ).toEqual([
      ['CREATE_TRANSACTION', 1n],
      ['ADD_METADATA', 2n],
      ['ADD_METADATA', 3n],
      ['REVERT_TRANSACTION', 4n],
      ['DELETE_METADATA', 5n],
    ]);
    expect(res.body.data[3].data.postCommitVolumes.a.USD.balance).toBe(0n);
    const original = (await call('GET', `/v2/${ledger}/transactions/1`)).body.data;
    expect(original).toMatchObject({ reverted: true, metadata: {} });
  });

  it('stops at the first failure unless continueOnFailure (the rest answered as not applied), and answers 400', async () => {
    const ledger = await fresh();
    const elements = [create('world', 'a', 1n), create('a', 'b', 5n), create('world', 'c', 1n)];
    const stop = await call('POST', `/v2/${ledger}/_bulk`, elements);
    expect(stop.status).toBe(400);
    expect(
      stop.body.data.map(
        (r: { responseType: string; errorCode?: string }) => r.errorCode ?? r.responseType,
      ),
    ).toEqual(['CREATE_TRANSACTION', 'INSUFFICIENT_FUND', 'VALIDATION']);
    // Every element has a result the SDK can read: errors carry logID 0.
    expect(stop.body.data.slice(1)).toEqual([
      {
        responseType: 'ERROR',
        errorCode: 'INSUFFICIENT_FUND',
        errorDescription: stop.body.data[1].errorDescription,
        logID: 0n,
      },
      {
        responseType: 'ERROR',
        errorCode: 'VALIDATION',
        errorDescription: 'not applied: element 1 failed',
        logID: 0n,
      },
    ]);
    expect(stop.body.errorCode).toBe('INSUFFICIENT_FUND');
    const go = await call('POST', `/v2/${ledger}/_bulk?continueOnFailure=true`, elements);
    expect(go.status).toBe(400);
    expect(
      go.body.data.map(
        (r: { responseType: string; errorCode?: string }) => r.errorCode ?? r.responseType,
      ),
    ).toEqual(['CREATE_TRANSACTION', 'INSUFFICIENT_FUND', 'CREATE_TRANSACTION']);
    expect((await call('GET', `/v2/${ledger}/stats`)).body.data.transactions).toBe(3n);
  });

  it('atomic: all elements in one commit — later elements see earlier ones — or nothing', async () => {
    const ledger = await fresh();
    const ok = await call('POST', `/v2/${ledger}/_bulk?atomic=true`, [
      create('world', 'a', 5n),
      create('a', 'b', 5n),
      create('b', 'c', 2n),
    ]);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data.map((r: { data: { id: bigint } }) => r.data.id)).toEqual([1n, 2n, 3n]);
    expect(ok.body.data[2].data.postCommitVolumes.b.USD.balance).toBe(3n);

    const bad = await call('POST', `/v2/${ledger}/_bulk?atomic=true`, [
      create('world', 'x', 1n),
      create('c', 'y', 50n),
      create('world', 'z', 1n),
    ]);
    expect(bad.status).toBe(400);
    expect(bad.body.data[1]).toMatchObject({
      responseType: 'ERROR',
      errorCode: 'INSUFFICIENT_FUND',
    });
    expect(bad.body.data[0]).toEqual({
      responseType: 'ERROR',
      errorCode: 'VALIDATION',
      errorDescription: 'not applied: the atomic bulk failed at element 1',
      logID: 0n,
    });
    expect((await call('GET', `/v2/${ledger}/stats`)).body.data).toEqual({
      accounts: 4n,
      transactions: 3n,
    });

    const noPostings = await call('POST', `/v2/${ledger}/_bulk?atomic=true`, [
      create('world', 'x', 1n),
      { action: 'CREATE_TRANSACTION', data: { postings: [] } },
    ]);
    expect(noPostings.body.data[1]).toMatchObject({ errorCode: 'NO_POSTINGS' });
    expect((await call('GET', `/v2/${ledger}/stats`)).body.data.transactions).toBe(3n);
  });

  it('honours per-element idempotency keys', async () => {
    const ledger = await fresh();
    const element = { ...create('world', 'a', 1n), ik: 'bulk-ik-1' };
    expect((await call('POST', `/v2/${ledger}/_bulk`, [element])).status).toBe(200);
    const again = await call('POST', `/v2/${ledger}/_bulk`, [element]);
    expect(again.status).toBe(200);
    expect(again.body.data[0].data.id).toBe(1n);
    // A replay names the log entry of the original write.
    expect(again.body.data[0].logID).toBe(1n);
    expect((await call('GET', `/v2/${ledger}/stats`)).body.data.transactions).toBe(1n);
  });

  it('atomic: reverts and adds metadata to a transaction an earlier element creates', async () => {
    const ledger = await fresh();
    const res = await call('POST', `/v2/${ledger}/_bulk?atomic=true`, [
      create('world', 'a', 7n),
      {
        action: 'ADD_METADATA',
        data: { targetType: 'TRANSACTION', targetId: 1, metadata: { k: 'v' } },
      },
      { action: 'REVERT_TRANSACTION', data: { id: 1 } },
    ]);
    expect(res.status, res.text).toBe(200);
    expect(
      res.body.data.map((r: { responseType: string; logID: bigint }) => [r.responseType, r.logID]),
    ).toEqual([
      ['CREATE_TRANSACTION', 1n],
      ['ADD_METADATA', 2n],
      ['REVERT_TRANSACTION', 3n],
    ]);
    expect(res.body.data[2].data).toMatchObject({
      id: 2n,
      postings: [{ source: 'a', destination: 'world', amount: 7n }],
    });
    expect((await call('GET', `/v2/${ledger}/transactions/1`)).body.data).toMatchObject({
      reverted: true,
      metadata: { k: 'v' },
    });
    // A revert of a transaction nobody creates is still refused, and nothing of the bulk is written.
    const missing = await call('POST', `/v2/${ledger}/_bulk?atomic=true`, [
      create('world', 'a', 1n),
      { action: 'REVERT_TRANSACTION', data: { id: 99 } },
    ]);
    expect(missing.status).toBe(400);
    expect(missing.body.data[1]).toMatchObject({ responseType: 'ERROR', errorCode: 'NOT_FOUND' });
    expect((await call('GET', `/v2/${ledger}/stats`)).body.data.transactions).toBe(2n);
  });

  it('parallel: every element applied, results in element order; refused together with atomic', async () => {
    const ledger = await fresh();
    const elements = Array.from({ length: 25 }, (_, i) => create('world', `u${i}`, BigInt(i + 1)));
    const res = await call('POST', `/v2/${ledger}/_bulk?parallel=true`, elements);
    expect(res.status, res.text).toBe(200);
    expect(
      res.body.data.map(
        (r: { data: { postings: Array<{ destination: string }> } }) =>
          r.data.postings[0]!.destination,
      ),
    ).toEqual(elements.map((_, i) => `u${i}`));
    expect(new Set(res.body.data.map((r: { logID: bigint }) => r.logID)).size).toBe(25);
    expect((await call('GET', `/v2/${ledger}/stats`)).body.data.transactions).toBe(25n);
    const both = await call('POST', `/v2/${ledger}/_bulk?atomic=true&parallel=true`, elements);
    expect(both.status).toBe(400);
    expect(both.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'atomic and parallel options are mutually exclusive',
    });
  });

  it('takes the JSON-stream content type: elements one after another', async () => {
    const ledger = await fresh();
    const body = `${stringify(create('world', 'a', 3n))}\n  ${stringify({ action: 'ADD_METADATA', data: { targetType: 'ACCOUNT', targetId: 'a', metadata: { note: 'brace } in a string' } } })}${stringify(create('a', 'b', 1n))}`;
    const res = await call('POST', `/v2/${ledger}/_bulk`, body, {
      'content-type': 'application/vnd.formance.ledger.api.v2.bulk+json-stream',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((r: { responseType: string }) => r.responseType)).toEqual([
      'CREATE_TRANSACTION',
      'ADD_METADATA',
      'CREATE_TRANSACTION',
    ]);
    expect((await call('GET', `/v2/${ledger}/accounts/a`)).body.data.metadata).toEqual({
      note: 'brace } in a string',
    });
    for (const bad of ['{"action":"CREATE_TRANSACTION"', '[1]', '{} x {}', '{"a":}']) {
      const refused = await call('POST', `/v2/${ledger}/_bulk`, bad, {
        'content-type': 'application/vnd.formance.ledger.api.v2.bulk+json-stream',
      });
      expect(refused.status, bad).toBe(400);
      expect(refused.body.errorCode, bad).toBe('VALIDATION');
    }
  });

  it('refuses more than 100 elements with 413 BULK_SIZE_EXCEEDED, and invalid elements before running any', async () => {
    const ledger = await fresh();
    const big = await call(
      'POST',
      `/v2/${ledger}/_bulk`,
      Array.from({ length: 101 }, () => create('world', 'a', 1n)),
    );
    expect(big.status).toBe(413);
    expect(big.body.errorCode).toBe('BULK_SIZE_EXCEEDED');
    for (const body of [
      [create('world', 'a', 1n), { action: 'TELEPORT', data: {} }],
      [
        create('world', 'a', 1n),
        {
          action: 'ADD_METADATA',
          data: { targetType: 'ACCOUNT', targetId: 'bad id', metadata: {} },
        },
      ],
      { not: 'an array' },
    ]) {
      const res = await call('POST', `/v2/${ledger}/_bulk`, body);
      expect(res.status, stringify(body)).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
    }
    // An element's key has the Idempotency-Key header's form; a transaction target names an id.
    for (const [element, message] of [
      [
        { ...create('world', 'a', 1n), ik: 'two words' },
        'body.1.ik: must be 1-256 printable ASCII characters',
      ],
      [
        {
          action: 'ADD_METADATA',
          data: { targetType: 'TRANSACTION', targetId: 'tx-1', metadata: { k: 'v' } },
        },
        'body.1.data.targetId: must be a transaction id',
      ],
    ] as const) {
      const res = await call('POST', `/v2/${ledger}/_bulk`, [create('world', 'a', 1n), element]);
      expect(res.status, stringify(element)).toBe(400);
      expect(res.body).toEqual({ errorCode: 'VALIDATION', errorMessage: message });
    }
    expect((await call('GET', `/v2/${ledger}/stats`)).body.data.transactions).toBe(0n);
  });
});
