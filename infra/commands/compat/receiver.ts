import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HookReceiver {
  url: string;
  /** How many deliveries arrived so far. */
  count(): number;
  close(): Promise<void>;
}

/** A loopback webhook endpoint that answers 200 to every delivery (the local platform allows loopback targets). */
export async function startHookReceiver(): Promise<HookReceiver> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    count: () => received,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
