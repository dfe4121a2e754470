import type { Hono } from 'hono';
import { createLedgerApp, type LedgerAppOptions } from '../../lib/ledger/app.js';
import type { AppEnv } from '../../lib/http/types.js';
import { parseJson } from '../../lib/json/bigint-json.js';
import type { ServiceRuntime } from '../../lib/platform/runtime.js';
import { ADMIN, authApp, tokenFor } from './auth.js';

/** A ledger app with a write-scoped token, and a JSON caller that keeps big integers exact. */
export async function ledgerClient(runtime: ServiceRuntime, options: LedgerAppOptions = {}) {
  const app: Hono<AppEnv> = createLedgerApp(runtime, options);
  const token = await tokenFor(authApp(runtime), ADMIN);
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await app.request(`/api/ledger${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: text ? (parseJson(text) as any) : undefined };
  };
  return { app, call };
}

/** JSON.stringify with bigints written as bare numbers. */
export function stringify(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `__big__${v}` : v)).replace(/"__big__(-?\d+)"/g, '$1');
}
