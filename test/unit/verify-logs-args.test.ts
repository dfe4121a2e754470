import { describe, expect, it } from 'vitest';
import { main, parseVerifyArgs } from '../../infra/commands/verify-logs.js';

describe('parseVerifyArgs', () => {
  it('defaults to the local platform and its test client', () => {
    expect(parseVerifyArgs(['main'], {})).toEqual({
      ledger: 'main',
      baseUrl: 'http://127.0.0.1:8080',
      clientId: 'local-dev',
      clientSecret: 'local-dev-secret',
      pageSize: 100,
    });
  });

  it('follows PORT, as npm start does, when no --base-url is given', () => {
    expect(parseVerifyArgs(['main'], { PORT: '9191' }).baseUrl).toBe('http://127.0.0.1:9191');
    expect(
      parseVerifyArgs(['main', '--base-url', 'http://127.0.0.1:7000'], { PORT: '9191' }).baseUrl,
    ).toBe('http://127.0.0.1:7000');
  });

  it('takes credentials from the environment, and flags over both', () => {
    const env = { VERIFY_CLIENT_ID: 'env-id', VERIFY_CLIENT_SECRET: 'env-secret' };
    expect(parseVerifyArgs(['main'], env)).toMatchObject({
      clientId: 'env-id',
      clientSecret: 'env-secret',
    });
    expect(
      parseVerifyArgs(
        [
          '--client-id',
          'flag-id',
          'main',
          '--client-secret=flag-secret',
          '--base-url',
          'https://api.example.com/',
          '--page-size',
          '7',
        ],
        env,
      ),
    ).toEqual({
      ledger: 'main',
      baseUrl: 'https://api.example.com',
      clientId: 'flag-id',
      clientSecret: 'flag-secret',
      pageSize: 7,
    });
  });
});

describe('main (usage errors)', () => {
  it('exits 2 with a message and the usage line, without any request', async () => {
    for (const [argv, message] of [
      [[], 'error: missing <ledger>'],
      [['a', 'b'], 'error: expected one ledger, got 2'],
      [['bad name!'], 'error: "bad name!" is not a ledger name'],
      [['main', '--base-url', 'ftp://x'], 'error: --base-url: "ftp://x" is not an http(s) URL'],
      [['main', '--nope'], 'error: unknown option --nope'],
      [['main', '--page-size', '0'], 'error: --page-size: must be an integer from 1 to 1000'],
      [['main', '--page-size', '1001'], 'error: --page-size: must be an integer from 1 to 1000'],
    ] as Array<[string[], string]>) {
      const err: string[] = [];
      const fetch = () => Promise.reject(new Error('no request expected'));
      expect(
        await main(argv, { out: () => undefined, err: (l) => err.push(l), env: {}, fetch }),
        argv.join(' '),
      ).toBe(2);
      expect(err).toEqual([
        message,
        'usage: npm run verify-logs -- <ledger> [--base-url URL] [--client-id ID] [--client-secret SECRET] [--page-size N]',
      ]);
    }
  });
});
