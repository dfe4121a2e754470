/**
 * What an item costs DynamoDB Local, by the shape of the commit that writes it: the measurement behind the write
 * path's open design problem (docs/decisions/ledger-write-path.md, "items per transaction"). A DynamoDB Local on
 * disk as `npm start` runs it (write-ahead log, tiered JIT, warmed first), one caller, commits in sequence, each
 * followed by the local durability read; the emulator's CPU (its JVM's, from /proc) and the wall time per
 * commit, then per item. The shapes vary one thing at a time: items per TransactWriteItems, an item in the
 * global index or not, its size, a condition on it, and a BatchWriteItem of the same items.
 *
 *   npx tsx bench/dynamodb-item-cost.ts        (about a minute; run it on a quiet machine)
 */
import { readdirSync, readFileSync } from 'node:fs';
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  type DynamoDBClient,
  TransactWriteItemsCommand,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { durabilityRead, withDiskEmulator } from './dynamo-floor.js';

interface Shape {
  name: string;
  items: number;
  bytes: number;
  indexed: boolean;
  conditioned: boolean;
  batch: boolean;
}

const COMMITS = 150;
const base = { bytes: 400, indexed: false, conditioned: false, batch: false };
const SHAPES: Shape[] = [
  { name: '1 item', items: 1, ...base },
  { name: '10 items', items: 10, ...base },
  { name: '30 items', items: 30, ...base },
  { name: '100 items', items: 100, ...base },
  { name: '30 items, each in the index', items: 30, ...base, indexed: true },
  { name: '30 items of 100 B', items: 30, ...base, bytes: 100 },
  { name: '30 items of 1,600 B', items: 30, ...base, bytes: 1600 },
  { name: '30 items, each conditioned on absence', items: 30, ...base, conditioned: true },
  { name: '25 items by BatchWriteItem', items: 25, ...base, batch: true },
  { name: '25 items by TransactWriteItems', items: 25, ...base },
];

/** Linux's clock ticks per second (`getconf CLK_TCK`), the unit of /proc/<pid>/stat's times. */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) of every DynamoDB Local JVM on the machine. */
function cpuSeconds(): number {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('DynamoDBLocal.jar')) continue;
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

async function main(): Promise<void> {
  await withDiskEmulator('item-cost', async (client) => {
    await client.send(
      new CreateTableCommand({
        TableName: 'items',
        AttributeDefinitions: ['pk', 'sk', 'gsi1pk', 'gsi1sk'].map((name) => ({
          AttributeName: name,
          AttributeType: 'S',
        })),
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: 'gsi1',
            KeySchema: [
              { AttributeName: 'gsi1pk', KeyType: 'HASH' },
              { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    // Uncounted: the JVM compiles as it serves.
    for (const shape of SHAPES) await commits(client, shape, COMMITS, `warm-${shape.name}`);
    console.log('| Commit | ms per commit (p50) | emulator CPU-ms per commit | CPU-ms per item |');
    console.log('|---|---|---|---|');
    for (const shape of SHAPES) {
      const cpuBefore = cpuSeconds();
      const times = await commits(client, shape, COMMITS, shape.name);
      const cpuMs = ((cpuSeconds() - cpuBefore) * 1000) / COMMITS;
      const p50 = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
      console.log(
        `| ${shape.name} | ${p50.toFixed(2)} | ${cpuMs.toFixed(2)} | ${(cpuMs / shape.items).toFixed(3)} |`,
      );
    }
  });
}

async function commits(
  client: DynamoDBClient,
  shape: Shape,
  count: number,
  tag: string,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const items = Array.from({ length: shape.items }, (_, k) => ({
      pk: { S: `${tag}#${k}` },
      sk: { S: String(i).padStart(15, '0') },
      ...(shape.indexed
        ? { gsi1pk: { S: `${tag}#index` }, gsi1sk: { S: `${String(i).padStart(15, '0')}#${k}` } }
        : {}),
      body: { S: 'x'.repeat(shape.bytes) },
    }));
    const started = performance.now();
    if (shape.batch)
      await client.send(
        new BatchWriteItemCommand({
          RequestItems: {
            items: items.map((Item): WriteRequest => ({ PutRequest: { Item } })),
          },
        }),
      );
    else
      await client.send(
        new TransactWriteItemsCommand({
          TransactItems: items.map((Item) => ({
            Put: {
              TableName: 'items',
              Item,
              ...(shape.conditioned ? { ConditionExpression: 'attribute_not_exists(pk)' } : {}),
            },
          })),
        }),
      );
    await durabilityRead(client, 'items');
    times.push(performance.now() - started);
  }
  return times;
}

await main();
