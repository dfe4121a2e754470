/**
 * Failure injection for the ledger's atomic writer (lib/ledger/store/writer.ts) where DynamoDB Local cannot
 * produce the failure on demand: transaction conflicts, a moved HEAD, throttling, timeouts, exhausted retries.
 *
 * How: the ledger app builds its own DynamoDBDocumentClient. A document client does NOT go through
 * `DynamoDBClient.prototype.send` (it extends the smithy `Client` and resolves the wrapped command's middleware
 * itself), so `mockClient(DynamoDBClient)` would not see its calls; we mock `DynamoDBDocumentClient` instead,
 * which patches the prototype's `send` for every document client in this file. aws-sdk-client-mock 4.1 has no
 * `callThrough()`, so the stub's default behaviour calls the original `send` (DynamoDB Local) and only the
 * commands a test chooses fail. The mock is restored after each test.
 */
import {
  DynamoDBDocumentClient,
  QueryCommand,
  TransactGetCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { cancelled, fail, throttled, throughputExceeded } from '../../support/dynamo-faults.js';
import { ledgerClient, ledgerEventsOf, storedTransactionItems } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

type Send = (
  this: DynamoDBDocumentClient,
  command: unknown,
  ...rest: unknown[]
) => Promise<unknown>;
/** The real `send`, captured before any stub is installed. */
const realSend = DynamoDBDocumentClient.prototype.send as unknown as Send;

/** What to do with the n-th (1-based) command of a kind: undefined passes it through to DynamoDB Local. */
type Injector = (
  n: number,
  command: TransactWriteCommand | TransactGetCommand,
  pass: () => Promise<unknown>,
) => Promise<unknown> | undefined;

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let mock: ReturnType<typeof mockClient> | undefined;
const sleeps: number[] = [];
const seen = { write: 0, get: 0 };
let counter = 0;

/** Installs the stub: every command goes to DynamoDB Local except those the injectors take over. */
function inject(injectors: { write?: Injector; get?: Injector }): void {
  seen.write = 0;
  seen.get = 0;
  mock = mockClient(DynamoDBDocumentClient);
  const stub = mock.send as unknown as { callsFake(fn: Send): void };
  stub.callsFake(function (this: DynamoDBDocumentClient, command: unknown, ...rest: unknown[]) {
    const pass = () => realSend.call(this, command, ...rest);
    if (command instanceof TransactWriteCommand && injectors.write)
      return injectors.write(++seen.write, command, pass) ?? pass();
    if (command instanceof TransactWriteCommand) seen.write++;
    if (command instanceof TransactGetCommand && injectors.get)
      return injectors.get(++seen.get, command, pass) ?? pass();
    if (command instanceof TransactGetCommand) seen.get++;
    return pass();
  });
}

const send = (source: string, destination: string, amount: bigint, asset = 'USD/2') => ({
  source,
  destination,
  amount,
  asset,
});
const tx = (ledger: string, body: unknown, headers: Record<string, string> = {}) =>
  call('POST', `/v2/${ledger}/transactions`, body, headers);

async function fresh(): Promise<string> {
  const name = `f${++counter}-${Date.now() % 100000}`;
  const res = await call('POST', `/v2/${name}`);
  expect(res.status, res.text).toBe(204);
  return name;
}

/** Everything a committed write leaves behind, read straight from the tables (the stub passes these through). */
async function traces(ledger: string) {
  const partition = async (pk: string) =>
    (
      await runtime.doc.send(
        new QueryCommand({
          TableName: runtime.config.tables.ledger,
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': pk },
          ConsistentRead: true,
        }),
      )
    ).Items ?? [];
  const stats = await call('GET', `/v2/${ledger}/stats`);
  return {
    events: await ledgerEventsOf(runtime, ledger),
    logs: await partition(`E#default#L#${ledger}#LOG`),
    transactions: await storedTransactionItems(runtime, ledger),
    stats: stats.body.data as { accounts: bigint; transactions: bigint },
  };
}

/** A failed request must leave the ledger exactly as it was. */
async function expectUnchanged(
  ledger: string,
  before: Awaited<ReturnType<typeof traces>>,
  nextId: number,
) {
  const after = await traces(ledger);
  expect(after.stats).toEqual(before.stats);
  expect(after.events.length).toBe(before.events.length);
  expect(after.logs.length).toBe(before.logs.length);
  expect(after.transactions.length).toBe(before.transactions.length);
  expect((await call('GET', `/v2/${ledger}/transactions/${nextId}`)).status).toBe(404);
}

beforeAll(async () => {
  ({ runtime } = await testTables());
  // The token is issued here, before any stub exists; its checks later pass through the stub anyway.
  ({ call } = await ledgerClient(runtime, { sleep: async (ms) => void sleeps.push(ms) }));
});

afterEach(() => {
  mock?.restore();
  mock = undefined;
  sleeps.length = 0;
});

describe('ledger writer under injected DynamoDB failures', () => {
  it('(a) retries a TransactionConflict on the commit and succeeds with the right id, once', async () => {
    const ledger = await fresh();
    expect((await tx(ledger, { postings: [send('world', 'a', 10n)] })).status).toBe(200);
    inject({
      write: (n, command) =>
        n === 1
          ? fail(
              cancelled(command, {
                [command.input.TransactItems!.length - 1]: 'TransactionConflict',
              }),
            )
          : undefined,
    });

    const res = await tx(ledger, { postings: [send('a', 'b', 4n)] });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.id).toBe(2n);
    expect(res.body.data.postCommitVolumes.a['USD/2']).toEqual({
      input: 10n,
      output: 4n,
      balance: 6n,
    });
    expect(seen).toEqual({ write: 2, get: 2 }); // read again, decided again, committed once
    expect(sleeps).toHaveLength(1);
    mock!.restore();

    const after = await traces(ledger);
    expect(after.stats.transactions).toBe(2n);
    expect(after.logs.map((l) => Number(l.id))).toEqual([1, 2]);
    expect(after.events).toHaveLength(2);
  });

  it('(b) retries when the HEAD condition fails twice (reason 0 ConditionalCheckFailed), then succeeds', async () => {
    const ledger = await fresh();
    inject({
      write: (n, command) =>
        n <= 2 ? fail(cancelled(command, { 0: 'ConditionalCheckFailed' })) : undefined,
    });

    const res = await tx(
      ledger,
      { postings: [send('world', 'a', 7n)] },
      { 'Idempotency-Key': 'b-1' },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.id).toBe(1n);
    expect(res.headers.get('idempotency-hit')).toBeNull();
    expect(seen).toEqual({ write: 3, get: 3 });
    expect(sleeps).toHaveLength(2);
    mock!.restore();

    const after = await traces(ledger);
    expect(after.stats).toEqual({ accounts: 2n, transactions: 1n });
    expect(after.events).toHaveLength(1);
    const replay = await tx(
      ledger,
      { postings: [send('world', 'a', 7n)] },
      { 'Idempotency-Key': 'b-1' },
    );
    expect(replay.headers.get('idempotency-hit')).toBe('true');
    expect(replay.text).toBe(res.text);
  });

  it('(b2) a HEAD genuinely moved by a commit between snapshot and write: the retry decides on fresh balances', async () => {
    const ledger = await fresh();
    expect((await tx(ledger, { postings: [send('world', 'wallet', 10n)] })).status).toBe(200);
    let raced: Awaited<ReturnType<typeof tx>> | undefined;
    inject({
      write: (n, _command, pass) => {
        if (n !== 1) return undefined;
        // Before the first commit attempt lands, another request spends 5 of the 10 (its own write is n = 2).
        return (async () => {
          raced = await tx(ledger, { postings: [send('wallet', 'shop:1', 5n)] });
          return pass(); // the real DynamoDB Local now refuses this one: lastLogId moved
        })();
      },
    });

    const res = await tx(ledger, { postings: [send('wallet', 'shop:2', 8n)] });
    expect(raced?.status, raced?.text).toBe(200);
    expect(raced!.body.data.id).toBe(2n);
    // The first snapshot saw 10 (enough for 8); the retry sees 5: refused, no lost update.
    expect(res.status, res.text).toBe(400);
    expect(res.body.errorCode).toBe('INSUFFICIENT_FUND');
    expect(seen.write).toBe(2);
    mock!.restore();

    const probe = await tx(ledger, { postings: [send('world', 'wallet', 0n)] });
    expect(probe.body.data.id).toBe(3n);
    expect(probe.body.data.postCommitVolumes.wallet['USD/2'].balance).toBe(5n);
  });

  for (const [index, [label, make]] of (
    [
      ['ProvisionedThroughputExceededException', throughputExceeded],
      ['ThrottlingException', throttled],
      ['TransactionCanceledException with a ThrottlingError reason', undefined],
    ] as Array<[string, (() => Error) | undefined]>
  ).entries()) {
    it(`(c) answers 503 INTERNAL with Retry-After on ${label}, without retrying, and writes nothing`, async () => {
      const ledger = await fresh();
      expect((await tx(ledger, { postings: [send('world', 'a', 10n)] })).status).toBe(200);
      const before = await traces(ledger);
      inject({
        write: (_n, command) => fail(make ? make() : cancelled(command, { 1: 'ThrottlingError' })),
      });

      const res = await tx(
        ledger,
        { postings: [send('a', 'b', 1n)] },
        { 'Idempotency-Key': `c-${index}` },
      );
      expect(res.status, res.text).toBe(503);
      expect(res.body).toEqual({ errorCode: 'INTERNAL', errorMessage: expect.any(String) });
      expect(res.body.errorMessage).not.toContain(label.split(' ')[0]);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(seen.write).toBe(1); // throttling is for the caller to back off from, not retried in a loop
      mock!.restore();

      await expectUnchanged(ledger, before, 2);
      // The idempotency key was not consumed: the same request now commits normally.
      const again = await tx(
        ledger,
        { postings: [send('a', 'b', 1n)] },
        { 'Idempotency-Key': `c-${index}` },
      );
      expect(again.status, again.text).toBe(200);
      expect(again.headers.get('idempotency-hit')).toBeNull();
      expect(again.body.data.id).toBe(2n);
    });
  }

  it('(d) answers 500 with the generic message and request id on a timeout, and writes nothing', async () => {
    const ledger = await fresh();
    const before = await traces(ledger);
    const secret = 'socket hang up on dynamodb.internal:8000';
    inject({ write: () => fail(Object.assign(new Error(secret), { name: 'TimeoutError' })) });

    const res = await tx(ledger, { postings: [send('world', 'a', 3n)] });
    expect(res.status, res.text).toBe(500);
    const requestId = res.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    expect(res.body).toEqual({
      errorCode: 'INTERNAL',
      errorMessage: `internal error (request id ${requestId})`,
    });
    expect(res.text).not.toContain('socket');
    expect(res.text).not.toContain('TimeoutError');
    expect(seen.write).toBe(1);
    mock!.restore();

    await expectUnchanged(ledger, before, 1);
  });

  it('(d2) a timeout after the commit landed: 500, and a retry with the same Idempotency-Key replays it (no double commit)', async () => {
    const ledger = await fresh();
    inject({
      write: (n, _command, pass) =>
        n === 1
          ? (async () => {
              await pass();
              throw Object.assign(new Error('response lost after commit'), {
                name: 'TimeoutError',
              });
            })()
          : undefined,
    });

    const body = { postings: [send('world', 'a', 9n)] };
    const lost = await tx(ledger, body, { 'Idempotency-Key': 'd2' });
    expect(lost.status, lost.text).toBe(500);
    const retried = await tx(ledger, body, { 'Idempotency-Key': 'd2' });
    expect(retried.status, retried.text).toBe(200);
    expect(retried.headers.get('idempotency-hit')).toBe('true');
    expect(retried.body.data.id).toBe(1n);
    mock!.restore();

    const after = await traces(ledger);
    expect(after.stats.transactions).toBe(1n);
    expect(after.events).toHaveLength(1);
  });

  it('(e) gives up after a bounded number of jittered retries on endless conflicts: 503, nothing written', async () => {
    const ledger = await fresh();
    const before = await traces(ledger);
    inject({ write: (_n, command) => fail(cancelled(command, { 2: 'TransactionConflict' })) });

    const res = await tx(ledger, { postings: [send('world', 'a', 1n)] });
    expect(res.status, res.text).toBe(503);
    expect(res.body.errorCode).toBe('INTERNAL');
    expect(res.body.errorMessage).toMatch(/retry/i);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    // writer.ts: MAX_ATTEMPTS = 10, full jitter capped at min(1000, 10 * 2^attempt) ms between attempts.
    expect(seen.write).toBe(10);
    expect(seen.get).toBe(10);
    expect(sleeps).toHaveLength(9);
    sleeps.forEach((ms, i) => {
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThanOrEqual(Math.min(1000, 10 * 2 ** (i + 1)));
    });
    expect(new Set(sleeps).size, 'jittered, not a fixed delay').toBeGreaterThan(1);
    mock!.restore();

    await expectUnchanged(ledger, before, 1);
  });

  // TransactGetItems is cancelled with reason TransactionConflict when a TransactWriteItems on one of its
  // items is in flight (real DynamoDB does this; DynamoDB Local does not): the writer must retry it.
  it('(f) retries a TransactionConflict on the snapshot read (TransactGetItems)', async () => {
    const ledger = await fresh();
    inject({
      get: (n, command) =>
        n === 1 ? fail(cancelled(command, { 0: 'TransactionConflict' })) : undefined,
    });
    const res = await tx(ledger, { postings: [send('world', 'a', 2n)] });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.id).toBe(1n);
  });
});
