import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { staticClientsSource } from '../../config/env.js';
import { ConfigurationError } from '../../errors/index.js';
import { ALL_SCOPES } from '../../tokens/scopes.js';
import { digestSecret } from './secrets.js';
import { loadAuthConfig, parseAuthConfig } from './static-clients.js';

const parse = (
  text: string,
  env: NodeJS.ProcessEnv = {},
  stage: 'local' | 'dev' | 'prod' = 'dev',
) => parseAuthConfig(text, 'auth.yaml', env, stage);

function failure(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigurationError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigurationError');
}

describe('static client configuration', () => {
  it('reads YAML with $ENV secrets, default scopes and lifetimes, keeping digests only', () => {
    const config = parse(
      `clients:\n  - id: billing\n    secrets: [$BILLING_SECRET, plain-secret-0123456]\n    accessTokenLifetime: 900\n  - id: reader\n    name: Reader\n    secrets: [reader-secret-01234567]\n    scopes: [ledger:read]\nresources: [https://api.example/v2]\n`,
      { BILLING_SECRET: 'from-the-environment-123' },
    );
    expect(config.resources).toEqual(['https://api.example/v2']);
    expect(config.clients).toEqual([
      {
        id: 'billing',
        name: 'billing',
        scopes: [...ALL_SCOPES],
        accessTokenLifetime: 900,
        secretDigests: [
          digestSecret('from-the-environment-123'),
          digestSecret('plain-secret-0123456'),
        ],
        target: { kind: 'environment', environment: 'default' },
      },
      {
        id: 'reader',
        name: 'Reader',
        scopes: ['ledger:read'],
        accessTokenLifetime: undefined,
        secretDigests: [digestSecret('reader-secret-01234567')],
        target: { kind: 'environment', environment: 'default' },
      },
    ]);
  });

  it('reads JSON too, and an empty file as no clients', () => {
    expect(
      parse('{"clients":[{"id":"a","secrets":["json-secret-0123456"]}]}').clients,
    ).toHaveLength(1);
    expect(parse('')).toEqual({ clients: [], resources: [] });
  });

  it('fails with a message naming the source and the field', () => {
    expect(failure(() => parse('clients:\n  - id: a\n    secrets: [$NOT_SET_ANYWHERE]\n'))).toBe(
      'auth config auth.yaml: clients[0].secrets[0]: environment variable NOT_SET_ANYWHERE is not set',
    );
    expect(failure(() => parse('clients:\n  - id: a\n    secrets: [short]\n'))).toBe(
      'auth config auth.yaml: clients[0].secrets[0]: must be at least 16 characters',
    );
    expect(
      failure(() =>
        parse(
          'clients:\n  - id: a\n    secrets: [long-enough-secret-1]\n  - id: a\n    secrets: [long-enough-secret-2]\n',
        ),
      ),
    ).toBe('auth config auth.yaml: clients[1].id: duplicate client id "a"');
    expect(
      failure(() =>
        parse(
          'clients:\n  - id: a\n    secrets: [long-enough-secret-1]\n    scopes: [ledger:admin]\n',
        ),
      ),
    ).toMatch(/^auth config auth\.yaml: clients\.0\.scopes\.0: must be one of ledger:read/);
    expect(
      failure(() => parse('clients:\n  - id: "has space"\n    secrets: [long-enough-secret-1]\n')),
    ).toMatch(/^auth config auth\.yaml: clients\.0\.id: must be 1-128 characters/);
    expect(failure(() => parse('clients:\n  - id: a\n    secrets: []\n'))).toBe(
      'auth config auth.yaml: clients.0.secrets: needs at least one secret',
    );
    expect(failure(() => parse('client:\n  - id: a\n'))).toMatch(
      /^auth config auth\.yaml: client: /,
    );
    expect(failure(() => parse('clients: [unclosed\n'))).toMatch(
      /^auth config auth\.yaml: not valid YAML or JSON/,
    );
    expect(failure(() => parse('resources: [not-a-url]\n'))).toBe(
      'auth config auth.yaml: resources.0: must be an absolute URI',
    );
  });

  it('names an environment (default `default`), or a platform organization and role', () => {
    const config = parse(
      [
        'clients:',
        '  - id: sandbox-ci',
        '    secrets: [sandbox-secret-0123456]',
        '    environment: sandbox-k3j9x2q1',
        '  - id: ops',
        '    secrets: [platform-secret-0123456]',
        '    platform: {organization: acme, role: admin}',
        '',
      ].join('\n'),
    );
    expect(config.clients.map((c) => c.target)).toEqual([
      { kind: 'environment', environment: 'sandbox-k3j9x2q1' },
      { kind: 'platform', organization: 'acme', role: 'admin' },
    ]);
    const one = (extra: string) =>
      parse(`clients:\n  - id: a\n    secrets: [long-enough-secret-1]\n${extra}`);
    expect(failure(() => one('    environment: Prod#1\n'))).toBe(
      'auth config auth.yaml: clients.0.environment: must be an environment id (1-40 of a-z 0-9 -)',
    );
    expect(
      failure(() =>
        one('    environment: default\n    platform: {organization: o, role: member}\n'),
      ),
    ).toBe('auth config auth.yaml: clients[0]: environment and platform exclude each other');
    expect(failure(() => one('    platform: {organization: o, role: owner}\n'))).toBe(
      'auth config auth.yaml: clients.0.platform.role: must be one of admin, member',
    );
    expect(failure(() => one('    platform: {organization: "o#x", role: admin}\n'))).toMatch(
      /^auth config auth\.yaml: clients\.0\.platform\.organization: must be an organization id/,
    );
    expect(failure(() => one('    platform: {role: admin}\n'))).toMatch(
      /^auth config auth\.yaml: clients\.0\.platform\.organization: /,
    );
  });

  it('refuses the test-only client and secret in prod, and accepts them elsewhere', () => {
    const local = 'clients:\n  - id: local-dev\n    secrets: [local-dev-secret]\n';
    expect(parse(local, {}, 'local').clients[0]!.id).toBe('local-dev');
    expect(failure(() => parse(local, {}, 'prod'))).toBe(
      'auth config auth.yaml: clients[0].secrets[0]: the test-only secret is refused in prod',
    );
    expect(
      failure(() =>
        parse('clients:\n  - id: local-dev\n    secrets: [a-real-secret-0123456]\n', {}, 'prod'),
      ),
    ).toBe(
      'auth config auth.yaml: clients[0].id: the test-only client "local-dev" is refused in prod',
    );
    expect(
      failure(() =>
        parse('clients:\n  - id: ops\n    secrets: [$S]\n', { S: 'local-dev-secret' }, 'prod'),
      ),
    ).toContain('test-only secret is refused in prod');
  });

  it('loads from AUTH_CONFIG (path) or AUTH_CONFIG_INLINE, and reports an unreadable path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'authcfg-'));
    const path = join(dir, 'auth.yaml');
    writeFileSync(path, 'clients:\n  - id: file-client\n    secrets: [file-secret-0123456]\n');
    expect(loadAuthConfig(staticClientsSource({ AUTH_CONFIG: path }), 'dev').clients[0]!.id).toBe(
      'file-client',
    );
    expect(
      loadAuthConfig(
        staticClientsSource({
          AUTH_CONFIG_INLINE: '{"clients":[{"id":"inline","secrets":["inline-secret-012345"]}]}',
        }),
        'dev',
      ).clients[0]!.id,
    ).toBe('inline');
    expect(loadAuthConfig(staticClientsSource({}), 'dev')).toEqual({ clients: [], resources: [] });
    expect(failure(() => staticClientsSource({ AUTH_CONFIG: join(dir, 'missing.yaml') }))).toBe(
      `auth config ${join(dir, 'missing.yaml')}: cannot be read (ENOENT)`,
    );
  });
});
