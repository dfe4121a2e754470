import { describe, expect, it } from 'vitest';
import { platformConfigFromEnv } from '../../lib/config/env.js';
import { ConfigurationError } from '../../lib/errors/index.js';
import { tableEnvironment } from '../../lib/resources/definitions.js';

const tables = tableEnvironment('x-');

describe('platform configuration', () => {
  it('derives issuer and audience from the public base URL', () => {
    const config = platformConfigFromEnv({
      ...tables,
      STAGE: 'prod',
      PUBLIC_BASE_URL: 'https://api.example.com/',
    });
    expect(config.publicBaseUrl).toBe('https://api.example.com');
    expect(config.issuer).toBe('https://api.example.com/api/auth');
    expect(config.audience).toBe('https://api.example.com');
    expect(config.tables.auth).toBe('x-auth');
  });

  it('fails loudly on missing or unusable settings', () => {
    const fails = (env: NodeJS.ProcessEnv) => {
      expect(() => platformConfigFromEnv(env)).toThrow(ConfigurationError);
      try {
        platformConfigFromEnv(env);
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(fails({ ...tables })).toBe('environment variable PUBLIC_BASE_URL is required');
    expect(fails({ ...tables, PUBLIC_BASE_URL: 'http://api.example.com', STAGE: 'prod' })).toBe(
      'PUBLIC_BASE_URL must use https in prod (got "http://api.example.com")',
    );
    expect(fails({ ...tables, PUBLIC_BASE_URL: 'api.example.com' })).toBe(
      'PUBLIC_BASE_URL is not an absolute URL: "api.example.com"',
    );
    expect(fails({ ...tables, PUBLIC_BASE_URL: 'https://a.example', STAGE: 'staging' })).toBe(
      'STAGE must be local, dev or prod (got "staging")',
    );
    const { AUTH_TABLE: _omit, ...noAuth } = tables;
    expect(fails({ ...noAuth, PUBLIC_BASE_URL: 'https://a.example' })).toBe(
      'environment variable AUTH_TABLE is required',
    );
    for (const raw of ['99', '20001', '1e3', '-5', 'lots']) {
      expect(
        fails({ ...tables, PUBLIC_BASE_URL: 'https://a.example', LEDGER_SCAN_READS: raw }),
        raw,
      ).toBe(`LEDGER_SCAN_READS must be an integer from 100 to 20000 (got "${raw}")`);
    }
  });

  it('reads LEDGER_SCAN_READS within its bounds, 1000 when unset', () => {
    const base = { ...tables, PUBLIC_BASE_URL: 'https://a.example' };
    expect(platformConfigFromEnv(base).ledgerScanReads).toBe(1000);
    expect(platformConfigFromEnv({ ...base, LEDGER_SCAN_READS: '100' }).ledgerScanReads).toBe(100);
    expect(platformConfigFromEnv({ ...base, LEDGER_SCAN_READS: '20000' }).ledgerScanReads).toBe(
      20000,
    );
  });
});
