/**
 * The cold-start reference: the least a Lambda of this platform could be — a Hono app with one route and a
 * DynamoDB document client, exported through hono/aws-lambda. Bundled with the same esbuild settings as the
 * real functions, it is what "≤ 1.5× the reference's import time" compares against.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { Hono } from 'hono';
import { handle } from 'hono/aws-lambda';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: process.env.AWS_REGION }));
const app = new Hono();
app.get('/items/:id', async (c) => {
  const { Item } = await doc.send(
    new GetCommand({
      TableName: process.env.LEDGER_TABLE,
      Key: { pk: c.req.param('id'), sk: 'ITEM' },
    }),
  );
  return Item ? c.json(Item) : c.notFound();
});

export const handler = handle(app);
