/**
 * Whether a ledger has schema versions, as a container learns it: from the ledger's record (set by the first
 * insert, in the same transaction), without a query of its versions; a record from before the flag asks the
 * versions instead.
 */
import { randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lib/dynamo/client.js';
import { DEFAULT_FEATURES } from '../../../lib/ledger/domain/features.js';
import { BucketTables } from '../../../lib/ledger/store/bucket-tables.js';
import { type LedgerRecord, LedgerRegistry } from '../../../lib/ledger/store/registry.js';
import { SchemaStore } from '../../../lib/ledger/store/schema-store.js';
import { instantFromMs } from '../../../lib/time/instant.js';
import { testTables } from '../../support/tables.js';

let doc: DynamoDBDocumentClient;
let buckets: BucketTables;
let registry: LedgerRegistry;

/** A container's schema store, counting the queries of versions it makes. */
function container() {
  let queries = 0;
  const counted = Object.assign(Object.create(doc) as DynamoDBDocumentClient, {
    send: (command: unknown) => {
      if (command instanceof QueryCommand) queries++;
      return doc.send(command as QueryCommand);
    },
  });
  const store = new SchemaStore(counted, () => buckets.defaultTable, buckets.defaultTable);
  return { store, queries: () => queries };
}

const create = () =>
  registry.create({
    environment: 'default',
    name: `flag-${randomUUID().slice(0, 8)}`,
    bucket: '_default',
    metadata: {},
    features: { ...DEFAULT_FEATURES },
    addedAt: new Date().toISOString(),
  });

beforeAll(async () => {
  const { runtime } = await testTables();
  doc = createDocumentClient(runtime.connection, { bigintNumbers: true });
  buckets = new BucketTables(runtime.config.tables.ledger);
  registry = new LedgerRegistry(doc, buckets);
});

describe("a ledger's schema versions, known from its record", () => {
  it('says none for a new ledger and some once a version is inserted, without a query of the versions', async () => {
    const created = await create();
    expect(created.schemas).toBe(false);
    expect((await registry.get(created))?.schemas).toBe(false);

    const reader = container();
    expect(await reader.store.hasSchemas(created)).toBe(false);

    const writer = container();
    expect(
      await writer.store.insert(
        created,
        'v1',
        { chart: { world: {} } },
        instantFromMs(Date.UTC(2026, 0, 1)),
      ),
    ).toBe(true);
    const reread = (await registry.get(created))!;
    expect(reread.schemas).toBe(true);
    expect(await reader.store.hasSchemas(reread)).toBe(true);
    expect(reader.queries()).toBe(0);

    // A version inserted twice: refused, nothing written, and the record still says some.
    expect(
      await writer.store.insert(
        created,
        'v1',
        { chart: { world: {} } },
        instantFromMs(Date.UTC(2026, 0, 1, 0, 0, 1)),
      ),
    ).toBe(false);
    expect((await registry.get(created))?.schemas).toBe(true);
    expect(writer.queries()).toBe(0);
  });

  it('asks the versions when the record is from before the flag', async () => {
    const created = await create();
    const { schemas: _, ...legacy } = created;
    const reader = container();
    expect(await reader.store.hasSchemas(legacy as LedgerRecord)).toBe(false);
    expect(reader.queries()).toBe(1);
    await container().store.insert(
      created,
      'v1',
      { chart: { world: {} } },
      instantFromMs(Date.UTC(2026, 0, 1)),
    );
    // Another ledger's record from before the flag, with a version: found by the query, then known.
    const other = container();
    expect(await other.store.hasSchemas(legacy as LedgerRecord)).toBe(true);
    expect(await other.store.hasSchemas(legacy as LedgerRecord)).toBe(true);
    expect(other.queries()).toBe(1);
  });
});

describe("a ledger's schema versions, by creation", () => {
  it('lists and picks the newest by time within one second, whatever zeros the API form drops', async () => {
    const created = await create();
    const { store } = container();
    const second = Date.UTC(2026, 0, 1, 12, 0, 59);
    // Created in this order; the API shows them as …:59Z, …:59.1Z, …:59.12Z, …:59.5Z.
    const versions: Array<[string, number]> = [
      ['a', second],
      ['b', second + 100],
      ['c', second + 120],
      ['d', second + 500],
    ];
    for (const [version, ms] of versions)
      expect(
        await store.insert(created, version, { chart: { world: {} } }, instantFromMs(ms)),
      ).toBe(true);
    expect(await store.latestVersion(created)).toBe('d');
    const newest = await store.list(created, { pageSize: 10 }, false);
    expect(newest.data.map((s) => [s.version, s.createdAt])).toEqual([
      ['d', '2026-01-01T12:00:59.5Z'],
      ['c', '2026-01-01T12:00:59.12Z'],
      ['b', '2026-01-01T12:00:59.1Z'],
      ['a', '2026-01-01T12:00:59Z'],
    ]);
  });
});
