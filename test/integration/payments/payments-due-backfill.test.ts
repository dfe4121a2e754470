/**
 * The `due` backfill (docs/operations.md): schedules and waiting initiations written before the payments table's
 * `due` index carry no `dueKey`, so the worker's index never finds them; the one-off repair gives them theirs (and
 * an initiation its `nextRunAtMs` from its `dueAt`), page by page, once, leaving every other item as it was.
 */
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lib/dynamo/client.js';
import { backfillDueKeys } from '../../../lib/payments/store/due-backfill.js';
import { dueKeyOf, queryDue } from '../../../lib/payments/store/due-index.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { type PaymentsCall, paymentsClient } from '../../support/payments.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: PaymentsCall;
const FAR = Date.parse('2100-01-01T00:00:00Z');

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await paymentsClient(runtime));
});

const doc = () => createDocumentClient(runtime.connection, { bigintNumbers: true });
const table = () => runtime.config.tables.payments;

async function items(): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc().send(
      new ScanCommand({ TableName: table(), ...(start ? { ExclusiveStartKey: start } : {}) }),
    );
    out.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

/** The item as a deployment before the due index wrote it. */
async function makeLegacy(item: Record<string, unknown>, alsoNextRun: boolean) {
  await doc().send(
    new UpdateCommand({
      TableName: table(),
      Key: { pk: item.pk, sk: item.sk },
      UpdateExpression: alsoNextRun ? 'REMOVE dueKey, nextRunAtMs' : 'REMOVE dueKey',
    }),
  );
}

/** The repair to the table's end, one Scan page per call (as the command goes on from `next`). */
async function backfillAll(): Promise<{ updated: number }> {
  let start: Record<string, unknown> | undefined;
  let updated = 0;
  do {
    const page = await backfillDueKeys(doc(), table(), {
      maxPages: 1,
      ...(start ? { start } : {}),
    });
    updated += page.updated;
    start = page.next;
  } while (start);
  return { updated };
}

describe('the due backfill', () => {
  it('gives legacy schedules and waiting initiations their due key, once, so the worker finds them', async () => {
    // A generic connector on a closed loopback port: nothing here calls it.
    const installed = await call('POST', '/v3/connectors/install/generic', {
      name: 'legacy-bank',
      endpoint: 'http://127.0.0.1:9',
      apiKey: 'k',
    });
    expect(installed.status, installed.text).toBe(202);
    const connector = installed.body.data as string;
    const account = await call('POST', '/v3/accounts', {
      reference: 'legacy-acc',
      connectorID: connector,
      createdAt: '2026-11-20T08:00:00Z',
      accountName: 'Main',
      type: 'INTERNAL',
    });
    const created = await call('POST', '/v3/payment-initiations', {
      reference: 'legacy-pi',
      connectorID: connector,
      type: 'PAYOUT',
      amount: 10,
      asset: 'EUR/2',
      destinationAccountID: account.body.data.id,
      scheduledAt: '2099-01-01T00:00:00Z',
    });
    const initiation = created.body.data.paymentInitiationID as string;
    expect((await call('POST', `/v3/payment-initiations/${initiation}/approve`)).status).toBe(202);

    const mine = (await items()).filter(
      (i) =>
        i.connectorID === connector &&
        (String(i.sk).startsWith('SCHEDULE#') || i.sk === 'INITIATION'),
    );
    expect(mine.map((i) => String(i.sk).split('#')[0]).sort()).toEqual([
      'INITIATION',
      'SCHEDULE',
      'SCHEDULE',
      'SCHEDULE',
    ]);
    const before = new Map(mine.map((i) => [`${i.pk} ${i.sk}`, i]));
    for (const item of mine) await makeLegacy(item, item.sk === 'INITIATION');
    const found = async () =>
      (await queryDue(doc(), table(), FAR, 500)).items.filter((d) =>
        d.kind === 'schedule' ? d.connectorID === connector : d.id === initiation,
      );
    expect(await found()).toEqual([]);

    const first = await backfillAll();
    expect(first.updated).toBe(4);
    const after = (await items()).filter((i) => before.has(`${i.pk} ${i.sk}`));
    for (const item of after) {
      const was = before.get(`${item.pk} ${item.sk}`)!;
      expect(item).toEqual({ ...was, dueKey: dueKeyOf(connector) });
    }
    expect(after.find((i) => i.sk === 'INITIATION')!.nextRunAtMs).toBe(
      BigInt(Date.parse('2099-01-01T00:00:00Z')),
    );
    expect((await found()).map((d) => d.kind).sort()).toEqual([
      'initiation',
      'schedule',
      'schedule',
      'schedule',
    ]);
    // Again: nothing left to repair; the items are as the first run left them.
    expect((await backfillAll()).updated).toBe(0);
    expect((await items()).filter((i) => before.has(`${i.pk} ${i.sk}`))).toEqual(after);
  });
});
