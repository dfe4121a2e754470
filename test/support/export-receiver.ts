import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseJson } from '../../lib/json/bigint-json.js';

export interface ReceivedBatch {
  idempotencyKey: string;
  authorization: string;
  /** As sent, integers (ids and amounts) read as bigint. */
  logs: Array<Record<string, unknown>>;
  /** Their log ids. */
  ids: number[];
}

/**
 * A loopback receiver of the `http` driver's batches on a fixed port, that can be taken down (connections are
 * then refused) and brought up again on the same port. `answer` picks each request's status: a batch answered
 * with an error is still recorded, as a receiver that stored it before failing would have.
 */
export async function startExportReceiver(
  answer: (n: number) => number | Promise<number> = () => 200,
) {
  const received: ReceivedBatch[] = [];
  let requests = 0;
  const listen = async (port: number): Promise<Server> => {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        received.push({
          idempotencyKey: String(req.headers['idempotency-key']),
          authorization: String(req.headers.authorization),
          logs: parseJson(Buffer.concat(chunks).toString('utf8')) as ReceivedBatch['logs'],
          ids: (parseJson(Buffer.concat(chunks).toString('utf8')) as Array<{ id: bigint }>).map(
            (l) => Number(l.id),
          ),
        });
        res.writeHead(await answer(++requests)).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
    return server;
  };
  let server: Server | undefined = await listen(0);
  const port = (server.address() as AddressInfo).port;
  const close = async () => {
    const s = server;
    server = undefined;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  return {
    url: `http://127.0.0.1:${port}/batches`,
    received,
    /** Every log received, by id, the last copy kept (duplicates are the same log sent again). */
    logsById: () => new Map(received.flatMap((b) => b.logs.map((l, i) => [b.ids[i]!, l] as const))),
    down: close,
    up: async () => {
      server = await listen(port);
    },
    close,
  };
}
