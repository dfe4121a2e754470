import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { envelopeSchema } from '../../../events/catalog.js';
import { savedPaymentPayloadSchema } from '../../../events/payments.js';
import { paymentId } from '../../../lib/payments/domain/payment.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ADMIN, authApp, READER, tokenFor } from '../../support/auth.js';
import {
  type PaymentsCall,
  paymentBody,
  paymentEvents,
  paymentsClient,
  scanTable,
  storedCounts,
} from '../../support/payments.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: PaymentsCall;
let as: (token: string) => PaymentsCall;

const create = (body: unknown, headers: Record<string, string> = {}) =>
  call('POST', '/v3/payments', body, headers);
const MAX_38 = 10n ** 38n - 1n;

/** The stored payment item (with its version), read straight from the table. */
async function storedItem(id: string) {
  return (await scanTable(runtime, runtime.config.tables.payments)).find(
    (i) => i.pk === `E#default#PAYMENT#${id}`,
  );
}

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call, as } = await paymentsClient(runtime));
});

describe('POST /v3/payments: create', () => {
  it('creates a payment (201) with a deterministic id, defaults, and one event row in the same write', async () => {
    const body = paymentBody({ metadata: { order: '42' }, sourceAccountID: 'acct-src' });
    const res = await create(body);
    expect(res.status, res.text).toBe(201);
    const id = paymentId('stripe-main', String(body.reference), 'PAY-IN');
    expect(res.body).toEqual({
      data: {
        id,
        connectorID: 'stripe-main',
        provider: 'stripe-main',
        reference: body.reference,
        createdAt: '2026-11-22T10:04:05.123456Z',
        type: 'PAY-IN',
        status: 'PENDING',
        scheme: 'CARD_VISA',
        asset: 'EUR/2',
        amount: 1000n,
        initialAmount: 1000n,
        sourceAccountID: 'acct-src',
        metadata: { order: '42' },
      },
    });
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Amounts are bare JSON numbers.
    expect(res.text).toContain('"amount":1000,');

    const item = await storedItem(id);
    expect(item).toMatchObject({
      sk: 'PAYMENT',
      gsi1pk: 'E#default#PAYMENTS',
      gsi1sk: `2026-11-22T10:04:05.123456Z#${id}`,
      version: 1n,
      amount: 1000n,
    });
    const events = await paymentEvents(runtime, id);
    expect(events).toHaveLength(1);
    const { row, envelope } = events[0]!;
    expect(row).toMatchObject({
      sk: 'EVENT',
      type: 'payments.saved_payment',
      paymentVersion: 1n,
      date: envelope.date,
    });
    expect(row.pk).toBe(`E#default#EVENT#${envelope.id}`);
    expect(Number(row.expiresAt)).toBeGreaterThan(Date.now() / 1000 + 6 * 24 * 3600);
    expect(v.safeParse(envelopeSchema, envelope).success).toBe(true);
    expect(v.safeParse(savedPaymentPayloadSchema, envelope.payload).success).toBe(true);
    expect(envelope).toMatchObject({
      idempotency_key: `${id}/1`,
      app: 'payments',
      version: 'v2',
      type: 'payments.saved_payment',
    });
    expect(envelope.payload).toEqual(res.body.data);
  });

  it('keeps amounts exact up to 38 digits, given as JSON numbers or decimal strings, and writes them as strings on request', async () => {
    const reference = `big-${Date.now()}`;
    const raw =
      `{"reference":"${reference}","connectorID":"c1","type":"PAYOUT","amount":${MAX_38},"initialAmount":"${MAX_38 - 1n}",` +
      `"asset":"USD/2","scheme":"SEPA_CREDIT","createdAt":"2026-01-02T03:04:05Z"}`;
    const res = await create(raw);
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.amount).toBe(MAX_38);
    expect(res.body.data.initialAmount).toBe(MAX_38 - 1n);
    expect(res.text).toContain(`"amount":${MAX_38}`);

    const id = res.body.data.id as string;
    expect((await storedItem(id))!.amount).toBe(MAX_38);
    const [event] = await paymentEvents(runtime, id);
    expect(event!.envelope.payload.amount).toBe(MAX_38);
    expect(String(event!.row.body)).toContain(`"amount":${MAX_38}`);

    const got = await call('GET', `/v3/payments/${id}`, undefined, {
      'Formance-Bigint-As-String': 'true',
    });
    expect(got.text).toContain(`"amount":"${MAX_38}"`);
    expect(got.text).toContain(`"initialAmount":"${MAX_38 - 1n}"`);
    const zero = await create(paymentBody({ amount: '0', initialAmount: 0 }));
    expect(zero.status, zero.text).toBe(201);
    expect(zero.body.data).toMatchObject({ amount: 0n, initialAmount: 0n });
  });

  it('normalises createdAt to UTC with microseconds, and takes an explicit status', async () => {
    const res = await create(
      paymentBody({
        createdAt: '2026-11-22T11:04:05.1234567+01:00',
        status: 'AUTHORISATION',
        metadata: null,
      }),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({
      createdAt: '2026-11-22T10:04:05.123456Z',
      status: 'AUTHORISATION',
      metadata: {},
    });
  });

  it('derives the id from (connectorID, reference, type): the same reference under another type or connector is another payment', async () => {
    const reference = `shared-${Date.now()}`;
    const a = await create(paymentBody({ reference, type: 'PAYOUT' }));
    const b = await create(paymentBody({ reference, type: 'TRANSFER' }));
    const c = await create(
      paymentBody({ reference, type: 'PAYOUT', connectorID: 'other-connector' }),
    );
    expect(new Set([a.body.data.id, b.body.data.id, c.body.data.id]).size).toBe(3);
    expect(a.body.data.id).toBe(paymentId('stripe-main', reference, 'PAYOUT'));
  });
});

describe('POST /v3/payments: update through the same key', () => {
  it('updates status, amount, scheme, accounts and merges metadata; same id, version +1, one event per change', async () => {
    const first = await create(paymentBody({ metadata: { a: '1', b: '2' } }));
    const { id, reference } = first.body.data;
    const res = await create(
      paymentBody({
        reference,
        status: 'SUCCEEDED',
        amount: 900n,
        scheme: 'CARD_MASTERCARD',
        destinationAccountID: 'acct-dst',
        metadata: { b: 'changed', c: '3' },
      }),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({
      id,
      status: 'SUCCEEDED',
      amount: 900n,
      initialAmount: 1000n,
      scheme: 'CARD_MASTERCARD',
      destinationAccountID: 'acct-dst',
      metadata: { a: '1', b: 'changed', c: '3' },
    });
    expect((await call('GET', `/v3/payments/${id}`)).body.data).toEqual(res.body.data);
    expect((await storedItem(id))!.version).toBe(2n);

    const events = await paymentEvents(runtime, id);
    expect(events.map((e) => e.row.paymentVersion)).toEqual([1n, 2n]);
    expect(events[0]!.envelope.id).not.toBe(events[1]!.envelope.id);
    expect(events[0]!.envelope.payload.status).toBe('PENDING');
    expect(events[1]!.envelope.payload).toEqual(res.body.data);
    expect(events[1]!.envelope.idempotency_key).toBe(`${id}/2`);
  });

  it('keeps the stored status when an update omits it (no reset to PENDING)', async () => {
    const { body } = await create(paymentBody({ status: 'FAILED' }));
    const again = await create(paymentBody({ reference: body.data.reference, amount: 5n }));
    expect(again.body.data).toMatchObject({ status: 'FAILED', amount: 5n });
  });

  it('treats optional fields sent as null as absent (the Go SDK sends them so): status kept, no metadata', async () => {
    const { body } = await create(paymentBody({ status: 'FAILED' }));
    const again = await create(
      paymentBody({
        reference: body.data.reference,
        status: null,
        metadata: null,
        sourceAccountID: null,
      }),
    );
    expect(again.status, again.text).toBe(201);
    expect(again.body.data).toEqual(body.data);
  });

  it('writes nothing for a repeat that changes nothing: 201 with the record, no event, same version', async () => {
    const body = paymentBody({ metadata: { k: 'v' } });
    const first = await create(body);
    const before = await storedCounts(runtime);
    const repeat = await create({ ...body, metadata: { k: 'v' } });
    expect(repeat.status).toBe(201);
    expect(repeat.body).toEqual(first.body);
    expect(await storedCounts(runtime)).toEqual(before);
    expect((await storedItem(first.body.data.id))!.version).toBe(1n);
  });

  it('refuses to change createdAt, asset or initialAmount with 409 CONFLICT, and writes nothing', async () => {
    const body = paymentBody({ initialAmount: 1200n });
    const { body: created } = await create(body);
    const before = await storedCounts(runtime);
    for (const [field, value] of [
      ['createdAt', '2026-11-23T00:00:00Z'],
      ['asset', 'USD/2'],
      ['initialAmount', 1000n],
    ] as const) {
      const res = await create({ ...body, [field]: value, status: 'SUCCEEDED' });
      expect(res.status, field).toBe(409);
      expect(res.body.errorCode).toBe('CONFLICT');
      expect(res.body.errorMessage).toContain(`${field}:`);
    }
    // The same instant written differently is not a change.
    const same = await create({ ...body, createdAt: '2026-11-22T11:04:05.123456+01:00' });
    expect(same.status).toBe(201);
    expect(await storedCounts(runtime)).toEqual(before);
    expect((await call('GET', `/v3/payments/${created.data.id}`)).body.data.status).toBe('PENDING');
  });

  it('refuses a metadata merge that would exceed 64 keys', async () => {
    const many = (prefix: string, n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, 'x']));
    const body = paymentBody({ metadata: many('a', 40) });
    expect((await create(body)).status).toBe(201);
    const res = await create({ ...body, metadata: many('b', 30) });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toContain('metadata');
  });
});

describe('GET /v3/payments/<id>', () => {
  it('answers 404 NOT_FOUND for an unknown id and for anything that cannot be an id', async () => {
    const unknown = paymentId('nobody', 'nothing', 'OTHER');
    for (const id of [
      unknown,
      'abc',
      `${unknown.slice(0, 42)}B`,
      `${unknown}A`,
      '%20',
      'PAYMENT%23x',
    ]) {
      const res = await call('GET', `/v3/payments/${id}`);
      expect(res.status, id).toBe(404);
      expect(res.body.errorCode).toBe('NOT_FOUND');
    }
  });
});

describe('GET /v3/payments', () => {
  let own: PaymentsCall;
  let ownRuntime: ServiceRuntime;
  const ids: Record<string, string> = {};

  // Its own tables: the listing sees exactly these six payments, created at distinct instants.
  beforeAll(async () => {
    ({ runtime: ownRuntime } = await testTables());
    ({ call: own } = await paymentsClient(ownRuntime));
    const rows: Array<[string, string, string, string]> = [
      ['p1', 'PAY-IN', 'PENDING', 'conn-a'],
      ['p2', 'PAYOUT', 'SUCCEEDED', 'conn-a'],
      ['p3', 'PAY-IN', 'SUCCEEDED', 'conn-b'],
      ['p4', 'PAY-IN', 'PENDING', 'conn-b'],
      ['p5', 'TRANSFER', 'FAILED', 'conn-a'],
      ['p6', 'PAY-IN', 'PENDING', 'conn-a#type=PAYOUT'],
    ];
    for (const [i, [reference, type, status, connectorID]] of rows.entries()) {
      const res = await own(
        'POST',
        '/v3/payments',
        paymentBody({
          reference,
          type,
          status,
          connectorID,
          createdAt: `2026-01-0${i + 1}T00:00:00Z`,
        }),
      );
      expect(res.status, res.text).toBe(201);
      ids[reference] = res.body.data.id;
    }
  });

  const refs = (res: { body: any }) =>
    (res.body.cursor.data as Array<{ reference: string }>).map((p) => p.reference);

  it('lists newest first by createdAt, in cursor pages, forwards and back', async () => {
    const all = await own('GET', '/v3/payments');
    expect(all.status).toBe(200);
    expect(all.body.cursor).toMatchObject({ pageSize: 15n, hasMore: false });
    expect(refs(all)).toEqual(['p6', 'p5', 'p4', 'p3', 'p2', 'p1']);

    const first = await own('GET', '/v3/payments?pageSize=4');
    expect(refs(first)).toEqual(['p6', 'p5', 'p4', 'p3']);
    expect(first.body.cursor.hasMore).toBe(true);
    expect(first.body.cursor.previous).toBeUndefined();
    const second = await own('GET', `/v3/payments?cursor=${first.body.cursor.next}`);
    expect(refs(second)).toEqual(['p2', 'p1']);
    expect(second.body.cursor).toMatchObject({ pageSize: 4n, hasMore: false });
    const back = await own('GET', `/v3/payments?cursor=${second.body.cursor.previous}`);
    expect(refs(back)).toEqual(['p6', 'p5', 'p4', 'p3']);
  });

  it('filters by status, type and connectorID, alone or combined, each from its own key range', async () => {
    for (const [query, expected] of [
      ['status=PENDING', ['p6', 'p4', 'p1']],
      ['status=SUCCEEDED', ['p3', 'p2']],
      ['status=REFUNDED', []],
      ['type=PAY-IN', ['p6', 'p4', 'p3', 'p1']],
      ['type=TRANSFER', ['p5']],
      ['connectorID=conn-a', ['p5', 'p2', 'p1']],
      [`connectorID=${encodeURIComponent('conn-a#type=PAYOUT')}`, ['p6']],
      ['status=PENDING&type=PAY-IN', ['p6', 'p4', 'p1']],
      ['status=SUCCEEDED&connectorID=conn-b', ['p3']],
      ['type=PAYOUT&connectorID=conn-a', ['p2']],
      ['status=PENDING&type=PAY-IN&connectorID=conn-b', ['p4']],
    ] as Array<[string, string[]]>) {
      const res = await own('GET', `/v3/payments?${query}`);
      expect(res.status, query).toBe(200);
      expect(refs(res), query).toEqual(expected);
    }
  });

  it('pages a filtered list with cursors that carry the filter', async () => {
    const first = await own('GET', '/v3/payments?type=PAY-IN&pageSize=3');
    expect(refs(first)).toEqual(['p6', 'p4', 'p3']);
    const second = await own('GET', `/v3/payments?cursor=${first.body.cursor.next}`);
    expect(refs(second)).toEqual(['p1']);
    expect(second.body.cursor.hasMore).toBe(false);
    const back = await own('GET', `/v3/payments?cursor=${second.body.cursor.previous}&pageSize=2`);
    expect(refs(back)).toEqual(['p4', 'p3']);
  });

  it('moves a payment between status lists when its status changes', async () => {
    const res = await own(
      'POST',
      '/v3/payments',
      paymentBody({
        reference: 'p4',
        type: 'PAY-IN',
        connectorID: 'conn-b',
        createdAt: '2026-01-04T00:00:00Z',
        status: 'CANCELLED',
      }),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.id).toBe(ids.p4);
    expect(refs(await own('GET', '/v3/payments?status=PENDING'))).toEqual(['p6', 'p1']);
    expect(refs(await own('GET', '/v3/payments?status=CANCELLED&connectorID=conn-b'))).toEqual([
      'p4',
    ]);
    expect(
      refs(await own('GET', '/v3/payments?status=PENDING&type=PAY-IN&connectorID=conn-b')),
    ).toEqual([]);
    expect(refs(await own('GET', '/v3/payments?type=PAY-IN'))).toEqual(['p6', 'p4', 'p3', 'p1']);
    // Index items hold only ids: the old status partitions are gone, nothing else is left behind.
    const items = await scanTable(ownRuntime, ownRuntime.config.tables.payments);
    expect(
      items.filter(
        (i) => i.id === ids.p4 && String(i.pk).startsWith('E#default#PAYMENTS#status=PENDING'),
      ),
    ).toEqual([]);
    expect(items.filter((i) => i.id === ids.p4)).toHaveLength(1 + 7);
  });

  it('refuses bad filters, unknown parameters, bad page sizes and foreign or tampered cursors with 400', async () => {
    const first = await own('GET', '/v3/payments?pageSize=1');
    const foreign = Buffer.from(
      JSON.stringify({ l: 'ledger.transactions.x', p: 1, k: { pk: 'a', sk: 'b' }, d: 'n' }),
    ).toString('base64url');
    for (const [query, message] of [
      ['status=DONE', 'query.status: must be one of'],
      ['status=pending', 'query.status'],
      ['status=', 'query.status'],
      ['type=PAYIN', 'query.type: must be one of'],
      ['connectorID=', 'query.connectorID'],
      [`connectorID=${'c'.repeat(257)}`, 'query.connectorID'],
      ['reference=p1', 'reference: unknown query parameter'],
      ['asset=USD', 'asset: unknown query parameter'],
      ['pageSize=0', 'pageSize'],
      ['pageSize=-1', 'pageSize'],
      ['pageSize=ten', 'pageSize'],
      ['cursor=%%%', 'cursor'],
      [`cursor=${foreign}`, 'cursor: not a cursor of this list'],
      [`cursor=${first.body.cursor.next}&status=PENDING`, 'only pageSize may accompany cursor'],
    ] as Array<[string, string]>) {
      const res = await own('GET', `/v3/payments?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
      expect(res.body.errorMessage, query).toContain(message);
    }
    // A cursor whose recorded filter was edited is validated like a query string.
    const decoded = JSON.parse(Buffer.from(first.body.cursor.next, 'base64url').toString());
    const tampered = Buffer.from(JSON.stringify({ ...decoded, f: { status: 'NOPE' } })).toString(
      'base64url',
    );
    expect((await own('GET', `/v3/payments?cursor=${tampered}`)).status).toBe(400);
  });

  it('clamps pageSize above 1000', async () => {
    const res = await own('GET', '/v3/payments?pageSize=5000');
    expect(res.status).toBe(200);
    expect(res.body.cursor.pageSize).toBe(1000n);
  });
});

describe('PATCH /v3/payments/<id>/metadata', () => {
  it('merges metadata (204), bumps the version and emits the new record', async () => {
    const { body } = await create(paymentBody({ metadata: { a: '1' } }));
    const id = body.data.id as string;
    const res = await call('PATCH', `/v3/payments/${id}/metadata`, { b: '2', a: 'one' });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    const got = await call('GET', `/v3/payments/${id}`);
    expect(got.body.data.metadata).toEqual({ a: 'one', b: '2' });
    expect((await storedItem(id))!.version).toBe(2n);
    const events = await paymentEvents(runtime, id);
    expect(events).toHaveLength(2);
    expect(events[1]!.envelope.payload).toEqual(got.body.data);

    // Nothing new: 204 and no write.
    expect((await call('PATCH', `/v3/payments/${id}/metadata`, { b: '2' })).status).toBe(204);
    expect((await call('PATCH', `/v3/payments/${id}/metadata`, {})).status).toBe(204);
    expect(await paymentEvents(runtime, id)).toHaveLength(2);
  });

  it('answers 404 for unknown or impossible ids and 400 for bad bodies, writing nothing', async () => {
    const { body } = await create(paymentBody());
    const id = body.data.id as string;
    const before = await storedCounts(runtime);
    for (const target of [paymentId('nobody', 'nothing', 'OTHER'), 'not-an-id']) {
      const res = await call('PATCH', `/v3/payments/${target}/metadata`, { a: 'b' });
      expect(res.status, target).toBe(404);
      expect(res.body.errorCode).toBe('NOT_FOUND');
    }
    for (const [bad, headers, message] of [
      [['a'], {}, 'body'],
      [{ a: 1 }, {}, 'body.a: metadata values must be strings'],
      [{ a: { b: 'c' } }, {}, 'body.a'],
      [{ '': 'x' }, {}, 'metadata keys must not be empty'],
      [{ a: 'x'.repeat(4097) }, {}, 'body.a'],
      ['{"a":', {}, 'not valid JSON'],
      ['', {}, 'body is not valid JSON'],
      [
        JSON.stringify({ a: 'b' }),
        { 'content-type': 'text/plain' },
        'content-type must be application/json',
      ],
      ['null', {}, 'body'],
    ] as Array<[unknown, Record<string, string>, string]>) {
      const res = await call('PATCH', `/v3/payments/${id}/metadata`, bad, headers);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
      expect(res.body.errorMessage).toContain(message);
    }
    expect(await storedCounts(runtime)).toEqual(before);
  });
});

describe('POST /v3/payments: validation (400 VALIDATION naming the field, nothing stored)', () => {
  const valid = () => paymentBody();
  const without = (field: string) => paymentBody({ [field]: undefined });
  const cases: Array<[string, unknown, string]> = [
    // wrong types
    ['reference as a number', paymentBody({ reference: 5 }), 'body.reference: must be a string'],
    ['connectorID as a boolean', paymentBody({ connectorID: true }), 'body.connectorID'],
    ['amount as a boolean', paymentBody({ amount: true }), 'body.amount'],
    ['amount as null', paymentBody({ amount: null }), 'body.amount'],
    ['createdAt as a number', paymentBody({ createdAt: 1700000000 }), 'body.createdAt'],
    ['metadata as a string', paymentBody({ metadata: 'x' }), 'body.metadata'],
    [
      'metadata as an array',
      paymentBody({ metadata: ['x'] }),
      'body.metadata: must be an object of string values',
    ],
    [
      'metadata with a number value',
      paymentBody({ metadata: { a: 1 } }),
      'body.metadata.a: metadata values must be strings',
    ],
    ['metadata nested', paymentBody({ metadata: { a: { b: 'c' } } }), 'body.metadata.a'],
    ['sourceAccountID as a number', paymentBody({ sourceAccountID: 7 }), 'body.sourceAccountID'],
    ['body as an array', [valid()], 'body'],
    ['body as null', null, 'body'],
    // unknown and missing fields
    ['an unknown field', paymentBody({ extra: 1 }), 'body.extra'],
    ['provider (not accepted)', paymentBody({ provider: 'stripe' }), 'body.provider'],
    [
      'an adjustment with an unknown status',
      paymentBody({
        adjustments: [
          {
            reference: 'adj-1',
            status: 'DONE',
            amount: 1000n,
            asset: 'EUR/2',
            createdAt: '2026-11-22T10:04:05Z',
          },
        ],
      }),
      'body.adjustments.0.status',
    ],
    [
      'adjustments that are not a list',
      paymentBody({ adjustments: {} }),
      'body.adjustments: must be an array',
    ],
    ...(['reference', 'connectorID', 'type', 'amount', 'asset', 'scheme', 'createdAt'].map((f) => [
      `missing ${f}`,
      without(f),
      `body.${f}`,
    ]) as Array<[string, unknown, string]>),
    // enums
    [
      'type PAYIN',
      paymentBody({ type: 'PAYIN' }),
      'body.type: must be one of PAY-IN, PAYOUT, TRANSFER, OTHER',
    ],
    ['type in lower case', paymentBody({ type: 'pay-in' }), 'body.type'],
    ['status DONE', paymentBody({ status: 'DONE' }), 'body.status: must be one of'],
    ['scheme visa (v2 spelling)', paymentBody({ scheme: 'visa' }), 'body.scheme: must be one of'],
    // amounts
    [
      'a 39-digit amount',
      `__RAW__"amount":${10n ** 38n}`,
      'body.amount: must have at most 38 digits',
    ],
    [
      'a 39-digit amount string',
      paymentBody({ amount: String(10n ** 38n) }),
      'body.amount: must have at most 38 digits',
    ],
    ['a 39-digit initialAmount', paymentBody({ initialAmount: 10n ** 38n }), 'body.initialAmount'],
    ['a negative amount', paymentBody({ amount: -1n }), 'body.amount: must not be negative'],
    [
      'a negative amount string',
      paymentBody({ amount: '-1' }),
      'body.amount: must not be negative',
    ],
    ['a fractional amount', `__RAW__"amount":1.5`, 'body.amount: must be a whole number'],
    ['a fractional amount string', paymentBody({ amount: '1.5' }), 'body.amount'],
    ['an exponent amount string', paymentBody({ amount: '1e3' }), 'body.amount'],
    ['an empty amount string', paymentBody({ amount: '' }), 'body.amount'],
    // asset
    ['asset in lower case', paymentBody({ asset: 'usd' }), 'body.asset: must be an asset'],
    ['asset with two precisions', paymentBody({ asset: 'USD/2/3' }), 'body.asset'],
    ['asset empty', paymentBody({ asset: '' }), 'body.asset'],
    ['asset with a space', paymentBody({ asset: 'US D' }), 'body.asset'],
    // createdAt
    [
      'createdAt in words',
      paymentBody({ createdAt: 'yesterday' }),
      'body.createdAt: must be an RFC 3339 date-time',
    ],
    ['createdAt without time', paymentBody({ createdAt: '2026-11-22' }), 'body.createdAt'],
    [
      'createdAt without offset',
      paymentBody({ createdAt: '2026-11-22T10:04:05' }),
      'body.createdAt',
    ],
    [
      'createdAt on February 30',
      paymentBody({ createdAt: '2026-02-30T00:00:00Z' }),
      'body.createdAt: must be an RFC 3339 date-time',
    ],
    ['createdAt at 24:00', paymentBody({ createdAt: '2026-11-22T24:00:00Z' }), 'body.createdAt'],
    [
      'createdAt before 1970',
      paymentBody({ createdAt: '1969-12-31T23:59:59Z' }),
      'body.createdAt: must be between 1970 and 9999',
    ],
    // sizes and text
    ['an empty reference', paymentBody({ reference: '' }), 'body.reference: must not be empty'],
    [
      'a reference of 1001 characters',
      paymentBody({ reference: 'r'.repeat(1001) }),
      'body.reference: must be at most 1000 characters',
    ],
    [
      'a reference with a control character',
      paymentBody({ reference: 'a\u0000b' }),
      'body.reference: must not contain control characters',
    ],
    [
      'a connectorID of 257 characters',
      paymentBody({ connectorID: 'c'.repeat(257) }),
      'body.connectorID',
    ],
    [
      'a destinationAccountID of 257 characters',
      paymentBody({ destinationAccountID: 'd'.repeat(257) }),
      'body.destinationAccountID',
    ],
    [
      'a metadata value of 4097 characters',
      paymentBody({ metadata: { a: 'x'.repeat(4097) } }),
      'body.metadata.a',
    ],
    [
      '65 metadata keys',
      paymentBody({
        metadata: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v'])),
      }),
      'body.metadata: must have at most 64 keys',
    ],
    // not JSON
    ['malformed JSON', '{"reference":', 'body is not valid JSON'],
    ['an empty body', '', 'body is not valid JSON'],
  ];

  /** `__RAW__"field":literal` replaces one field of a valid body with a raw JSON literal. */
  const render = (body: unknown) => {
    if (typeof body !== 'string' || !body.startsWith('__RAW__')) return body;
    const [, field, literal] = /^__RAW__"(\w+)":(.*)$/.exec(body)!;
    const json = JSON.stringify({ ...valid(), [field!]: '__X__' }, (_k, v) =>
      typeof v === 'bigint' ? Number(v) : v,
    );
    return json.replace('"__X__"', literal!);
  };

  it.each(cases)('refuses %s', async (_label, body, message) => {
    const before = await storedCounts(runtime);
    const res = await create(render(body));
    expect(res.status, res.text).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
    expect(res.body.errorMessage).toContain(message);
    expect(await storedCounts(runtime)).toEqual(before);
  });

  it('refuses a wrong content type, and a body over 1 MiB with 413, storing nothing', async () => {
    const before = await storedCounts(runtime);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx']) {
      const res = await create(JSON.stringify({ ...valid(), amount: 1 }), { 'content-type': type });
      expect(res.status, type).toBe(400);
      expect(res.body.errorMessage).toBe('content-type must be application/json');
    }
    const charset = await create(JSON.stringify({ ...valid(), amount: 1 }), {
      'content-type': 'application/json; charset=utf-8',
    });
    expect(charset.status).toBe(201);
    const huge = await create(
      JSON.stringify({ ...valid(), amount: 1, metadata: { a: 'x'.repeat(1024 * 1024) } }),
    );
    expect(huge.status).toBe(413);
    expect(huge.body.errorCode).toBe('VALIDATION');
    expect(await storedCounts(runtime)).toEqual({
      payments: before.payments + 8,
      events: before.events + 1,
    });
  });
});

describe('scopes', () => {
  it('lets payments:read list and read but not write (403 insufficient_scope), and refuses other services’ tokens', async () => {
    const { body } = await create(paymentBody());
    const reader = as(await tokenFor(authApp(runtime), ADMIN, 'payments:read'));
    expect((await reader('GET', '/v3/payments')).status).toBe(200);
    expect((await reader('GET', `/v3/payments/${body.data.id}`)).status).toBe(200);
    const before = await storedCounts(runtime);
    for (const [method, path, payload] of [
      ['POST', '/v3/payments', paymentBody()],
      ['PATCH', `/v3/payments/${body.data.id}/metadata`, { a: 'b' }],
    ] as Array<[string, string, unknown]>) {
      const res = await reader(method, path, payload);
      expect(res.status, method).toBe(403);
      expect(res.body.errorCode).toBe('FORBIDDEN');
      expect(res.headers.get('www-authenticate')).toBe(
        'Bearer error="insufficient_scope", scope="payments:write"',
      );
    }
    expect(await storedCounts(runtime)).toEqual(before);

    const ledgerOnly = as(await tokenFor(authApp(runtime), READER));
    const res = await ledgerOnly('GET', '/v3/payments');
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="payments:read"',
    );
    const { app } = await paymentsClient(runtime);
    const anonymous = await app.request('/api/payments/v3/payments');
    expect(anonymous.status).toBe(401);
  });
});
