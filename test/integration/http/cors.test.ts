/**
 * CORS (#14 discovery and browsers): with CORS_ALLOWED_ORIGINS set, a browser's preflight is answered before
 * authentication, and answers carry the allow headers for listed origins only. Unset, nothing changes.
 */
import { describe, expect, it } from 'vitest';
import { assembleLedgerApp } from '../../../lib/assembly/ledger-app.js';
import { corsOrigins } from '../../../lib/config/env.js';
import { generatedDocuments } from '../../../lib/openapi/generated-documents.js';
import { createPaymentsApp } from '../../../lib/payments/app.js';
import { testTables } from '../../support/tables.js';

const CONSOLE = 'https://console.example.com';

describe('CORS', () => {
  it('answers a preflight from a listed origin before authentication, and nothing to another origin', async () => {
    const { runtime } = await testTables({
      CORS_ALLOWED_ORIGINS: `${CONSOLE}, http://localhost:5173`,
    });
    const app = assembleLedgerApp(runtime, { documents: generatedDocuments });
    const preflight = await app.request('/api/ledger/v2/shop/transactions', {
      method: 'OPTIONS',
      headers: {
        Origin: CONSOLE,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type, idempotency-key',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
      'idempotency-key',
    );
    expect(preflight.headers.get('access-control-max-age')).toBe('600');
    // A request without a token is still refused, with the headers the browser needs to read the refusal.
    const refused = await app.request('/api/ledger/v2', { headers: { Origin: CONSOLE } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    expect(refused.headers.get('access-control-expose-headers')).toContain('Idempotency-Hit');
    const other = await app.request('/api/ledger/v2', {
      headers: { Origin: 'https://evil.example' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('is off without CORS_ALLOWED_ORIGINS', async () => {
    const { runtime } = await testTables();
    const app = createPaymentsApp(runtime, { documents: generatedDocuments });
    const res = await app.request('/api/payments/v3/payments', { headers: { Origin: CONSOLE } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('takes exact origins only', () => {
    expect(corsOrigins(' https://a.example ,http://localhost:3000')).toEqual([
      'https://a.example',
      'http://localhost:3000',
    ]);
    expect(corsOrigins(undefined)).toEqual([]);
    for (const bad of [
      '*',
      'https://a.example/',
      'https://a.example/console',
      'ftp://a.example',
      'a.example',
    ]) {
      expect(() => corsOrigins(bad), bad).toThrow('CORS_ALLOWED_ORIGINS');
    }
  });
});
