/** A webhook receiver on 127.0.0.1 that answers 204 and remembers when each delivery arrived. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Arrival {
  /** performance.now() when the request body was complete. */
  at: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface WebhookReceiver {
  url: string;
  arrivals: Arrival[];
  onArrival(listener: (arrival: Arrival) => void): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const arrivals: Arrival[] = [];
  const listeners: Array<(a: Arrival) => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const arrival = {
        at: performance.now(),
        body: Buffer.concat(chunks).toString('utf8'),
        headers: req.headers,
      };
      arrivals.push(arrival);
      for (const l of listeners) l(arrival);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    arrivals,
    onArrival: (l) => listeners.push(l),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
