/**
 * `npm run verify-logs -- <ledger> [--base-url URL] [--client-id ID] [--client-secret SECRET] [--page-size N]`
 * (`--base-url` defaults to the local platform: http://127.0.0.1:$PORT, or port 8080 without PORT)
 *
 * Walks a ledger's whole log over the public HTTP API (so it works against `npm start` and a deployment
 * alike) and recomputes its hash chain (HASH_LOGS=SYNC, see lib/ledger/domain/logs.ts). It trusts nothing
 * but the token endpoint and the log list: a log entry edited in the table, deleted or inserted shows up as
 * a broken chain. Exit status: 0 verified, 1 broken or not verifiable, 2 usage or request failure.
 */
import { parseArgs } from 'node:util';
import { parseJson } from '../../lib/json/bigint-json.js';
import { verifyChain } from '../../lib/ledger/domain/log-chain.js';
import type { LogEntry } from '../../lib/ledger/domain/logs.js';
import { LEDGER_NAME } from '../../lib/ledger/domain/names.js';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';
/** The local platform's well-known test client (infra/local/auth.local.yaml); refused in prod. */
const LOCAL_CLIENT = { id: 'local-dev', secret: 'local-dev-secret' };
/**
 * Log entries per request by default. Small on purpose: one entry can be large (100 postings plus metadata),
 * and a Lambda response is capped at 6 MB.
 */
const DEFAULT_PAGE_SIZE = 100;

const USAGE =
  'usage: npm run verify-logs -- <ledger> [--base-url URL] [--client-id ID] [--client-secret SECRET] [--page-size N]';

export interface VerifyArgs {
  ledger: string;
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  pageSize: number;
}

export interface VerifyIo {
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
  fetch: typeof fetch;
}

class UsageError extends Error {}
class RequestError extends Error {}

/** Arguments, with credentials from the flags, else VERIFY_CLIENT_ID / VERIFY_CLIENT_SECRET, else the local test client. */
export function parseVerifyArgs(argv: readonly string[], env: NodeJS.ProcessEnv): VerifyArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        'base-url': { type: 'string' },
        'client-id': { type: 'string' },
        'client-secret': { type: 'string' },
        'page-size': { type: 'string' },
      },
    });
  } catch (err) {
    // Node's messages go on about positionals; name the option and stop there.
    const { code, message } = err as Error & { code?: string };
    const option = /'(-[^']*)'/.exec(message)?.[1];
    throw new UsageError(
      code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option
        ? `unknown option ${option}`
        : message.split('. ')[0]!,
    );
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length === 0
        ? 'missing <ledger>'
        : `expected one ledger, got ${positionals.length}`,
    );
  const ledger = positionals[0]!;
  if (!LEDGER_NAME.test(ledger)) throw new UsageError(`"${ledger}" is not a ledger name`);
  // Without --base-url: the local platform, on the port `npm start` takes from PORT when it is set.
  const localUrl =
    env.PORT && /^\d{1,5}$/.test(env.PORT) ? `http://127.0.0.1:${env.PORT}` : DEFAULT_BASE_URL;
  const baseUrl = (values['base-url'] ?? localUrl).replace(/\/+$/, '');
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol))
    throw new UsageError(`--base-url: "${baseUrl}" is not an http(s) URL`);
  const pageSize = values['page-size'] ?? String(DEFAULT_PAGE_SIZE);
  if (!/^\d{1,4}$/.test(pageSize) || Number(pageSize) < 1 || Number(pageSize) > 1000)
    throw new UsageError('--page-size: must be an integer from 1 to 1000');
  return {
    ledger,
    baseUrl,
    clientId: values['client-id'] ?? env.VERIFY_CLIENT_ID ?? LOCAL_CLIENT.id,
    clientSecret: values['client-secret'] ?? env.VERIFY_CLIENT_SECRET ?? LOCAL_CLIENT.secret,
    pageSize: Number(pageSize),
  };
}

export async function main(argv: readonly string[], io: Partial<VerifyIo> = {}): Promise<number> {
  const out = io.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const err = io.err ?? ((line: string) => process.stderr.write(`${line}\n`));
  try {
    const args = parseVerifyArgs(argv, io.env ?? process.env);
    const http = io.fetch ?? fetch;
    const token = await readToken(http, args);
    const entries = await readLog(http, args, token);
    const verdict = verifyChain(entries);
    if (verdict.ok) {
      out(`ok: ${verdict.checked} log entries verified`);
      return 0;
    }
    out(`broken at log ${verdict.brokenAt}: ${verdict.reason}`);
    return 1;
  } catch (e) {
    if (e instanceof UsageError) {
      err(`error: ${e.message}`);
      err(USAGE);
      return 2;
    }
    err(
      `error: ${e instanceof RequestError ? e.message : e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`,
    );
    return 2;
  }
}

async function readToken(http: typeof fetch, args: VerifyArgs): Promise<string> {
  const url = `${args.baseUrl}/api/auth/oauth/token`;
  const res = await http(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: args.clientId,
      client_secret: args.clientSecret,
      scope: 'ledger:read',
    }),
  });
  const body = (await res.json().catch(() => ({}))) as {
    access_token?: string;
    error?: string;
    error_description?: string;
  };
  if (res.status !== 200 || typeof body.access_token !== 'string') {
    throw new RequestError(
      `token request to ${url} failed (${res.status}): ${body.error ?? 'no access token'}${body.error_description ? ` (${body.error_description})` : ''}`,
    );
  }
  return body.access_token;
}

/** The whole log, newest page first as the API lists it, returned in ascending id order. */
async function readLog(http: typeof fetch, args: VerifyArgs, token: string): Promise<LogEntry[]> {
  const path = `${args.baseUrl}/api/ledger/v2/${args.ledger}/logs`;
  const pages: LogEntry[][] = [];
  let query = `pageSize=${args.pageSize}`;
  for (;;) {
    const res = await http(`${path}?${query}`, { headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    let body: {
      cursor?: { hasMore: boolean; next?: string; data: Array<Record<string, unknown>> };
      errorCode?: string;
      errorMessage?: string;
    };
    try {
      body = parseJson(text) as typeof body;
    } catch {
      throw new RequestError(`GET ${path} answered ${res.status} with a body that is not JSON`);
    }
    const cursor = body?.cursor;
    if (res.status !== 200 || !cursor)
      throw new RequestError(
        `GET ${path} failed (${res.status}): ${body?.errorCode ?? ''} ${body?.errorMessage ?? ''}`.trimEnd(),
      );
    pages.push(cursor.data.map(toEntry));
    if (!cursor.hasMore || !cursor.next) break;
    query = `cursor=${encodeURIComponent(cursor.next)}`;
  }
  return pages.flat().reverse();
}

/** A Log as the API sends it (ids as big integers from the exact JSON parser), as the hash saw it. */
export function toEntry(raw: Record<string, unknown>): LogEntry {
  return {
    id: Number(raw.id),
    type: raw.type as LogEntry['type'],
    data: raw.data as Record<string, unknown>,
    date: String(raw.date),
    idempotencyKey: String(raw.idempotencyKey ?? ''),
    hash: String(raw.hash ?? ''),
  };
}
