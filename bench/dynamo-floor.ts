/**
 * What one client's commit can cost at best on DynamoDB Local, with no platform around it: a DynamoDB Local on disk
 * as `npm start` runs it, one caller, and in sequence what a single-transaction request needs at the least — one
 * TransactWriteItems of the commit's items, then the local durability read (infra/local/durability-barrier.ts:
 * the emulator answers a transaction before its COMMIT has run). The item counts are the commit's: 5 for a
 * transaction between two known accounts, 8 when it creates an account (its item and two address-segment items).
 * The inverse of the p50 is the most one client can commit there, whatever the engine does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { startDynamoLocal } from '../infra/local/dynamodb-local.js';

export interface FloorRow {
  /** Items in the TransactWriteItems. */
  items: number;
  /** The transaction and the durability read, in sequence. */
  p50Ms: number;
  p99Ms: number;
  /** 1000 / p50: one client's ceiling on this emulator. */
  ceilingTxPerSec: number;
}

export interface DynamoFloorResult {
  commits: number;
  rows: FloorRow[];
}

const ITEM_COUNTS = [5, 8];
const COMMITS = 400;
/** Roughly a transaction's and a volume's size: the emulator's cost grows with bytes too. */
const ITEM_BYTES = 400;

/**
 * A DynamoDB Local on disk as `npm start` runs it (its own data directory, the optimizing JVM) and a client of it
 * for `run`; both gone after.
 */
export async function withDiskEmulator<T>(
  name: string,
  run: (client: DynamoDBClient) => Promise<T>,
): Promise<T> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `bench-${name}-`));
  const local = await startDynamoLocal({ dataDir, compiler: 'optimizing' });
  const client = new DynamoDBClient({
    endpoint: local.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  });
  try {
    return await run(client);
  } finally {
    client.destroy();
    await local.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The local gateway's durability read (infra/local/durability-barrier.ts): a consistent read of an item that never
 * exists, which returns once every COMMIT the emulator queued before it has run.
 */
export function durabilityRead(client: DynamoDBClient, table: string): Promise<unknown> {
  return client.send(
    new GetItemCommand({
      TableName: table,
      Key: { pk: { S: 'barrier' }, sk: { S: '-' } },
      ConsistentRead: true,
    }),
  );
}

export function measureDynamoFloor(log: (line: string) => void): Promise<DynamoFloorResult> {
  return withDiskEmulator('floor', async (client) => {
    await client.send(
      new CreateTableCommand({
        TableName: 'floor',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
      }),
    );
    const rows: FloorRow[] = [];
    // First, uncounted rounds of every size: the JVM compiles as it serves, and a size measured first would
    // otherwise pay for it (one run measured 5 items slower than 8 that way).
    for (const items of ITEM_COUNTS) await commitLoop(client, items, COMMITS, `warm-${items}`);
    for (const items of ITEM_COUNTS) {
      const times = await commitLoop(client, items, COMMITS, `n${items}`);
      const p50Ms = percentile(times, 0.5);
      const row = {
        items,
        p50Ms,
        p99Ms: percentile(times, 0.99),
        ceilingTxPerSec: Math.round(1000 / p50Ms),
      };
      log(
        `  ${items} items: p50 ${row.p50Ms} ms, p99 ${row.p99Ms} ms (${row.ceilingTxPerSec} tx/s at one client at best)`,
      );
      rows.push(row);
    }
    return { commits: COMMITS, rows };
  });
}

async function commitLoop(
  client: DynamoDBClient,
  items: number,
  commits: number,
  tag: string,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < commits; i++) {
    const started = performance.now();
    await client.send(
      new TransactWriteItemsCommand({
        TransactItems: Array.from({ length: items }, (_, k) => ({
          Put: {
            TableName: 'floor',
            Item: {
              pk: { S: `${tag}#${k}` },
              sk: { S: String(i).padStart(15, '0') },
              body: { S: 'x'.repeat(ITEM_BYTES) },
            },
          },
        })),
      }),
    );
    await durabilityRead(client, 'floor');
    times.push(performance.now() - started);
  }
  return times;
}

function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return Math.round(at * 100) / 100;
}

export function renderDynamoFloor(r: DynamoFloorResult): string {
  const rows = r.rows
    .map((x) => `| ${x.items} | ${x.p50Ms} | ${x.p99Ms} | ${x.ceilingTxPerSec} |`)
    .join('\n');
  return `## One client's floor on DynamoDB Local (issue #28 item 5)

A DynamoDB Local on disk, nothing else: one caller, ${r.commits} times in sequence, a TransactWriteItems of the
commit's items (${ITEM_BYTES} B each) and then the durability read the local gateway needs before it may answer.
No engine, HTTP or decision is in it: it is what one client's commit costs on this emulator at the least.

| Items | p50 (ms) | p99 (ms) | One client's ceiling (tx/s) |
|---|---|---|---|
${rows}
`;
}
