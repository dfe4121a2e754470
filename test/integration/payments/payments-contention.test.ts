/**
 * Many writers on one payment (#17): 50 concurrent changes of the same payment on DynamoDB Local, with the
 * store's real backoff (no injected sleep). Every change must apply — none answered 5xx — each with its own
 * version and event.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import {
  type PaymentsCall,
  paymentBody,
  paymentEvents,
  paymentsClient,
} from '../../support/payments.js';
import { testTables } from '../../support/tables.js';

const WRITERS = 50;

let runtime: ServiceRuntime;
let call: PaymentsCall;

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await paymentsClient(runtime));
});

describe(`${WRITERS} concurrent writers of one payment`, () => {
  it('applies every metadata PATCH: all 204, every key stored, one version and one event per change', async () => {
    const created = await call('POST', '/v3/payments', paymentBody());
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id as string;

    const keys = Array.from({ length: WRITERS }, (_, i) => `writer-${i}`);
    const results = await Promise.all(
      keys.map((k) => call('PATCH', `/v3/payments/${id}/metadata`, { [k]: k })),
    );
    expect(results.filter((r) => r.status !== 204).map((r) => `${r.status} ${r.text}`)).toEqual([]);

    const final = await call('GET', `/v3/payments/${id}`);
    expect(final.body.data.metadata).toEqual(Object.fromEntries(keys.map((k) => [k, k])));
    const events = await paymentEvents(runtime, id);
    expect(events.map((e) => e.row.paymentVersion)).toEqual(
      Array.from({ length: WRITERS + 1 }, (_, i) => BigInt(i + 1)),
    );
    // Each event holds the record as that version left it: one more key each time.
    expect(events.map((e) => Object.keys(e.envelope.payload.metadata).length)).toEqual(
      Array.from({ length: WRITERS + 1 }, (_, i) => i),
    );
    expect(events[WRITERS]!.envelope.payload).toEqual(final.body.data);
  });

  it('applies every create-or-update through the same key: all 201, every status change and key kept', async () => {
    const base = paymentBody();
    const results = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) =>
        call('POST', '/v3/payments', {
          ...base,
          amount: BigInt(1000 + i),
          metadata: { [`w${i}`]: String(i) },
        }),
      ),
    );
    expect(results.filter((r) => r.status !== 201).map((r) => `${r.status} ${r.text}`)).toEqual([]);
    const id = results[0]!.body.data.id as string;
    const final = await call('GET', `/v3/payments/${id}`);
    expect(Object.keys(final.body.data.metadata).sort()).toEqual(
      Array.from({ length: WRITERS }, (_, i) => `w${i}`).sort(),
    );
    // The last version written is one of the writers' amounts, and the events count every writer once.
    const events = await paymentEvents(runtime, id);
    expect(events).toHaveLength(WRITERS);
    expect(events[WRITERS - 1]!.envelope.payload).toEqual(final.body.data);
  });
});
