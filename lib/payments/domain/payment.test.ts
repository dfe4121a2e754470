import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { envelopeSchema } from '../../../events/catalog.js';
import { savedPaymentPayloadSchema } from '../../../events/payments.js';
import { parseJson } from '../../json/bigint-json.js';
import { savedPaymentEventRow } from '../store/event-row.js';
import { filterPartition, indexPartitions } from '../store/keys.js';
import { parseCreatedAt } from './input.js';
import {
  isPaymentId,
  PAYMENT_STATUSES,
  PAYMENT_TYPES,
  type PaymentInput,
  paymentId,
  recordPayment,
  samePayment,
  withMetadata,
} from './payment.js';

const input = (overrides: Partial<PaymentInput> = {}): PaymentInput => ({
  reference: 'r1',
  connectorID: 'c1',
  type: 'PAY-IN',
  amount: 100n,
  asset: 'USD/2',
  scheme: 'CARD_VISA',
  createdAt: '2026-11-22T10:04:05Z',
  ...overrides,
});

describe('payment id', () => {
  it('is deterministic, 43 base64url characters, and accepted by isPaymentId', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.string({ minLength: 1 }),
        fc.constantFrom(...PAYMENT_TYPES),
        (c, r, t) => {
          const id = paymentId(c, r, t);
          expect(id).toBe(paymentId(c, r, t));
          expect(isPaymentId(id)).toBe(true);
        },
      ),
    );
  });

  it('separates triples that a naive concatenation would confuse', () => {
    expect(paymentId('a', 'b|c', 'OTHER')).not.toBe(paymentId('a|b', 'c', 'OTHER'));
    expect(paymentId('a","b', 'c', 'OTHER')).not.toBe(paymentId('a', 'b","c', 'OTHER'));
    expect(paymentId('c', 'r', 'PAYOUT')).not.toBe(paymentId('c', 'r', 'TRANSFER'));
  });

  it('refuses what cannot be a SHA-256 in base64url', () => {
    const id = paymentId('c', 'r', 'OTHER');
    for (const bad of [
      '',
      'x',
      id.slice(1),
      `${id}A`,
      `${id.slice(0, 42)}B`,
      `${id.slice(0, 42)}=`,
      `${id.slice(0, 41)}+${id[42]}`,
    ]) {
      expect(isPaymentId(bad), bad).toBe(false);
    }
  });
});

describe('recordPayment', () => {
  it('creates with PENDING, initialAmount = amount and empty metadata by default', () => {
    const p = recordPayment(undefined, input());
    expect(p).toMatchObject({ status: 'PENDING', amount: 100n, initialAmount: 100n, metadata: {} });
    expect(p).not.toHaveProperty('sourceAccountID');
  });

  it('updates status, amount, scheme and accounts, merges metadata, keeps what the request omits', () => {
    const first = recordPayment(
      undefined,
      input({ status: 'AUTHORISATION', metadata: { a: '1' }, sourceAccountID: 's' }),
    );
    const next = recordPayment(
      first,
      input({ amount: 80n, scheme: 'CARD_AMEX', destinationAccountID: 'd', metadata: { b: '2' } }),
    );
    expect(next).toMatchObject({
      status: 'AUTHORISATION',
      amount: 80n,
      initialAmount: 100n,
      scheme: 'CARD_AMEX',
      sourceAccountID: 's',
      destinationAccountID: 'd',
      metadata: { a: '1', b: '2' },
    });
    expect(
      samePayment(next, recordPayment(next, input({ amount: 80n, scheme: 'CARD_AMEX' }))),
    ).toBe(true);
    expect(samePayment(next, withMetadata(next, { a: '1' }))).toBe(true);
    expect(samePayment(next, withMetadata(next, { a: '2' }))).toBe(false);
  });

  it('refuses changes to createdAt, asset and initialAmount', () => {
    const first = recordPayment(undefined, input());
    expect(() => recordPayment(first, input({ asset: 'EUR/2' }))).toThrow(/asset/);
    expect(() => recordPayment(first, input({ createdAt: '2026-11-22T10:04:06Z' }))).toThrow(
      /createdAt/,
    );
    expect(() => recordPayment(first, input({ initialAmount: 1n }))).toThrow(/initialAmount/);
    expect(recordPayment(first, input({ initialAmount: 100n }))).toEqual(first);
  });
});

describe('index partitions', () => {
  it('gives each payment seven distinct partitions, one per filter combination, in its environment', () => {
    const parts = indexPartitions('sandbox-1', {
      status: 'PENDING',
      type: 'PAY-IN',
      connectorID: 'c',
    });
    expect(parts).toHaveLength(7);
    expect(new Set(parts).size).toBe(7);
    expect(parts).toContain(filterPartition('sandbox-1', { connectorID: 'c', status: 'PENDING' }));
    expect(parts).toContain('E#sandbox-1#PAYMENTS#status=PENDING#type=PAY-IN#connectorID=c');
    for (const part of parts) expect(part.startsWith('E#sandbox-1#PAYMENTS#')).toBe(true);
    expect(filterPartition('default', { type: 'PAY-IN' })).toBe('E#default#PAYMENTS#type=PAY-IN');
  });

  it('never maps two different filters to one partition, whatever the connectorID', () => {
    const filter = fc
      .record(
        {
          status: fc.constantFrom(...PAYMENT_STATUSES),
          type: fc.constantFrom(...PAYMENT_TYPES),
          connectorID: fc.constantFrom('a', 'a#type=PAYOUT', 'a#status=PENDING', '=', '#'),
        },
        { requiredKeys: [] },
      )
      .filter((f) => Object.keys(f).length > 0);
    fc.assert(
      fc.property(filter, filter, (a, b) => {
        const same =
          JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());
        expect(filterPartition('default', a) === filterPartition('default', b)).toBe(same);
      }),
    );
  });
});

describe('createdAt', () => {
  it('reads RFC 3339 with offsets and checks the calendar', () => {
    expect(parseCreatedAt('2024-02-29T23:59:59.999999-00:30').ms).toBe(
      Date.UTC(2024, 2, 1, 0, 29, 59, 999),
    );
    for (const bad of [
      '2025-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-01-01T00:60:00Z',
      '2026-01-01T00:00:00+24:00',
      '9999-12-31T23:59:59-01:00',
    ]) {
      expect(() => parseCreatedAt(bad), bad).toThrow();
    }
  });
});

describe('payments.saved_payment event row', () => {
  it('is a valid envelope whose id depends only on (environment, payment id, version)', () => {
    const payment = recordPayment(
      undefined,
      input({ amount: 10n ** 38n - 1n, metadata: { k: 'v' } }),
    );
    const row = savedPaymentEventRow('default', payment, 3, '2026-11-22T10:04:05.5Z', 1_000_000);
    const again = savedPaymentEventRow('default', payment, 3, '2027-01-01T00:00:00Z', 2_000_000);
    expect(row.pk).toBe(again.pk);
    expect(String(row.pk)).toMatch(/^E#default#EVENT#[0-9a-f]{32}$/);
    expect(row.pk).not.toBe(
      savedPaymentEventRow('default', payment, 4, '2026-11-22T10:04:05.5Z', 1_000_000).pk,
    );
    // The same payment key in another environment: another row, another event id.
    const elsewhere = savedPaymentEventRow('sandbox-1', payment, 3, '2026-11-22T10:04:05.5Z', 0);
    expect(String(elsewhere.pk)).toMatch(/^E#sandbox-1#EVENT#[0-9a-f]{32}$/);
    expect(String(elsewhere.pk).slice('E#sandbox-1#'.length)).not.toBe(
      String(row.pk).slice('E#default#'.length),
    );
    expect(row).toMatchObject({
      sk: 'EVENT',
      type: 'payments.saved_payment',
      paymentId: payment.id,
      paymentVersion: 3,
      expiresAt: 1000 + 7 * 24 * 3600,
    });
    const envelope = parseJson(String(row.body)) as { payload: unknown };
    expect(v.safeParse(envelopeSchema, envelope).success).toBe(true);
    expect(v.parse(savedPaymentPayloadSchema, envelope.payload)).toEqual(payment);
    expect(String(row.body)).toContain(`"amount":${10n ** 38n - 1n}`);
  });

  it('payload schema refuses negative or 39-digit amounts and unknown statuses', () => {
    const payment = recordPayment(undefined, input());
    expect(v.safeParse(savedPaymentPayloadSchema, { ...payment, amount: -1n }).success).toBe(false);
    expect(v.safeParse(savedPaymentPayloadSchema, { ...payment, amount: 10n ** 38n }).success).toBe(
      false,
    );
    expect(v.safeParse(savedPaymentPayloadSchema, { ...payment, status: 'DONE' }).success).toBe(
      false,
    );
    expect(v.safeParse(savedPaymentPayloadSchema, { ...payment, amount: 5 }).success).toBe(true);
  });
});
