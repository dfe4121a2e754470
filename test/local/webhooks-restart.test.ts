/**
 * Restarting the local platform on the same data loses nothing: an event committed while dispatch was off is
 * dispatched after the restart (the log tail resumes after its saved checkpoint), and a retry whose queue
 * message died with the in-memory queue is sent all the same (pending deliveries are re-enqueued at start).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { platformCall, startTestPlatform, until } from '../support/platform.js';

interface Received {
  id: string;
  body: string;
}

let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
let platform: RunningPlatform | undefined;
/** The same tables (and so the same logs and checkpoints) on every start: a data directory, as `npm start` keeps one. */
const dataDir = mkdtempSync(join(tmpdir(), 'webhooks-restart-'));
const resourcePrefix = 'restart-';

const api = (method: string, path: string, body?: unknown) =>
  platformCall(platform!, method, path, body);

const restart = async (options: { dispatch: boolean }) => {
  await platform?.stop();
  platform = await startTestPlatform({ dataDir, resourcePrefix, dispatch: options.dispatch });
};

const amountOf = (r: Received) =>
  (
    JSON.parse(r.body) as {
      payload: { transactions: Array<{ postings: Array<{ amount: number }> }> };
    }
  ).payload.transactions[0]!.postings[0]!.amount;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        id: String(req.headers['webhook-id']),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      // The very first request fails: its retry is pending when the platform stops.
      res.writeHead(received.length === 1 ? 500 : 200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  await platform?.stop();
  await new Promise((r) => receiver?.close(r));
  rmSync(dataDir, { recursive: true, force: true });
});

describe('restarting the local platform', () => {
  it('dispatches what was committed while dispatch was off, and sends the retry the lost queue held', async () => {
    await restart({ dispatch: true });
    const config = await api('POST', '/api/webhooks/configs', {
      endpoint: receiverUrl,
      eventTypes: ['ledger.committed_transactions'],
    });
    expect(config.status).toBe(200);
    expect((await api('POST', '/api/ledger/v2/restarts')).status).toBe(204);
    const transfer = (amount: number) =>
      api('POST', '/api/ledger/v2/restarts/transactions', {
        postings: [{ source: 'world', destination: 'a', amount, asset: 'USD' }],
      });

    // 1. Committed and attempted once (500); stopped while its retry waits on the in-memory queue.
    expect((await transfer(1)).status).toBe(200);
    const first = await until('the first attempt', () => received[0]);
    expect(amountOf(first)).toBe(1);
    await until('the attempt to be recorded', async () => {
      const { body } = await api('GET', `/api/webhooks/deliveries/${first.id}`);
      return body?.data?.attemptCount === 1 && body.data.status === 'pending' ? true : undefined;
    });

    // 2. Committed while the platform runs without dispatch: nothing is delivered.
    await restart({ dispatch: false });
    expect((await transfer(2)).status).toBe(200);
    expect(
      (await api('GET', '/api/webhooks/deliveries?status=pending')).body.cursor.data.map(
        (d: { id: string }) => d.id,
      ),
    ).toEqual([first.id]);

    // 3. Dispatch on again, same tables: the event of step 2 is dispatched, and the retry of step 1 is sent.
    await restart({ dispatch: true });
    const second = await until('the event committed while dispatch was off', () =>
      received.find((r) => r.id !== first.id),
    );
    expect(amountOf(second)).toBe(2);
    await until('the retry of the first delivery', () =>
      received.filter((r) => r.id === first.id).length === 2 ? true : undefined,
    );
    for (const [id, attempts] of [
      [first.id, 2],
      [second.id, 1],
    ] as const) {
      const delivery = await until(`delivery ${id} to succeed`, async () => {
        const { body } = await api('GET', `/api/webhooks/deliveries/${id}`);
        return body?.data?.status === 'succeeded' ? body.data : undefined;
      });
      expect(delivery).toMatchObject({ id, status: 'succeeded', attemptCount: attempts });
    }
    // Each event delivered once more than it failed: the resumed tail did not hand the first event over again
    // as a new delivery, and the re-enqueued retry went out once.
    expect(received.map((r) => [r.id === first.id ? 'first' : 'second', amountOf(r)])).toEqual([
      ['first', 1],
      ...(received[1]!.id === first.id
        ? [
            ['first', 1],
            ['second', 2],
          ]
        : [
            ['second', 2],
            ['first', 1],
          ]),
    ]);
  });
});
