import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { demoBook, type FakeBook, type FakeTransaction } from './data.js';

/**
 * A fake payment provider speaking the generic connector API (what the platform's `generic` connector calls): the
 * lists `GET /accounts`, `/beneficiaries`, `/transactions` (paged with `page`/`pageSize`, from `createdAtFrom` /
 * `updatedAtFrom`), `GET /accounts/<id>/balances`, and `POST /transfers`, `/payouts`, `/bank-accounts`. Transfers
 * and payouts move the balances at once and appear in `/transactions`; a repeated idempotency key answers the first
 * one. Every request needs `Authorization: Bearer <apiKey>`. It holds its book in memory: for the README's
 * walkthrough and tests, never for money.
 */
export interface FakeProvider {
  url: string;
  book: FakeBook;
  close(): Promise<void>;
}

export interface FakeProviderOptions {
  apiKey: string;
  port?: number;
  now?: () => number;
}

export async function startFakeProvider(options: FakeProviderOptions): Promise<FakeProvider> {
  const now = options.now ?? Date.now;
  const book = demoBook(new Date(now()).toISOString());
  const server: Server = createServer((req, res) => {
    handle(book, options.apiKey, now, req, res).catch((err: Error) => {
      reply(res, 500, { Title: 'Internal error', Detail: err.message });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    book,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error('the body is not a JSON object');
  return parsed as Record<string, unknown>;
}

async function handle(
  book: FakeBook,
  apiKey: string,
  now: () => number,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://fake-provider');
  if (req.headers.authorization !== `Bearer ${apiKey}`)
    return reply(res, 401, { Title: 'Unauthorized', Detail: 'unknown API key' });
  if (req.method === 'GET') return reply(res, ...read(book, url));
  if (req.method !== 'POST') return reply(res, 405, { Title: 'Method not allowed' });
  const body = await readBody(req);
  const at = new Date(now()).toISOString();
  if (url.pathname === '/bank-accounts') return reply(res, 201, createBankAccount(book, body, at));
  if (url.pathname === '/transfers' || url.pathname === '/payouts')
    return reply(
      res,
      ...move(book, url.pathname === '/transfers' ? 'TRANSFER' : 'PAYOUT', body, at),
    );
  return reply(res, 404, { Title: 'Not found', Detail: url.pathname });
}

function read(book: FakeBook, url: URL): [number, unknown] {
  const balances = /^\/accounts\/([^/]+)\/balances$/.exec(url.pathname);
  if (balances) {
    const id = decodeURIComponent(balances[1]!);
    const held = book.balances[id] ?? {};
    return [
      200,
      {
        at: new Date().toISOString(),
        balances: Object.entries(held).map(([currency, amount]) => ({
          currency,
          amount: String(amount),
        })),
      },
    ];
  }
  if (url.pathname === '/accounts') return [200, page(book.accounts, url, 'createdAt')];
  if (url.pathname === '/beneficiaries') return [200, page(book.beneficiaries, url, 'createdAt')];
  if (url.pathname === '/transactions') return [200, page(book.transactions, url, 'updatedAt')];
  return [404, { Title: 'Not found', Detail: url.pathname }];
}

/** One page of a list, oldest first, from the time the caller asks (`createdAtFrom` or `updatedAtFrom`). */
function page<T extends { createdAt: string }>(
  items: T[],
  url: URL,
  field: 'createdAt' | 'updatedAt',
): T[] {
  const time = (i: T) => Date.parse(String((i as Record<string, unknown>)[field]));
  const from = url.searchParams.get(`${field}From`);
  const size = Math.min(Math.max(Number(url.searchParams.get('pageSize') ?? 100) || 100, 1), 1000);
  const number = Math.max(Number(url.searchParams.get('page') ?? 1) || 1, 1);
  return items
    .filter((i) => from === null || time(i) >= Date.parse(from))
    .sort((a, b) => time(a) - time(b))
    .slice((number - 1) * size, number * size);
}

function createBankAccount(book: FakeBook, body: Record<string, unknown>, at: string) {
  const id = `ba-${String(book.bankAccounts.length + 1).padStart(4, '0')}`;
  const created = { ...body, id, createdAt: at };
  book.bankAccounts.push(created);
  // A bank account to pay out to is a beneficiary of the provider.
  book.beneficiaries.push({
    id,
    ownerName: String(body.name ?? ''),
    createdAt: at,
    metadata: (body.metadata as Record<string, string> | undefined) ?? {},
  });
  return created;
}

/** A transfer between two accounts, or a payout from an account to a beneficiary. */
function move(
  book: FakeBook,
  type: 'TRANSFER' | 'PAYOUT',
  body: Record<string, unknown>,
  at: string,
): [number, unknown] {
  const key = String(body.idempotencyKey ?? '');
  const seen = book.byIdempotencyKey[key];
  if (key && seen) return [200, created(seen)];
  const amount = /^\d+$/.test(String(body.amount)) ? BigInt(String(body.amount)) : -1n;
  const currency = String(body.currency ?? '');
  const source = String(body.sourceAccountId ?? '');
  const destination = String(body.destinationAccountId ?? '');
  if (amount <= 0n) return [400, { Title: 'Bad request', Detail: 'amount must be positive' }];
  const held = book.balances[source]?.[currency];
  if (held === undefined)
    return [400, { Title: 'Bad request', Detail: `no ${currency} on ${source}` }];
  const payees = type === 'TRANSFER' ? book.accounts : book.beneficiaries;
  if (!payees.some((p) => p.id === destination))
    return [400, { Title: 'Bad request', Detail: `no such destination ${destination}` }];
  if (held < amount)
    return [400, { Title: 'Insufficient funds', Detail: `${source} holds ${held}` }];
  book.balances[source]![currency] = held - amount;
  if (type === 'TRANSFER') {
    const to = book.balances[destination] ?? {};
    to[currency] = (to[currency] ?? 0n) + amount;
    book.balances[destination] = to;
  }
  book.sequence++;
  const tx: FakeTransaction = {
    id: `tx-${String(book.sequence).padStart(4, '0')}`,
    createdAt: at,
    updatedAt: at,
    currency,
    type,
    status: 'SUCCEEDED',
    amount: String(amount),
    sourceAccountID: source,
    destinationAccountID: destination,
    metadata: (body.metadata as Record<string, string> | undefined) ?? {},
  };
  book.transactions.push(tx);
  if (key) book.byIdempotencyKey[key] = tx;
  return [201, created(tx)];
}

/** What `POST /transfers` and `/payouts` answer. */
function created(tx: FakeTransaction) {
  return {
    id: tx.id,
    amount: tx.amount,
    currency: tx.currency,
    sourceAccountId: tx.sourceAccountID,
    destinationAccountId: tx.destinationAccountID,
    status: tx.status,
    createdAt: tx.createdAt,
    metadata: tx.metadata,
  };
}
