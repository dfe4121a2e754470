import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { InvalidTokenError } from '../errors/index.js';
import { environmentOf } from '../http/environment.js';
import type { HonoTypes, Principal } from '../http/types.js';
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

function app(principal: Principal) {
  const hono = new Hono<HonoTypes>();
  hono.use('/api/*', bearerAuth('ledger', verifierOf(principal)));
  hono.get('/api/x', async (c) => {
    try {
      return c.json({ environment: environmentOf(c) });
    } catch (err) {
      return c.json({
        refused: (err as Error).name,
        isTokenError: err instanceof InvalidTokenError,
      });
    }
  });
  return hono;
}

const client = (environment?: string): Principal => ({
  clientId: 'c',
  subject: 'c',
  type: 'client',
  scopes: new Set(['ledger:read']),
  ...(environment ? { environment } : {}),
});

describe("environmentOf: a request's environment is its verified token's", () => {
  it("names the token's environment once the bearer check passed", async () => {
    const res = await app(client('sandbox-1')).request('/api/x', {
      headers: { authorization: 'Bearer good' },
    });
    expect(await res.json()).toEqual({ environment: 'sandbox-1' });
  });

  it('a token without an environment is refused as an invalid token (no default environment)', async () => {
    const res = await app(client()).request('/api/x', {
      headers: { authorization: 'Bearer good' },
    });
    expect(await res.json()).toEqual({ refused: 'InvalidTokenError', isTokenError: true });
  });

  it('concurrent requests of different environments each get their own', async () => {
    const a = app(client('env-a'));
    const b = app(client('env-b'));
    const answers = await Promise.all(
      [a, b, a, b].map(async (hono) =>
        (await hono.request('/api/x', { headers: { authorization: 'Bearer good' } })).json(),
      ),
    );
    expect(answers).toEqual(
      ['env-a', 'env-b', 'env-a', 'env-b'].map((environment) => ({ environment })),
    );
  });
});
