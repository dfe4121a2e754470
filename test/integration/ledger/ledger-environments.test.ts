/**
 * Environments never meet (docs/data-model.md, "Environments: every key says which") in the ledger: tokens of two
 * environments, A and B, each with a ledger `main` of different contents, in one app (one LedgerLookup cache) over
 * one set of tables. Every route B calls on A's ledger names sees B's own ledger, or 404 when B has none; A's
 * cursors, idempotency keys and references mean nothing in B; writes in B (direct, bulk, revert, metadata, mapping,
 * import, group commit) never move A's HEAD; and every item written carries its environment in its partition keys.
 */
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lib/dynamo/client.js';
import { environmentOfKey } from '../../../lib/environments/key-scope.js';
import { stringifyJson } from '../../../lib/json/bigint-json.js';
import { BucketTables } from '../../../lib/ledger/store/bucket-tables.js';
import { ledgersExist } from '../../../lib/ledger/store/environment-probe.js';
import { ledgerKeys, registryKeys } from '../../../lib/ledger/store/keys.js';
import { LedgerLookup } from '../../../lib/ledger/store/ledger-lookup.js';
import { LedgerRegistry } from '../../../lib/ledger/store/registry.js';
import {
  handleIntents,
  type WriterDeps,
  type WriterScope,
} from '../../../lib/ledger/write/writer-handler.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';
import { WAIT_LIMIT_MS } from '../../support/time-scale.js';

type Client = Awaited<ReturnType<typeof ledgerClient>>;
const A = 'env-a';
const B = 'env-b';
let runtime: ServiceRuntime;
let a: Client;
let b: Client;
const OCTETS = { 'content-type': 'application/octet-stream' };
const ALL_FEATURES = {
  features: {
    INDEX_ACCOUNT_BALANCES: 'ON',
    MOVES_HISTORY: 'ON',
    INDEX_ADDRESS_SEGMENTS: 'ON',
    INDEX_TRANSACTION_ACCOUNTS: 'ON',
  },
};
const send = (source: string, destination: string, amount: bigint, asset: string) => ({
  postings: [{ source, destination, amount, asset }],
});

/** HEAD of a ledger, read by its key (what every write of the ledger moves). */
async function headOf(environment: string, name: string) {
  const { Item } = await runtime.doc.send(
    new GetCommand({
      TableName: runtime.config.tables.ledger,
      Key: ledgerKeys.head({ environment, name }),
      ConsistentRead: true,
    }),
  );
  return Item;
}

async function exportOf(client: Client, ledger: string): Promise<string> {
  const res = await client.app.request(`/api/ledger/v2/${ledger}/logs/export`, {
    method: 'POST',
    headers: { authorization: `Bearer ${client.token}` },
  });
  expect(res.status).toBe(200);
  return res.text();
}

beforeAll(async () => {
  ({ runtime } = await testTables());
  a = await ledgerClient(runtime, { environment: A });
  // The same app: one lookup cache serves both environments.
  b = await ledgerClient(runtime, { environment: B, app: a.app });

  expect(
    (await a.call('POST', '/v2/main', { metadata: { owner: 'a' }, ...ALL_FEATURES })).status,
  ).toBe(204);
  expect((await a.call('POST', '/v2/only-a', { bucket: 'shared' })).status).toBe(204);
  expect((await b.call('POST', '/v2/main', { metadata: { owner: 'b' } })).status).toBe(204);
  for (const [client, body] of [
    [a, { ...send('world', 'alice', 100n, 'USD'), reference: 'r-1', metadata: { k: 'a' } }],
    [a, send('alice', 'anna', 30n, 'USD')],
    [b, send('world', 'bob', 7n, 'EUR')],
  ] as const) {
    const res = await client.call('POST', '/v2/main/transactions', body);
    expect(res.status, res.text).toBe(200);
  }
  expect(
    (
      await a.call('PUT', '/main/mapping', {
        contracts: [{ account: '*', expr: { $gte: ['$balance', 0] } }],
      })
    ).status,
  ).toBe(200);
});

describe('ledgers are per environment', () => {
  it('the same name in both, ids from 1 in each, different contents; lists show only their own', async () => {
    const mainA = (await a.call('GET', '/v2/main')).body.data;
    const mainB = (await b.call('GET', '/v2/main')).body.data;
    expect([mainA.id, mainA.metadata]).toEqual([1n, { owner: 'a' }]);
    expect([mainB.id, mainB.metadata]).toEqual([1n, { owner: 'b' }]);
    expect((await a.call('GET', '/v2/only-a')).body.data.id).toBe(2n);
    expect(
      (await a.call('GET', '/v2')).body.cursor.data.map((l: { name: string }) => l.name),
    ).toEqual(['main', 'only-a']);
    expect(
      (await b.call('GET', '/v2')).body.cursor.data.map((l: { name: string }) => l.name),
    ).toEqual(['main']);
    expect((await b.call('GET', '/v2?bucket=shared')).body.cursor.data).toEqual([]);
    expect((await b.call('GET', '/_info')).body.data.config.storage.ledgers).toEqual(['main']);
    expect(await ledgersExist(runtime.doc, runtime.config.tables.ledger, A)).toBe(true);
    expect(await ledgersExist(runtime.doc, runtime.config.tables.ledger, B)).toBe(true);
    expect(await ledgersExist(runtime.doc, runtime.config.tables.ledger, 'env-empty')).toBe(false);
  });

  it("every route of B on A's ledger names sees B's ledger, or 404 where B has none", async () => {
    const txB = (await b.call('GET', '/v2/main/transactions')).body.cursor.data;
    expect(txB.map((t: { id: bigint; postings: unknown[] }) => [t.id, t.postings])).toEqual([
      [1n, [{ source: 'world', destination: 'bob', amount: 7n, asset: 'EUR' }]],
    ]);
    expect((await b.call('GET', '/v2/main/transactions/2')).status).toBe(404);
    expect((await b.call('GET', '/v2/main/accounts/alice')).status).toBe(404);
    const accountsB = (await b.call('GET', '/v2/main/accounts')).body.cursor.data;
    expect(accountsB.map((x: { address: string }) => x.address)).toEqual(['bob', 'world']);
    const volumesB = (await b.call('GET', '/v2/main/volumes')).body.cursor.data;
    expect(
      volumesB.map((v: { account: string; asset: string }) => `${v.account}/${v.asset}`),
    ).toEqual(['bob/EUR', 'world/EUR']);
    expect(
      (await b.call('GET', '/v2/main/aggregate/balances?query={"$match":{"address":"bob"}}')).body,
    ).toEqual({ data: { EUR: 7n } });
    expect(
      (await a.call('GET', '/v2/main/aggregate/balances?query={"$match":{"address":"alice"}}'))
        .body,
    ).toEqual({ data: { USD: 70n } });
    const logsB = (await b.call('GET', '/v2/main/logs')).body.cursor.data;
    expect(logsB.map((l: { id: bigint }) => l.id)).toEqual([1n]);
    expect((await b.call('GET', '/v2/main/stats')).body.data).toEqual({
      accounts: 2n,
      transactions: 1n,
    });
    expect((await a.call('GET', '/v2/main/stats')).body.data).toEqual({
      accounts: 3n,
      transactions: 2n,
    });
    expect((await b.call('GET', '/v2/main/_info')).body.data.name).toBe('main');
    // v1 routes.
    expect(
      (await b.call('GET', '/main/transactions')).body.cursor.data.map(
        (t: { txid: bigint }) => t.txid,
      ),
    ).toEqual([1n]);
    expect(
      (await b.call('GET', '/main/accounts')).body.cursor.data.map(
        (x: { address: string }) => x.address,
      ),
    ).toEqual(['bob', 'world']);
    expect((await b.call('GET', '/main/balances')).body.cursor.data).toEqual([
      { bob: { EUR: 7n } },
      { world: { EUR: -7n } },
    ]);
    expect((await b.call('GET', '/main/stats')).body.data).toEqual({
      accounts: 2n,
      transactions: 1n,
    });
    expect((await b.call('GET', '/main/logs')).body.cursor.data).toHaveLength(1);
    expect((await b.call('GET', '/main/mapping')).body).toEqual({ data: null });
    expect((await a.call('GET', '/main/mapping')).body.data.contracts).toHaveLength(1);
    // A ledger only A has: not found in B, on every kind of route.
    for (const [method, path, status] of [
      ['GET', '/v2/only-a', 404],
      ['GET', '/v2/only-a/transactions', 404],
      ['GET', '/v2/only-a/accounts', 404],
      ['GET', '/v2/only-a/volumes', 404],
      ['GET', '/v2/only-a/logs', 404],
      ['GET', '/v2/only-a/stats', 404],
      ['GET', '/v2/only-a/_info', 404],
      ['POST', '/v2/only-a/logs/export', 404],
      ['PUT', '/v2/only-a/metadata', 404],
      ['POST', '/v2/only-a/transactions', 404],
      ['POST', '/v2/only-a/_bulk', 404],
      ['GET', '/only-a/transactions', 404],
      ['GET', '/only-a/accounts', 404],
      ['GET', '/only-a/stats', 404],
      ['GET', '/only-a/mapping', 404],
      ['POST', '/only-a/script', 404],
    ] as const) {
      const body =
        method === 'GET'
          ? undefined
          : method === 'PUT'
            ? { x: '1' }
            : path.endsWith('_bulk')
              ? []
              : send('world', 'x', 1n, 'USD');
      const res = await b.call(method, path, body);
      expect([path, res.status]).toEqual([path, status]);
    }
    // B creating its own `only-a` gets id 2 in B, an empty ledger.
    expect((await b.call('POST', '/v2/only-a')).status).toBe(204);
    expect((await b.call('GET', '/v2/only-a')).body.data.id).toBe(2n);
    expect((await b.call('GET', '/v2/only-a/transactions')).body.cursor.data).toEqual([]);
  });

  it("A's cursors, v2 and v1, replayed with B's token never return A's data", async () => {
    const pages = [
      '/v2?pageSize=1',
      '/v2/main/transactions?pageSize=1',
      '/v2/main/accounts?pageSize=1',
      '/v2/main/volumes?pageSize=1',
      '/v2/main/logs?pageSize=1',
      '/main/transactions?pageSize=1',
      '/main/accounts?pageSize=1',
      '/main/balances?pageSize=1',
      '/main/logs?pageSize=1',
    ];
    const aText = JSON.stringify(
      await Promise.all(pages.map(async (p) => (await a.call('GET', p)).text)),
    );
    expect(aText).toContain('alice');
    for (const page of pages) {
      const first = await a.call('GET', page);
      const next = first.body.cursor.next as string;
      expect(next, page).toBeDefined();
      const path = page.slice(0, page.indexOf('?'));
      const replay = await b.call('GET', `${path}?cursor=${next}`);
      // A forged cursor for B (its keys name A's partitions): refused, never served.
      expect([page, replay.status, replay.body.errorCode]).toEqual([page, 400, 'VALIDATION']);
      expect(replay.text).not.toContain('alice');
      expect(replay.text).not.toContain('anna');
    }
  });

  it('equal idempotency keys and references in A and B do not collide', async () => {
    const ik = { 'Idempotency-Key': 'ik-shared' };
    const inA = await a.call(
      'POST',
      '/v2/main/transactions',
      { ...send('world', 'alice', 1n, 'USD'), reference: 'r-shared' },
      ik,
    );
    expect(inA.status).toBe(200);
    // Same key, another body, same reference: in B it is a first write, not a replay nor a conflict.
    const inB = await b.call(
      'POST',
      '/v2/main/transactions',
      { ...send('world', 'bob', 2n, 'EUR'), reference: 'r-shared' },
      ik,
    );
    expect(inB.status, inB.text).toBe(200);
    expect(inB.headers.get('idempotency-hit')).toBeNull();
    expect(inB.body.data).toMatchObject({ id: 2n, reference: 'r-shared' });
    // A's reference r-1 is free in B.
    const r1 = await b.call('POST', '/v2/main/transactions', {
      ...send('world', 'bob', 1n, 'EUR'),
      reference: 'r-1',
    });
    expect(r1.status).toBe(200);
    // And each replays in its own environment.
    const againB = await b.call(
      'POST',
      '/v2/main/transactions',
      { ...send('world', 'bob', 2n, 'EUR'), reference: 'r-shared' },
      ik,
    );
    expect([againB.status, againB.headers.get('idempotency-hit'), againB.body.data.id]).toEqual([
      200,
      'true',
      2n,
    ]);
    const againA = await a.call(
      'POST',
      '/v2/main/transactions',
      { ...send('world', 'alice', 1n, 'USD'), reference: 'r-shared' },
      ik,
    );
    expect([againA.status, againA.headers.get('idempotency-hit'), againA.body.data.id]).toEqual([
      200,
      'true',
      3n,
    ]);
  });

  it("writes in B (revert, metadata, bulk, script, mapping, import) never change A's HEAD or data", async () => {
    const headA = await headOf(A, 'main');
    const tx1A = (await a.call('GET', '/v2/main/transactions/1')).body.data;
    expect((await b.call('POST', '/v2/main/transactions/1/revert')).status).toBe(201);
    expect((await b.call('POST', '/v2/main/transactions/1/metadata', { k: 'b' })).status).toBe(204);
    expect((await b.call('PUT', '/v2/main/metadata', { owner: 'still-b' })).status).toBe(204);
    expect((await b.call('POST', '/main/transactions/1/metadata', { v1: 'b' })).status).toBe(204);
    const bulk = await b.call('POST', '/v2/main/_bulk', [
      { action: 'CREATE_TRANSACTION', data: send('world', 'bob', 5n, 'EUR') },
      {
        action: 'ADD_METADATA',
        data: { targetType: 'ACCOUNT', targetId: 'bob', metadata: { t: '1' } },
      },
    ]);
    expect(bulk.status, bulk.text).toBe(200);
    const script = await b.call('POST', '/main/script', {
      plain: 'send [EUR 1] (\n source = @world\n destination = @bob\n)',
    });
    expect(script.status, script.text).toBe(200);
    expect((await b.call('PUT', '/main/mapping', { contracts: [] })).status).toBe(200);
    // The revert in B reverted B's transaction 1, not A's.
    expect((await b.call('GET', '/v2/main/transactions/1')).body.data).toMatchObject({
      reverted: true,
      metadata: { k: 'b', v1: 'b' },
    });
    expect(await headOf(A, 'main')).toEqual(headA);
    expect((await a.call('GET', '/v2/main/transactions/1')).body.data).toEqual(tx1A);
    expect(tx1A).toMatchObject({ reverted: false, metadata: { k: 'a' } });
    expect((await a.call('GET', '/v2/main')).body.data.metadata).toEqual({ owner: 'a' });
    expect((await a.call('GET', '/main/mapping')).body.data.contracts).toHaveLength(1);

    // A's export imports into a new ledger of B: the same log, hashes and all (no environment in a log entry).
    const exported = await exportOf(a, 'main');
    expect((await b.call('POST', '/v2/copy-of-a')).status).toBe(204);
    const imported = await b.call('POST', '/v2/copy-of-a/logs/import', exported, OCTETS);
    expect([imported.status, imported.text]).toEqual([204, '']);
    expect(await exportOf(b, 'copy-of-a')).toBe(exported);
    expect((await b.call('GET', '/v2/copy-of-a/logs?pageSize=100')).body.cursor.data).toEqual(
      (await a.call('GET', '/v2/main/logs?pageSize=100')).body.cursor.data,
    );
    // B's `main` is not empty (its own writes): the import is refused there, whatever A's `main` holds.
    expect((await b.call('POST', '/v2/main/logs/import', exported, OCTETS)).body.errorCode).toBe(
      'IMPORT',
    );
    expect(await headOf(A, 'main')).toEqual(headA);
  });

  it("deleting a bucket in B marks only B's ledgers of it; A's stay", async () => {
    expect((await b.call('POST', '/v2/in-shared', { bucket: 'shared' })).status).toBe(204);
    expect((await b.call('DELETE', '/v2/_/buckets/shared')).status).toBe(204);
    expect((await b.call('GET', '/v2/in-shared')).status).toBe(404);
    expect((await a.call('GET', '/v2/only-a')).body.data).toMatchObject({ bucket: 'shared' });
    expect((await a.call('GET', '/v2/only-a')).body.data.deletedAt).toBeUndefined();
    // A bucket where the caller's environment has no ledger is not found, whatever others have in it.
    expect((await b.call('DELETE', '/v2/_/buckets/shared')).status).toBe(204);
    expect((await a.call('DELETE', '/v2/_/buckets/nothing-of-a')).status).toBe(404);
    expect((await b.call('POST', '/v2/_/buckets/shared/restore')).status).toBe(204);
    expect((await b.call('GET', '/v2/in-shared')).status).toBe(200);
  });

  it('group commit keeps environments apart: one batch, both environments, even equal request ids', async () => {
    // What the isolation guard checks in AWS (dynamodb:LeadingKeys under the environment's credentials), checked here
    // on every call: the writer works on each ledger through its environment's client (`scopeFor`), and that client
    // carries only that environment's keys.
    const calls: Array<{ environment: string; input: string }> = [];
    const table = runtime.config.tables.ledger;
    const buckets = new BucketTables(table);
    const clientOf = (environment: string) => {
      const doc = createDocumentClient(runtime.connection, { bigintNumbers: true });
      doc.middlewareStack.add(
        (next) => async (args) => {
          calls.push({
            environment,
            input: JSON.stringify(args.input, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
          });
          return next(args);
        },
        { step: 'initialize' },
      );
      return doc;
    };
    const scopes = new Map<string, WriterScope>();
    const deps: WriterDeps = {
      scopeFor: (environment) => {
        let scope = scopes.get(environment);
        if (!scope) {
          const doc = clientOf(environment);
          scope = { doc, lookup: new LedgerLookup(new LedgerRegistry(doc, buckets)) };
          scopes.set(environment, scope);
        }
        return scope;
      },
      tableFor: () => table,
      owner: 'test-writer',
    };
    const before = { a: (await headOf(A, 'main'))!, b: (await headOf(B, 'main'))! };
    const intent = (environment: string | undefined, destination: string, asset: string) =>
      stringifyJson({
        reqId: 'same-request-id',
        ...(environment ? { environment } : {}),
        ledger: 'main',
        deadline: Date.now() + WAIT_LIMIT_MS,
        operation: {
          kind: 'create',
          input: send('world', destination, 9n, asset),
          options: { dryRun: false, force: false },
        },
      });
    const { batchItemFailures } = await handleIntents(
      [
        { messageId: 'm-a', body: intent(A, 'alice', 'USD') },
        { messageId: 'm-b', body: intent(B, 'bob', 'EUR') },
        // Queued by a version before environments: refused (to the dead-letter queue), never guessed.
        { messageId: 'm-old', body: intent(undefined, 'mallory', 'USD') },
      ],
      deps,
    );
    expect(batchItemFailures).toEqual([{ itemIdentifier: 'm-old' }]);
    expect([...scopes.keys()].sort()).toEqual([A, B].sort());
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect([A, B]).toContain(call.environment);
      const named = [...call.input.matchAll(/"E#([a-z0-9-]+)#/g)].map((m) => m[1]);
      expect(named.length).toBeGreaterThan(0);
      expect(new Set(named)).toEqual(new Set([call.environment]));
    }
    const after = { a: (await headOf(A, 'main'))!, b: (await headOf(B, 'main'))! };
    expect(Number(after.a.lastTxId)).toBe(Number(before.a.lastTxId) + 1);
    expect(Number(after.b.lastTxId)).toBe(Number(before.b.lastTxId) + 1);
    const resultOf = async (environment: string) => {
      const { Item } = await runtime.doc.send(
        new GetCommand({
          TableName: table,
          Key: ledgerKeys.result({ environment, name: 'main' }, 'same-request-id'),
          ConsistentRead: true,
        }),
      );
      return JSON.parse(String(Item!.result));
    };
    const [resA, resB] = [await resultOf(A), await resultOf(B)];
    expect(resA.outcomes[0].result.postings[0].destination).toBe('alice');
    expect(resB.outcomes[0].result.postings[0].destination).toBe('bob');
    const lastA = (await a.call('GET', `/v2/main/transactions/${Number(after.a.lastTxId)}`)).body
      .data;
    const lastB = (await b.call('GET', `/v2/main/transactions/${Number(after.b.lastTxId)}`)).body
      .data;
    expect([lastA.postings[0].destination, lastB.postings[0].destination]).toEqual([
      'alice',
      'bob',
    ]);
    expect(
      JSON.stringify((await a.call('GET', '/v2/main/accounts?pageSize=100')).text),
    ).not.toContain('mallory');
  });
});

describe('every item written carries its environment', () => {
  it('every pk and gsi1pk of the ledger table starts E#<environment># of the ledger it belongs to', async () => {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await runtime.doc.send(
        new ScanCommand({
          TableName: runtime.config.tables.ledger,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    expect(items.length).toBeGreaterThan(80);
    const unscoped = items.filter((i) => environmentOfKey(String(i.pk)) === undefined);
    expect(unscoped.map((i) => i.pk)).toEqual([]);
    const gsiElsewhere = items.filter(
      (i) =>
        i.gsi1pk !== undefined &&
        environmentOfKey(String(i.gsi1pk)) !== environmentOfKey(String(i.pk)),
    );
    expect(gsiElsewhere.map((i) => [i.pk, i.gsi1pk])).toEqual([]);
    // Each environment's items name only its own ledgers.
    const ledgersOf = (environment: string) =>
      new Set(
        items
          .map((i) => String(i.pk))
          .filter((pk) => environmentOfKey(pk) === environment)
          .flatMap((pk) => /^E#[^#]+#L#([^#]+)/.exec(pk)?.[1] ?? []),
      );
    expect([...ledgersOf(A)].sort()).toEqual(['main', 'only-a']);
    expect([...ledgersOf(B)].sort()).toEqual(['copy-of-a', 'in-shared', 'main', 'only-a']);
    expect(new Set(items.map((i) => environmentOfKey(String(i.pk))))).toEqual(new Set([A, B]));
    // Every kind of item is there: registry, sequence, bucket members, HEAD, log, transactions, accounts,
    // volumes, indexes, references, idempotency, results, mapping.
    const pks = items.map((i) => String(i.pk));
    for (const expected of [
      registryKeys.sequence(A).pk,
      registryKeys.ledger({ environment: B, name: 'main' }).pk,
      registryKeys.bucketPartition(A, 'shared'),
      ledgerKeys.mapping({ environment: A, name: 'main' }).pk,
      ledgerKeys.idempotency({ environment: B, name: 'main' }, 'ik-shared').pk,
      ledgerKeys.reference({ environment: B, name: 'main' }, 'r-shared').pk,
      ledgerKeys.result({ environment: A, name: 'main' }, 'same-request-id').pk,
    ])
      expect(pks).toContain(expected);
    expect(items.some((i) => String(i.gsi1pk).startsWith(`E#${A}#L#main#BAL#`))).toBe(true);
  });
});
