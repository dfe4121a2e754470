import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { currentEnvironment } from '../dynamo/environment-scope.js';
import { inTokenEnvironment } from '../http/environment.js';
import type { AppEnv, Principal } from '../http/types.js';
import { bearerAuth } from './middleware.js';
import type { TokenVerifier } from './token-verifier.js';

/** A verifier that accepts the token `good` as `principal` (the verifier itself is token-verifier.test.ts's). */
const verifierOf = (principal: Principal) =>
  ({
    verify: async (token: string) => {
      if (token !== 'good') throw new Error('bad token');
      return principal;
    },
  }) as unknown as TokenVerifier;

function app(principal: Principal, options: { scoped: boolean } = { scoped: true }) {
  const seen: Array<string | undefined> = [];
  const hono = new Hono<AppEnv>();
  hono.get('/public', (c) => c.json({ environment: currentEnvironment() ?? null }));
  hono.use('/api/*', bearerAuth('ledger', verifierOf(principal)));
  if (options.scoped) hono.use('/api/*', inTokenEnvironment);
  hono.get('/api/x', async (c) => {
    seen.push(currentEnvironment());
    await new Promise((resolve) => setTimeout(resolve, 1));
    seen.push(currentEnvironment()); // still there after an await
    return c.json({ environment: currentEnvironment() ?? null });
  });
  return { hono, seen };
}

const client = (environment?: string): Principal => ({
  clientId: 'c',
  subject: 'c',
  type: 'client',
  scopes: new Set(['ledger:read']),
  ...(environment ? { environment } : {}),
});

describe('inTokenEnvironment (the ledger’s): the request runs in its token’s environment', () => {
  it('is no part of the bearer check: without it a verified request has no scope', async () => {
    const { hono, seen } = app(client('sandbox-1'), { scoped: false });
    const res = await hono.request('/api/x', { headers: { authorization: 'Bearer good' } });
    expect(await res.json()).toEqual({ environment: null });
    expect(seen).toEqual([undefined, undefined]);
  });

  it("sets the environment scope once the token is verified, for the handler's whole run", async () => {
    const { hono, seen } = app(client('sandbox-1'));
    const res = await hono.request('/api/x', { headers: { authorization: 'Bearer good' } });
    expect(await res.json()).toEqual({ environment: 'sandbox-1' });
    expect(seen).toEqual(['sandbox-1', 'sandbox-1']);
    // Nothing leaks out of the request.
    expect(currentEnvironment()).toBeUndefined();
  });

  it('no scope before authentication, nor for a token without an environment', async () => {
    const { hono } = app(client());
    expect(await (await hono.request('/public')).json()).toEqual({ environment: null });
    const res = await hono.request('/api/x', { headers: { authorization: 'Bearer good' } });
    expect(await res.json()).toEqual({ environment: null });
  });

  it('concurrent requests of different environments each see their own', async () => {
    const a = app(client('env-a'));
    const b = app(client('env-b'));
    const answers = await Promise.all(
      [a, b, a, b].map(async ({ hono }) =>
        (await hono.request('/api/x', { headers: { authorization: 'Bearer good' } })).json(),
      ),
    );
    expect(answers).toEqual(
      ['env-a', 'env-b', 'env-a', 'env-b'].map((environment) => ({ environment })),
    );
  });
});
