import { createHash } from 'node:crypto';
import { stringifyJson } from '../../json/bigint-json.js';
import type { Connector } from '../domain/connectors/connector.js';
import {
  type AccountReferences,
  type LedgerLink,
  type LinkTransaction,
  linkTransactions,
} from '../domain/connectors/ledger-link.js';
import type { Payment } from '../domain/payment.js';

/** What the link needs to reach the ledger: the platform's public URL (PUBLIC_BASE_URL) and HTTP. */
export interface LedgerLinkDeps {
  fetch: typeof fetch;
  now: () => number;
  /** Unset: no link can post (a connector with one fails its payment runs, saying so). */
  publicBaseUrl?: string;
}

/** A link's call that did not post: the run fails with this message and is retried from its cursor. */
export class LedgerLinkError extends Error {}

/** A token is renewed this long before it expires. */
const TOKEN_MARGIN_MS = 60_000;
const REQUEST_TIMEOUT_MS = 30_000;
/** Tokens by client (and secret, so a changed secret is used at once); one process's cache. */
const tokens = new Map<string, { token: string; environment: string; expiresAtMs: number }>();

/**
 * Writes one transaction the link asks for, as the link's client: posted now, or already posted (its reference
 * is in the ledger: a 409 CONFLICT). The reference, not an idempotency key, makes it once-only: keys are for
 * repeating the same request, and a payment read again after a reset may ask with another amount. The client's token must be of the connector's environment, so a link can
 * never write to another environment's ledger. Anything else throws a LedgerLinkError naming the ledger's answer.
 */
export async function postLinkTransaction(
  deps: LedgerLinkDeps,
  environment: string,
  link: LedgerLink,
  tx: LinkTransaction,
): Promise<'posted' | 'already'> {
  const base = deps.publicBaseUrl;
  if (!base) throw new LedgerLinkError('ledger link: this worker has no PUBLIC_BASE_URL');
  const token = await tokenOf(deps, base, link);
  if (token.environment !== environment)
    throw new LedgerLinkError(
      `ledger link: client ${link.clientID} is not a client of this environment (${environment})`,
    );
  const url = `${base}/api/ledger/v2/${encodeURIComponent(link.ledger)}/transactions?force=true`;
  const res = await call(deps, url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token.token}`,
      'content-type': 'application/json',
    },
    body: stringifyJson({ postings: tx.postings, reference: tx.reference, metadata: tx.metadata }),
  });
  if (res.ok) return 'posted';
  const answer = await errorOf(res);
  if (res.status === 409 && answer.errorCode === 'CONFLICT') return 'already';
  if (res.status === 401) tokens.delete(cacheKey(link));
  throw new LedgerLinkError(
    `ledger link: ledger ${link.ledger} answered ${res.status} ${answer.errorCode}: ${answer.errorMessage}`,
  );
}

async function tokenOf(
  deps: LedgerLinkDeps,
  base: string,
  link: LedgerLink,
): Promise<{ token: string; environment: string }> {
  const key = cacheKey(link);
  const cached = tokens.get(key);
  if (cached && cached.expiresAtMs - TOKEN_MARGIN_MS > deps.now()) return cached;
  const res = await call(deps, `${base}/api/auth/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: link.clientID,
      client_secret: link.clientSecret,
    }).toString(),
  });
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok || typeof body.access_token !== 'string')
    throw new LedgerLinkError(
      `ledger link: client ${link.clientID} got no token (${res.status} ${String(body.error ?? '')})`,
    );
  const entry = {
    token: body.access_token,
    environment: environmentClaim(body.access_token),
    expiresAtMs: deps.now() + Number(body.expires_in ?? 0) * 1000,
  };
  tokens.set(key, entry);
  return entry;
}

/** The token's environment claim: read, not verified (it came from the auth service over the platform's URL). */
function environmentClaim(token: string): string {
  try {
    const payload = JSON.parse(
      Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'),
    );
    return typeof payload.environment === 'string' ? payload.environment : '';
  } catch {
    return '';
  }
}

const cacheKey = (link: LedgerLink) =>
  createHash('sha256').update(`${link.clientID}\u0000${link.clientSecret}`).digest('base64url');

async function call(deps: LedgerLinkDeps, url: string, init: RequestInit): Promise<Response> {
  try {
    return await deps.fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (err) {
    throw new LedgerLinkError(`ledger link: ${new URL(url).pathname}: ${(err as Error).message}`);
  }
}

async function errorOf(res: Response): Promise<{ errorCode: string; errorMessage: string }> {
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  return {
    errorCode: String(body.errorCode ?? 'UNKNOWN'),
    errorMessage: String(body.errorMessage ?? '').slice(0, 300),
  };
}

/** Records a payment in its connector's linked ledger (when it has one): what it asks, each posted once. */
export async function mirrorPayment(
  deps: LedgerLinkDeps,
  environment: string,
  connector: Connector,
  payment: Payment,
  refs: AccountReferences,
): Promise<void> {
  const link = connector.config.ledgerLink;
  if (!link) return;
  for (const tx of linkTransactions(link, connector, payment, refs))
    await postLinkTransaction(deps, environment, link, tx);
}
