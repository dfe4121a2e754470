import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  headers: Record<string, string>;
  body: string;
}

/**
 * A webhook receiver on a free loopback port that records every request and answers 200 (or, per request
 * number, the status given in `answers`).
 */
export async function startWebhookReceiver(
  answers: number[] = [],
): Promise<{ url: string; received: ReceivedDelivery[]; close(): Promise<void> }> {
  const received: ReceivedDelivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(answers[received.length - 1] ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
