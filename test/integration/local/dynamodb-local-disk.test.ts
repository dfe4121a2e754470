import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { startDynamoLocal } from '../../../infra/local/dynamodb-local.js';

const dataDir = mkdtempSync(join(tmpdir(), 'dynamodb-disk-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const clientOf = (endpoint: string) =>
  new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });

async function journalMode(): Promise<unknown> {
  const { DatabaseSync } = await import('node:sqlite');
  const db = new DatabaseSync(join(dataDir, 'dynamodb', 'shared-local-instance.db'), {
    readOnly: true,
  });
  try {
    return db.prepare('PRAGMA journal_mode').get()?.journal_mode;
  } finally {
    db.close();
  }
}

const cpusAllowed = (pid: string) =>
  /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!;
const lastCpu = (list: string) => list.split(/[,-]/).at(-1)!;

describe('DynamoDB Local on disk', () => {
  it('keeps its database in WAL mode, and a transaction answered before a stop is there after a restart', async () => {
    const first = await startDynamoLocal({ dataDir });
    const client = clientOf(first.endpoint);
    await client.send(
      new CreateTableCommand({
        TableName: 'kept',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    await client.send(
      new TransactWriteItemsCommand({
        TransactItems: ['a', 'b'].map((pk) => ({
          Put: {
            TableName: 'kept',
            Item: { pk: { S: pk }, amount: { N: '12345678901234567890' } },
          },
        })),
      }),
    );
    // A read after the answer waits for the COMMIT it queued (durability-barrier.ts).
    await client.send(
      new GetItemCommand({ TableName: 'kept', Key: { pk: { S: 'a' } }, ConsistentRead: true }),
    );
    client.destroy();
    await first.stop();
    expect(await journalMode()).toBe('wal');

    // A long-serving emulator (`npm start`'s) runs on one CPU: the last this process may use.
    const second = await startDynamoLocal({ dataDir, compiler: 'optimizing' });
    const jvm = readFileSync(join(dataDir, 'dynamodb-local.pid'), 'utf8').trim();
    const ours = cpusAllowed('self');
    expect(cpusAllowed(jvm)).toBe(ours.includes('-') || ours.includes(',') ? lastCpu(ours) : ours);
    const again = clientOf(second.endpoint);
    const read = await again.send(
      new GetItemCommand({ TableName: 'kept', Key: { pk: { S: 'b' } }, ConsistentRead: true }),
    );
    again.destroy();
    await second.stop();
    expect(read.Item).toEqual({ pk: { S: 'b' }, amount: { N: '12345678901234567890' } });
    expect(await journalMode()).toBe('wal');
  });
});
