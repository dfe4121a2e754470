import { startDynamoLocal } from '../infra/local/dynamodb-local.js';
import { DynamoDBClient, CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
const dl = await startDynamoLocal();
const raw = new DynamoDBClient({ region: 'us-east-1', endpoint: dl.endpoint, credentials: { accessKeyId: 'l', secretAccessKey: 'l' } });
const doc = DynamoDBDocumentClient.from(raw);
const { ensureTables } = await import('../infra/local/provision.js'); const tables = await ensureTables(raw, 'x-'); const T = tables.LEDGER_TABLE!;
await doc.send(new PutCommand({ TableName: T, Item: { pk: 'a', sk: 'b', v: 1 } }));
for (const conc of [1, 4, 16]) {
  let n = 0; const end = Date.now() + 2000;
  await Promise.all(Array.from({ length: conc }, async () => { while (Date.now() < end) { await doc.send(new GetCommand({ TableName: T, Key: { pk: 'a', sk: 'b' }, ConsistentRead: true })); n++; } }));
  console.log('GetItem conc', conc, (n / 2).toFixed(0), '/s');
}
for (const k of [1, 10, 40, 80]) {
  let n = 0; const end = Date.now() + 2000; let i = 0;
  while (Date.now() < end) { await doc.send(new TransactWriteCommand({ TransactItems: Array.from({ length: k }, () => ({ Put: { TableName: T, Item: { pk: `p${i++}`, sk: 's', body: 'x'.repeat(300) } } })) })); n++; }
  console.log('TWI items', k, (n / 2).toFixed(0), 'commits/s =', (n * k / 2).toFixed(0), 'items/s');
}
raw.destroy(); await dl.stop();
