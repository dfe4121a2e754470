/**
 * Failure injection and races for the payments store (lib/payments/store/payment-store.ts): throttling and
 * timeouts on the one TransactWriteItems of a change, lost races on the version condition, exhausted retries.
 *
 * As in ledger-failures.test.ts: the payments app builds its own DynamoDBDocumentClient, so the stub patches
 * `DynamoDBDocumentClient.prototype.send`; its default calls the original `send` (DynamoDB Local), and only the
 * commands a test chooses are taken over. The mock is restored after each test.
 */
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { paymentId } from '../../../lib/payments/domain/payment.js';
import { MAX_SAVE_ATTEMPTS, SAVE_BACKOFF } from '../../../lib/payments/store/payment-store.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { cancelled, fail, throttled, throughputExceeded } from '../../support/dynamo-faults.js';
import {
  type PaymentsCall,
  paymentBody,
  paymentEvents,
  paymentsClient,
  storedCounts,
} from '../../support/payments.js';
import { testTables } from '../../support/tables.js';

type Send = (
  this: DynamoDBDocumentClient,
  command: unknown,
  ...rest: unknown[]
) => Promise<unknown>;
const realSend = DynamoDBDocumentClient.prototype.send as unknown as Send;

/** What to do with the n-th (1-based) TransactWriteItems: undefined passes it through to DynamoDB Local. */
type Injector = (
  n: number,
  command: TransactWriteCommand,
  pass: () => Promise<unknown>,
) => Promise<unknown> | undefined;

let runtime: ServiceRuntime;
let call: PaymentsCall;
let mock: ReturnType<typeof mockClient> | undefined;
const sleeps: number[] = [];
const seen = { write: 0, paymentReads: 0 };

function inject(write?: Injector): void {
  seen.write = 0;
  seen.paymentReads = 0;
  mock = mockClient(DynamoDBDocumentClient);
  const stub = mock.send as unknown as { callsFake(fn: Send): void };
  stub.callsFake(function (this: DynamoDBDocumentClient, command: unknown, ...rest: unknown[]) {
    const pass = () => realSend.call(this, command, ...rest);
    if (command instanceof GetCommand && command.input.TableName === runtime.config.tables.payments)
      seen.paymentReads++;
    if (command instanceof TransactWriteCommand) {
      const n = ++seen.write;
      if (write) return write(n, command, pass) ?? pass();
    }
    return pass();
  });
}

const create = (body: unknown) => call('POST', '/v3/payments', body);

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await paymentsClient(runtime, { sleep: async (ms) => void sleeps.push(ms) }));
});

afterEach(() => {
  mock?.restore();
  mock = undefined;
  sleeps.length = 0;
});

describe('payments under injected DynamoDB failures', () => {
  for (const [label, make] of [
    ['ProvisionedThroughputExceededException', throughputExceeded],
    ['ThrottlingException', throttled],
    ['TransactionCanceledException with a ThrottlingError reason', undefined],
  ] as Array<[string, (() => Error) | undefined]>) {
    it(`answers 503 INTERNAL with Retry-After on ${label}, writes nothing (payment, index items, event), and the retry commits`, async () => {
      const existing = await create(paymentBody());
      expect(existing.status).toBe(201);
      const before = await storedCounts(runtime);
      inject((_n, command) => fail(make ? make() : cancelled(command, { 1: 'ThrottlingError' })));

      const body = paymentBody();
      const res = await create(body);
      expect(res.status, res.text).toBe(503);
      expect(res.body).toEqual({ errorCode: 'INTERNAL', errorMessage: expect.any(String) });
      expect(res.body.errorMessage).not.toContain(label.split(' ')[0]);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(seen.write).toBe(1); // throttling is for the caller to back off from
      // An update is refused the same way and leaves the stored record as it was.
      const update = await create(
        paymentBody({ reference: existing.body.data.reference, status: 'SUCCEEDED' }),
      );
      expect(update.status).toBe(503);
      mock!.restore();

      expect(await storedCounts(runtime)).toEqual(before);
      expect(
        (
          await call(
            'GET',
            `/v3/payments/${paymentId('stripe-main', String(body.reference), 'PAY-IN')}`,
          )
        ).status,
      ).toBe(404);
      expect((await call('GET', `/v3/payments/${existing.body.data.id}`)).body.data.status).toBe(
        'PENDING',
      );
      const again = await create(body);
      expect(again.status, again.text).toBe(201);
      expect(await storedCounts(runtime)).toEqual({
        payments: before.payments + 8,
        events: before.events + 1,
      });
    });
  }

  it('answers 500 with the generic message on a timeout, and writes nothing', async () => {
    const before = await storedCounts(runtime);
    inject(() =>
      fail(
        Object.assign(new Error('socket hang up on dynamodb.internal:8000'), {
          name: 'TimeoutError',
        }),
      ),
    );
    const res = await create(paymentBody());
    expect(res.status).toBe(500);
    const requestId = res.headers.get('x-request-id');
    expect(res.body).toEqual({
      errorCode: 'INTERNAL',
      errorMessage: `internal error (request id ${requestId})`,
    });
    expect(res.text).not.toContain('socket');
    mock!.restore();
    expect(await storedCounts(runtime)).toEqual(before);
  });

  it('retries a lost race (condition failed, transaction conflict) and commits once', async () => {
    inject((n, command) =>
      n === 1
        ? fail(cancelled(command, { 0: 'ConditionalCheckFailed' }))
        : n === 2
          ? fail(cancelled(command, { 2: 'TransactionConflict' }))
          : undefined,
    );
    const res = await create(paymentBody());
    expect(res.status, res.text).toBe(201);
    expect(seen.write).toBe(3);
    expect(seen.paymentReads).toBe(3); // read again and decided again each time
    expect(sleeps).toHaveLength(2);
    mock!.restore();
    expect(await paymentEvents(runtime, res.body.data.id)).toHaveLength(1);
  });

  it('a change committed between read and write: the retry decides on the new version, and both changes survive', async () => {
    const { body } = await create(paymentBody({ metadata: { first: '1' } }));
    const id = body.data.id as string;
    let raced: Awaited<ReturnType<typeof call>> | undefined;
    inject((n, _command, pass) => {
      if (n !== 1) return undefined;
      return (async () => {
        raced = await call('PATCH', `/v3/payments/${id}/metadata`, { raced: 'yes' });
        return pass(); // DynamoDB Local now refuses this write: the version moved
      })();
    });
    const res = await create(
      paymentBody({
        reference: body.data.reference,
        status: 'SUCCEEDED',
        metadata: { mine: 'too' },
      }),
    );
    expect(raced?.status).toBe(204);
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({
      status: 'SUCCEEDED',
      metadata: { first: '1', raced: 'yes', mine: 'too' },
    });
    expect(seen.write).toBe(3); // the original, the PATCH, the retry
    mock!.restore();
    const events = await paymentEvents(runtime, id);
    expect(events.map((e) => e.row.paymentVersion)).toEqual([1n, 2n, 3n]);
    expect(events[1]!.envelope.payload.metadata).toEqual({ first: '1', raced: 'yes' });
    expect(events[2]!.envelope.payload).toEqual(res.body.data);
  });

  it(`gives up after ${MAX_SAVE_ATTEMPTS} attempts of endless lost races: 503, nothing written`, async () => {
    const before = await storedCounts(runtime);
    inject((_n, command) => fail(cancelled(command, { 0: 'ConditionalCheckFailed' })));
    const res = await create(paymentBody());
    expect(res.status, res.text).toBe(503);
    expect(res.body.errorCode).toBe('INTERNAL');
    expect(res.body.errorMessage).toMatch(/retry/i);
    expect(seen.write).toBe(MAX_SAVE_ATTEMPTS);
    expect(sleeps).toHaveLength(MAX_SAVE_ATTEMPTS - 1);
    sleeps.forEach((ms, i) => {
      expect(ms).toBeLessThanOrEqual(
        Math.min(SAVE_BACKOFF.maxDelayMs, SAVE_BACKOFF.baseDelayMs * 2 ** (i + 1)),
      );
    });
    // The window reaches its cap: later waits spread up to it, and none beyond.
    expect(Math.max(...sleeps)).toBeGreaterThan(SAVE_BACKOFF.maxDelayMs / 4);
    mock!.restore();
    expect(await storedCounts(runtime)).toEqual(before);
  });

  it('answers ids that cannot be payment ids with 404 without reading the table', async () => {
    inject();
    for (const [method, path, body] of [
      ['GET', '/v3/payments/nope', undefined],
      ['PATCH', '/v3/payments/nope/metadata', { a: 'b' }],
    ] as Array<[string, string, unknown]>) {
      expect((await call(method, path, body)).status).toBe(404);
    }
    expect(seen.paymentReads).toBe(0);
    expect((await call('GET', `/v3/payments/${paymentId('x', 'y', 'OTHER')}`)).status).toBe(404);
    expect(seen.paymentReads).toBe(1);
  });
});

describe('concurrent writers of one payment (DynamoDB Local, no injection)', () => {
  it('serialises concurrent create-or-updates through the version: every change lands, one event each', async () => {
    const base = paymentBody();
    const writers = ['a', 'b', 'c', 'd'];
    inject(); // counts only
    const results = await Promise.all(
      writers.map((k) => create({ ...base, metadata: { [k]: k } })),
    );
    for (const r of results) expect(r.status, r.text).toBe(201);
    // Each round of lost races lets at least one writer through: at most 4 + 3 + 2 + 1 attempts.
    expect(seen.write).toBeGreaterThanOrEqual(writers.length);
    expect(seen.write).toBeLessThanOrEqual(10);
    const id = results[0]!.body.data.id as string;
    expect(new Set(results.map((r) => r.body.data.id))).toEqual(new Set([id]));
    const final = await call('GET', `/v3/payments/${id}`);
    expect(final.body.data.metadata).toEqual({ a: 'a', b: 'b', c: 'c', d: 'd' });
    const events = await paymentEvents(runtime, id);
    expect(events.map((e) => e.row.paymentVersion)).toEqual([1n, 2n, 3n, 4n]);
    expect(events[3]!.envelope.payload).toEqual(final.body.data);
  });
});
