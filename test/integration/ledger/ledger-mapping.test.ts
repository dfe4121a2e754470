/**
 * The ledger mapping (docs/api.md §3.4) over HTTP and DynamoDB Local: GET/PUT /<ledger>/mapping, contracts enforced
 * inside every write (create, revert, bulk), the `ledger.updated_mapping` event in the same transaction, and
 * races between spends, and between spends and a mapping change.
 */
import { createHash } from 'node:crypto';
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient, ledgerEventsOf } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let counter = 0;
let mock: ReturnType<typeof mockClient> | undefined;

const fresh = async () => {
  const name = `m${++counter}-${Date.now() % 100000}`;
  const res = await call('POST', `/v2/${name}`);
  expect(res.status, res.text).toBe(204);
  return name;
};
const send = (source: string, destination: string, amount: bigint, asset = 'USD') => ({
  source,
  destination,
  amount,
  asset,
});
const tx = (
  ledger: string,
  postings: unknown[],
  query = '',
  headers: Record<string, string> = {},
) => call('POST', `/v2/${ledger}/transactions${query}`, { postings }, headers);
const putMapping = (ledger: string, mapping: unknown) => call('PUT', `/${ledger}/mapping`, mapping);
const balance = async (ledger: string, address: string, asset = 'USD') => {
  const res = await call('GET', `/v2/${ledger}/accounts/${address}?expand=volumes`);
  expect(res.status, res.text).toBe(200);
  return res.body.data.volumes[asset].balance as bigint;
};
const overdraft = (pattern: string, floor: number) => ({
  account: pattern,
  expr: { $gte: ['$balance', floor] },
});

/** The events the ledger's items carry (its log items and mapping item), as its table's stream hands them on. */
const ledgerEvents = (ledger: string) => ledgerEventsOf(runtime, ledger);
async function head(ledger: string) {
  const { Item } = await runtime.doc.send(
    new GetCommand({
      TableName: runtime.config.tables.ledger,
      Key: { pk: `E#default#L#${ledger}`, sk: 'HEAD' },
      ConsistentRead: true,
    }),
  );
  return Item!;
}

/**
 * Orders a race deterministically: when the first command of a kind is about to be sent, `before` runs (its own
 * commands go through), then that first command is sent to DynamoDB Local, which decides it. Answers the count of
 * commands of that kind so far. aws-sdk-client-mock patches every document client's `send`; all else passes
 * through untouched.
 */
function beforeFirst(
  kind: typeof TransactWriteCommand | typeof GetCommand | typeof BatchGetCommand,
  before: () => Promise<void>,
  which: (command: { input: unknown }) => boolean = () => true,
): () => number {
  const realSend = DynamoDBDocumentClient.prototype.send as unknown as (
    this: unknown,
    ...args: unknown[]
  ) => Promise<unknown>;
  let seen = 0;
  mock = mockClient(DynamoDBDocumentClient);
  (
    mock.send as unknown as { callsFake(fn: (this: unknown, ...args: unknown[]) => unknown): void }
  ).callsFake(function (this: unknown, command: unknown, ...rest: unknown[]) {
    const pass = () => realSend.call(this, command, ...rest);
    if (command instanceof kind && which(command) && ++seen === 1) return before().then(pass);
    return pass();
  });
  return () => seen;
}
const beforeFirstWrite = (before: () => Promise<void>) => beforeFirst(TransactWriteCommand, before);

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime));
});

afterEach(() => {
  mock?.restore();
  mock = undefined;
});

describe('GET and PUT /<ledger>/mapping', () => {
  it('answers null until set, then the stored mapping (integers exact, always bare numbers)', async () => {
    const ledger = await fresh();
    expect(await call('GET', `/${ledger}/mapping`)).toMatchObject({
      status: 200,
      text: '{"data":null}',
    });
    const mapping = {
      contracts: [
        {
          name: 'big',
          account: 'bank:*',
          expr: { $gte: ['$balance', -123456789012345678901234567890n] },
        },
        overdraft('users:*', -1000),
      ],
    };
    const put = await putMapping(ledger, mapping);
    expect(put.status, put.text).toBe(200);
    const text =
      '{"data":{"contracts":[{"name":"big","account":"bank:*","expr":{"$gte":["$balance",-123456789012345678901234567890]}},{"account":"users:*","expr":{"$gte":["$balance",-1000]}}]}}';
    expect(put.text).toBe(text);
    expect(
      (await call('GET', `/${ledger}/mapping`, undefined, { 'Formance-Bigint-As-String': 'true' }))
        .text,
    ).toBe(text);
    // Replaced, not merged.
    expect((await putMapping(ledger, { contracts: [] })).text).toBe('{"data":{"contracts":[]}}');
    expect((await call('GET', `/${ledger}/mapping`)).text).toBe('{"data":{"contracts":[]}}');
  });

  it('refuses invalid mappings with VALIDATION naming the node, writing nothing', async () => {
    const ledger = await fresh();
    for (const [body, message] of [
      [
        { contracts: [{ account: 'users:*', expr: { $gte: ['$balance'] } }] },
        'body.contracts[0].expr.$gte: must have exactly 2 operands, found 1',
      ],
      [
        { contracts: [{ account: 'users:*', expr: { $between: [1, 2] } }] },
        'body.contracts[0].expr: unknown operator "$between" (known: $and, $or, $eq, $gt, $gte, $lt, $lte)',
      ],
      [
        { contracts: [{ account: 'users:*', expr: { $lt: ['$balance', 'x'] } }] },
        'body.contracts[0].expr.$lt[1]: $lt compares integers; a string constant cannot be ordered',
      ],
      [{ contracts: 'all' }, 'body.contracts: must be an array of contracts'],
    ] as Array<[unknown, string]>) {
      const res = await putMapping(ledger, body);
      expect(res.status, res.text).toBe(400);
      expect(res.body).toEqual({ errorCode: 'VALIDATION', errorMessage: message });
    }
    const malformed = await call('PUT', `/${ledger}/mapping`, '{"contracts": [');
    expect(malformed.body).toEqual({
      errorCode: 'VALIDATION',
      errorMessage: 'body is not valid JSON',
    });
    expect((await call('GET', `/${ledger}/mapping`)).body).toEqual({ data: null });
    expect(await ledgerEvents(ledger)).toEqual([]);
  });

  it('answers 404 NOT_FOUND (the v1 code) for an unknown ledger, and leaves /v2/... to the v2 API', async () => {
    const missing = await putMapping('no-such-ledger', { contracts: [] });
    expect(missing.status).toBe(404);
    expect(missing.body.errorCode).toBe('NOT_FOUND');
    expect((await call('GET', '/no-such-ledger/mapping')).body.errorCode).toBe('NOT_FOUND');
    // A ledger named "v2" exists in v2 but has no v1 routes: /v2/mapping is not its mapping.
    expect((await call('POST', '/v2/v2')).status).toBe(204);
    const v2 = await call('PUT', '/v2/mapping', { contracts: [] });
    expect(v2.status).toBe(404);
    expect(v2.body.errorCode).toBe('NOT_FOUND');
    expect((await call('GET', '/_info')).body.data.server).toBe('ledger');
  });

  it('emits ledger.updated_mapping in the same transaction (carried by the mapping item), without a log entry or a transaction', async () => {
    const ledger = await fresh();
    expect((await tx(ledger, [send('world', 'a', 1n)])).status).toBe(200);
    const mapping = { contracts: [{ name: 'od', ...overdraft('users:*', -1000) }] };
    expect((await putMapping(ledger, mapping)).status).toBe(200);

    const events = (await ledgerEvents(ledger)).filter((e) => e.type === 'ledger.updated_mapping');
    expect(events).toHaveLength(1);
    const event = events[0]!;
    const h = await head(ledger);
    expect(event.item).toMatchObject({ pk: `E#default#L#${ledger}`, sk: 'MAPPING', ev: '{}' });
    expect(Number(event.item.version)).toBe(Number(h.version));
    expect(Number(h.mappingVersion)).toBe(Number(h.version));
    // The id the ledger always gave this event: derived from (ledger, HEAD version).
    expect(event.id).toBe(
      createHash('sha256')
        .update(`ledger/${ledger}/head/${Number(h.version)}`)
        .digest('hex')
        .slice(0, 32),
    );
    expect(event.envelope).toEqual({
      id: event.id,
      idempotency_key: '',
      date: event.item.date,
      app: 'ledger',
      version: 'v2',
      type: 'ledger.updated_mapping',
      payload: {
        ledger,
        mapping: {
          contracts: [{ name: 'od', account: 'users:*', expr: { $gte: ['$balance', -1000n] } }],
        },
      },
    });
    // The mapping is not a log entry (the SDK's log types are a closed enum) and not a transaction.
    const logs = await call('GET', `/v2/${ledger}/logs`);
    expect(logs.body.cursor.data.map((l: { type: string }) => l.type)).toEqual(['NEW_TRANSACTION']);
    expect((await call('GET', `/v2/${ledger}/stats`)).body.data.transactions).toBe(1n);
    expect(Number(h.lastLogId)).toBe(1);
  });
});

describe('contracts in every write', () => {
  it('lets users:* overdraw to -1000 and refuses -1001, naming the account and the contract', async () => {
    const ledger = await fresh();
    expect(
      (
        await putMapping(ledger, {
          contracts: [{ name: 'overdraft', ...overdraft('users:*', -1000) }],
        })
      ).status,
    ).toBe(200);
    const ok = await tx(ledger, [send('users:1', 'shop', 999n)]);
    expect(ok.status, ok.text).toBe(200);
    expect((await tx(ledger, [send('users:1', 'shop', 1n)])).status).toBe(200);
    expect(await balance(ledger, 'users:1')).toBe(-1000n);
    const refused = await tx(ledger, [send('users:1', 'shop', 1n)]);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      errorCode: 'INSUFFICIENT_FUND',
      errorMessage:
        'account "users:1" has insufficient funds for posting 0 (1 USD): balance would be -1001, which breaks contract 0 "overdraft" (account "users:*", expr {"$gte":["$balance",-1000]})',
    });
    expect(await balance(ledger, 'users:1')).toBe(-1000n);
    // Other accounts keep the default floor, with the message they always had.
    const shop = await tx(ledger, [send('shop', 'x', 1001n)]);
    expect(shop.body).toEqual({
      errorCode: 'INSUFFICIENT_FUND',
      errorMessage:
        'account "shop" has insufficient funds for posting 0 (1001 USD): balance would be -1',
    });
  });

  it('takes the first matching contract; world is exempt; force bypasses', async () => {
    const ledger = await fresh();
    await putMapping(ledger, {
      contracts: [
        overdraft('users:vip:*', -5000),
        overdraft('users:*', -100),
        { account: '*', expr: { $gte: ['$balance', 10] } },
      ],
    });
    expect((await tx(ledger, [send('users:vip:1', 'x', 5000n)])).status).toBe(200);
    expect((await tx(ledger, [send('users:2', 'x', 101n)])).body.errorMessage).toContain(
      'breaks contract 1',
    );
    expect((await tx(ledger, [send('users:2', 'x', 100n)])).status).toBe(200);
    // The catch-all "*" contract replaces the default for everyone else, but not for world.
    expect((await tx(ledger, [send('world', 'shop', 20n)])).status).toBe(200);
    expect((await tx(ledger, [send('shop', 'y', 11n)])).body.errorMessage).toContain(
      'breaks contract 2',
    );
    expect((await tx(ledger, [send('shop', 'y', 10n)])).status).toBe(200);
    expect((await tx(ledger, [send('users:2', 'x', 900n)], '?force=true')).status).toBe(200);
    expect(await balance(ledger, 'users:2')).toBe(-1000n);
  });

  it('reads {"$meta": key} from the account metadata as stored before the transaction', async () => {
    const ledger = await fresh();
    await putMapping(ledger, {
      contracts: [{ account: 'credit:*', expr: { $gte: ['$balance', { $meta: 'floor' }] } }],
    });
    expect(
      (await call('POST', `/v2/${ledger}/accounts/credit:1/metadata`, { floor: '-300' })).status,
    ).toBe(204);
    expect((await tx(ledger, [send('credit:1', 'x', 300n)])).status).toBe(200);
    expect((await tx(ledger, [send('credit:1', 'x', 1n)])).body.errorCode).toBe(
      'INSUFFICIENT_FUND',
    );
    // No floor (or not an integer): the contract fails closed, even for a funded account.
    expect((await tx(ledger, [send('world', 'credit:2', 50n)])).status).toBe(200);
    expect((await tx(ledger, [send('credit:2', 'x', 1n)])).body.errorMessage).toContain(
      'breaks contract 0',
    );
    // accountMetadata of the same transaction applies from the next one.
    const same = await call('POST', `/v2/${ledger}/transactions`, {
      postings: [send('credit:2', 'x', 1n)],
      accountMetadata: { 'credit:2': { floor: '0' } },
    });
    expect(same.body.errorCode).toBe('INSUFFICIENT_FUND');
    expect(
      (await call('POST', `/v2/${ledger}/accounts/credit:2/metadata`, { floor: '0' })).status,
    ).toBe(204);
    expect((await tx(ledger, [send('credit:2', 'x', 50n)])).status).toBe(200);
    expect((await tx(ledger, [send('credit:2', 'x', 1n)])).body.errorCode).toBe(
      'INSUFFICIENT_FUND',
    );
  });

  it('checks reverts the same way (force bypasses)', async () => {
    const ledger = await fresh();
    await putMapping(ledger, { contracts: [overdraft('users:*', -50)] });
    expect((await tx(ledger, [send('world', 'users:1', 100n)])).status).toBe(200);
    expect((await tx(ledger, [send('users:1', 'shop', 100n)])).status).toBe(200);
    // Reverting the funding takes 100 back from users:1: -100 breaks the -50 floor.
    const refused = await call('POST', `/v2/${ledger}/transactions/1/revert`);
    expect(refused.status).toBe(400);
    expect(refused.body.errorMessage).toContain(
      'account "users:1" has insufficient funds for posting 0 (100 USD): balance would be -100, which breaks contract 0',
    );
    const forced = await call('POST', `/v2/${ledger}/transactions/1/revert?force=true`);
    expect(forced.status, forced.text).toBe(201);
    expect(await balance(ledger, 'users:1')).toBe(-100n);
  });

  it('checks every element of a bulk', async () => {
    const ledger = await fresh();
    await putMapping(ledger, { contracts: [overdraft('users:*', -10)] });
    const bulk = await call('POST', `/v2/${ledger}/_bulk?atomic=true`, [
      { action: 'CREATE_TRANSACTION', data: { postings: [send('users:1', 'x', 10n)] } },
      { action: 'CREATE_TRANSACTION', data: { postings: [send('users:1', 'x', 1n)] } },
    ]);
    expect(bulk.status).toBe(400);
    expect(bulk.body.data[1].errorCode).toBe('INSUFFICIENT_FUND');
    expect((await call('GET', `/v2/${ledger}/stats`)).body.data.transactions).toBe(0n);
  });

  it('never breaches a contract under 20 parallel spends: exactly 10 of 100 fit an overdraft of 1000', async () => {
    const ledger = await fresh();
    await putMapping(ledger, { contracts: [overdraft('users:*', -1000)] });
    // A 503 (the writer's retries exhausted under contention) wrote nothing: the caller may retry it.
    const spend = async (i: number) => {
      for (;;) {
        const res = await tx(ledger, [send('users:p', `shop:${i}`, 100n)]);
        if (res.status !== 503) return res;
      }
    };
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => spend(i)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(
      results.filter((r) => r.status === 400 && r.body.errorCode === 'INSUFFICIENT_FUND'),
    ).toHaveLength(10);
    expect(await balance(ledger, 'users:p')).toBe(-1000n);
    expect((await call('GET', `/v2/${ledger}/stats`)).body.data.transactions).toBe(10n);
  });

  it('a spend decided under the old mapping cannot commit after the mapping changed: it decides again', async () => {
    const ledger = await fresh();
    await putMapping(ledger, { contracts: [overdraft('users:*', -1000)] });
    let tightened: Awaited<ReturnType<typeof call>> | undefined;
    // The spend has decided (under -1000) and is about to commit: the mapping tightens to 0 first, so
    // DynamoDB Local refuses the spend's commit (HEAD's version moved).
    const writes = beforeFirstWrite(async () => {
      tightened = await putMapping(ledger, { contracts: [overdraft('users:*', 0)] });
    });
    const spend = await tx(ledger, [send('users:1', 'shop', 500n)]);
    expect(tightened?.status).toBe(200);
    expect(writes()).toBe(2); // the spend, the mapping; the spend decided again and was refused before writing
    expect(spend.status).toBe(400);
    expect(spend.body.errorMessage).toContain(
      'breaks contract 0 (account "users:*", expr {"$gte":["$balance",0]})',
    );
    mock!.restore();
    expect((await call('GET', `/v2/${ledger}/accounts/users:1`)).status).toBe(404);
  });

  it('a mapping change decided before a transaction committed is written after it, with one event', async () => {
    const ledger = await fresh();
    const writes = beforeFirstWrite(async () => {
      expect((await tx(ledger, [send('world', 'a', 5n)])).status).toBe(200);
    });
    expect((await putMapping(ledger, { contracts: [overdraft('a', 0)] })).status).toBe(200);
    mock!.restore();
    expect(writes()).toBe(3);
    const h = await head(ledger);
    // HEAD: 1 (transaction), 2 (mapping, second attempt); the transaction's count survived the mapping write.
    expect({
      version: Number(h.version),
      mappingVersion: Number(h.mappingVersion),
      lastTxId: Number(h.lastTxId),
      lastLogId: Number(h.lastLogId),
    }).toEqual({ version: 2, mappingVersion: 2, lastTxId: 1, lastLogId: 1 });
    const events = await ledgerEvents(ledger);
    expect(events.map((e) => e.type).sort()).toEqual([
      'ledger.committed_transactions',
      'ledger.updated_mapping',
    ]);
    const { Items = [] } = await runtime.doc.send(
      new QueryCommand({
        TableName: runtime.config.tables.ledger,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': `E#default#L#${ledger}` },
        ConsistentRead: true,
      }),
    );
    expect(Items.map((i) => i.sk).sort()).toEqual(['HEAD', 'MAPPING']);
  });

  it('a mapping replaced between the snapshot and the read of the mapping item: the write starts over', async () => {
    const ledger = await fresh();
    await putMapping(ledger, { contracts: [overdraft('users:*', -1000)] });
    // A fresh app has no cached mapping: its first write reads the item named by HEAD, and just before that
    // read, another writer (the test's app) replaces the mapping.
    const { call: other } = await ledgerClient(runtime);
    // The writer reads the mapping item by its port's consistent BatchGetItem.
    const isMappingRead = (command: { input: unknown }) =>
      Object.values(
        (command.input as { RequestItems?: Record<string, { Keys: Array<{ sk?: string }> }> })
          .RequestItems ?? {},
      ).some(({ Keys }) => Keys.some((key) => key.sk === 'MAPPING'));
    const reads = beforeFirst(
      BatchGetCommand,
      async () => {
        expect((await putMapping(ledger, { contracts: [overdraft('users:*', -10)] })).status).toBe(
          200,
        );
      },
      isMappingRead,
    );
    const spend = await other('POST', `/v2/${ledger}/transactions`, {
      postings: [send('users:1', 'shop', 500n)],
    });
    mock!.restore();
    // Read 1 found the item already at a newer version than the snapshot's HEAD named: the write started over
    // and read it again (read 2) under the new HEAD. (The app that wrote the mapping has it cached: no read.)
    expect(reads()).toBe(2);
    expect(spend.status).toBe(400);
    expect(spend.body.errorMessage).toContain('expr {"$gte":["$balance",-10]}');
  });

  it('keeps the mapping through every later write, and versions HEAD from items written before versions', async () => {
    const ledger = await fresh();
    // A new ledger's HEAD has no version yet (the registry writes it): the first write is guarded by lastLogId.
    expect((await head(ledger)).version).toBeUndefined();
    expect((await tx(ledger, [send('world', 'a', 5n)])).status).toBe(200);
    expect(Number((await head(ledger)).version)).toBe(1);
    await putMapping(ledger, { contracts: [overdraft('a', -5)] });
    for (let i = 0; i < 3; i++) expect((await tx(ledger, [send('a', 'b', 1n)])).status).toBe(200);
    expect((await call('POST', `/v2/${ledger}/transactions/2/metadata`, { k: 'v' })).status).toBe(
      204,
    );
    const h = await head(ledger);
    expect({ version: Number(h.version), mappingVersion: Number(h.mappingVersion) }).toEqual({
      version: 6,
      mappingVersion: 2,
    });
    // The mapping still decides: a has 2, may reach -5.
    expect((await tx(ledger, [send('a', 'b', 8n)])).body.errorMessage).toContain(
      'breaks contract 0',
    );
    expect((await tx(ledger, [send('a', 'b', 7n)])).status).toBe(200);
  });
});
