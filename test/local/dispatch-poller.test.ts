/**
 * The event sources of the local platform, end to end: a committed transaction's event travels in its log item
 * (read from the ledger's log, the embedded platform's ledger tables having no stream), a payment's in its
 * events-table row (the events table's stream), and each reaches the webhooks table as a
 * delivery for every subscribed config, exactly as the dispatch Lambda would create it.
 */
import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { parseJson } from '../../lib/json/bigint-json.js';
import { ledgerEventsOfImage } from '../../lib/ledger/store/log-events.js';
import { deliveryId } from '../../lib/webhooks/domain/delivery.js';
import { jsonCaller, overHttp } from '../support/json-call.js';
import {
  platformDocumentClient,
  startTestPlatform,
  testClientToken,
  until,
} from '../support/platform.js';

let platform: RunningPlatform;
let token: string;

/** A bucket with a ledger table of its own: the platform creates it and reads its ledgers' logs too. */
const heavyTable = `b${randomBytes(5).toString('hex')}-ledger-heavy`;

beforeAll(async () => {
  platform = await startTestPlatform({
    variables: { LEDGER_BUCKET_TABLES: JSON.stringify({ heavy: heavyTable }) },
  });
  token = await testClientToken(platform);
});
afterAll(async () => {
  await platform?.stop();
});

/** The deliveries of one webhook config in the default environment (the deliveries index, newest first). */
async function deliveriesOf(
  doc: DynamoDBDocumentClient,
  configId: string,
): Promise<Array<Record<string, any>>> {
  const { Items = [] } = await doc.send(
    new QueryCommand({
      TableName: platform.variables.WEBHOOKS_TABLE!,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :p',
      ExpressionAttributeValues: { ':p': 'E#default#DELIVERIES' },
    }),
  );
  return Items.filter((d) => d.configId === configId);
}

const call = (method: string, path: string, body?: unknown) =>
  jsonCaller(overHttp, platform.baseUrl, token, JSON.parse)(method, path, body);

describe('local dispatch (log tail and stream pollers)', () => {
  it('turns a committed transaction into a delivery for the subscribed config', async () => {
    const config = await call('POST', '/api/webhooks/configs', {
      endpoint: 'http://127.0.0.1:9/hook',
      eventTypes: ['ledger.committed_transactions'],
    });
    expect(config.status, config.text).toBe(200);
    const configId: string = config.body.data.id;

    const ledger = `dispatch${randomBytes(4).toString('hex')}`;
    const created = await call('POST', `/api/ledger/v2/${ledger}`);
    expect(created.status, created.text).toBeLessThan(300);
    const tx = await call('POST', `/api/ledger/v2/${ledger}/transactions`, {
      postings: [{ source: 'world', destination: 'users:1', amount: 42, asset: 'USD' }],
    });
    expect(tx.status, tx.text).toBeLessThan(300);

    const doc = platformDocumentClient(platform);
    try {
      const [delivery] = await until('the delivery', async () => {
        const mine = await deliveriesOf(doc, configId);
        return mine.length > 0 ? mine : undefined;
      });
      const envelope = JSON.parse(delivery!.body);
      expect(envelope).toMatchObject({
        type: 'ledger.committed_transactions',
        app: 'ledger',
        payload: { ledger },
      });
      expect(delivery).toMatchObject({
        id: deliveryId(envelope.id, configId),
        eventId: envelope.id,
        status: 'pending',
      });
      // Exactly the event of the log item, read from the ledger's log: no events-table row.
      const { Item: log } = await doc.send(
        new GetCommand({
          TableName: platform.variables.LEDGER_TABLE!,
          Key: { pk: `E#default#L#${ledger}#LOG`, sk: '000000000000001' },
        }),
      );
      expect(ledgerEventsOfImage(log!)).toEqual([
        { id: envelope.id, type: 'ledger.committed_transactions', body: delivery!.body },
      ]);
      const { Item: row } = await doc.send(
        new GetCommand({
          TableName: platform.variables.EVENTS_TABLE!,
          Key: { pk: `E#default#EVENT#${envelope.id}`, sk: 'EVENT' },
        }),
      );
      expect(row).toBeUndefined();
      // The payload the ledger always sent: the transaction as answered, with its post-commit volumes only (the
      // answer's effective volumes are read after the commit; the event is written with it).
      const {
        preCommitVolumes: _pre,
        preCommitEffectiveVolumes: _preEff,
        postCommitEffectiveVolumes: _postEff,
        ...committed
      } = (parseJson(tx.text) as { data: Record<string, unknown> }).data;
      expect((parseJson(delivery!.body) as { payload: unknown }).payload).toEqual({
        ledger,
        transactions: [committed],
        accountMetadata: {},
      });
    } finally {
      doc.destroy();
    }
  });

  it('turns a log page (an atomic bulk: one item, three entries) into one delivery per entry', async () => {
    const config = await call('POST', '/api/webhooks/configs', {
      endpoint: 'http://127.0.0.1:9/hook',
      eventTypes: ['ledger.committed_transactions'],
    });
    expect(config.status, config.text).toBe(200);
    const configId: string = config.body.data.id;
    // No wait: dispatch has the configs of this event type cached (the first test), and sees this new one at once.
    const ledger = `page${randomBytes(4).toString('hex')}`;
    expect((await call('POST', `/api/ledger/v2/${ledger}`)).status).toBe(204);
    const bulk = await call(
      'POST',
      `/api/ledger/v2/${ledger}/_bulk?atomic=true`,
      [1, 2, 3].map((n) => ({
        action: 'CREATE_TRANSACTION',
        data: {
          postings: [{ source: 'world', destination: `users:${n}`, amount: n, asset: 'USD' }],
        },
      })),
    );
    expect(bulk.status, bulk.text).toBe(200);
    const doc = platformDocumentClient(platform);
    try {
      const { Item: page } = await doc.send(
        new GetCommand({
          TableName: platform.variables.LEDGER_TABLE!,
          Key: { pk: `E#default#L#${ledger}#LOG`, sk: '000000000000001' },
          ConsistentRead: true,
        }),
      );
      expect(Number(page!.last)).toBe(3);
      const expected = ledgerEventsOfImage(page!);
      expect(expected).toHaveLength(3);
      const deliveries = await until('three deliveries', async () => {
        const mine = await deliveriesOf(doc, configId);
        return mine.length >= 3 ? mine : undefined;
      });
      // Exactly the page's three events, each once, bodies byte for byte.
      expect(
        deliveries
          .map((d) => ({ id: d.eventId, body: d.body }))
          .sort((a, b) => a.id.localeCompare(b.id)),
      ).toEqual(
        expected.map((e) => ({ id: e.id, body: e.body })).sort((a, b) => a.id.localeCompare(b.id)),
      );
      expect(
        expected.map(
          (e) =>
            (parseJson(e.body) as { payload: { transactions: Array<{ id: bigint }> } }).payload
              .transactions[0]!.id,
        ),
      ).toEqual([1n, 2n, 3n]);
    } finally {
      doc.destroy();
    }
  });

  it('still dispatches payment events from the events table', async () => {
    const config = await call('POST', '/api/webhooks/configs', {
      endpoint: 'http://127.0.0.1:9/hook',
      eventTypes: ['payments.saved_payment'],
    });
    expect(config.status, config.text).toBe(200);
    const configId: string = config.body.data.id;
    const payment = await call('POST', '/api/payments/v3/payments', {
      reference: `po-${randomBytes(4).toString('hex')}`,
      connectorID: 'bank-1',
      type: 'PAYOUT',
      amount: 1250,
      asset: 'EUR/2',
      scheme: 'SEPA_CREDIT',
      createdAt: '2026-11-22T10:04:05Z',
      destinationAccountID: 'supplier-7',
    });
    expect(payment.status, payment.text).toBe(201);

    const doc = platformDocumentClient(platform);
    try {
      const delivery = await until('the payment delivery', async () => {
        return (await deliveriesOf(doc, configId))[0];
      });
      const envelope = JSON.parse(delivery.body);
      expect(envelope).toMatchObject({
        type: 'payments.saved_payment',
        app: 'payments',
        payload: { id: payment.body.data.id },
      });
      const { Item: row } = await doc.send(
        new GetCommand({
          TableName: platform.variables.EVENTS_TABLE!,
          Key: { pk: `E#default#EVENT#${envelope.id}`, sk: 'EVENT' },
        }),
      );
      expect(delivery.body).toBe(row?.body);
    } finally {
      doc.destroy();
    }
  });

  it("dispatches the events of a bucket table's ledger from that table's logs", async () => {
    const config = await call('POST', '/api/webhooks/configs', {
      endpoint: 'http://127.0.0.1:9/hook',
      eventTypes: ['ledger.saved_metadata'],
    });
    expect(config.status, config.text).toBe(200);
    const configId: string = config.body.data.id;
    const ledger = `heavy${randomBytes(4).toString('hex')}`;
    expect((await call('POST', `/api/ledger/v2/${ledger}`, { bucket: 'heavy' })).status).toBe(204);
    const saved = await call('POST', `/api/ledger/v2/${ledger}/accounts/users:1/metadata`, {
      tier: 'gold',
    });
    expect(saved.status, saved.text).toBe(204);

    const doc = platformDocumentClient(platform);
    try {
      const delivery = await until('the bucket ledger delivery', async () => {
        return (await deliveriesOf(doc, configId))[0];
      });
      const { Item: log } = await doc.send(
        new GetCommand({
          TableName: heavyTable,
          Key: { pk: `E#default#L#${ledger}#LOG`, sk: '000000000000001' },
        }),
      );
      expect(ledgerEventsOfImage(log!)).toEqual([
        { id: delivery.eventId, type: 'ledger.saved_metadata', body: delivery.body },
      ]);
      expect(JSON.parse(delivery.body).payload).toEqual({
        ledger,
        targetType: 'ACCOUNT',
        targetId: 'users:1',
        metadata: { tier: 'gold' },
      });
    } finally {
      doc.destroy();
    }
  });
});
