import * as v from 'valibot';
import { parse as parseYaml } from 'yaml';
import type { Stage, Variables } from '../../config/stage.js';
import { DEFAULT_ENVIRONMENT, isEnvironmentId } from '../../environments/environment-id.js';
import { ConfigurationError } from '../../errors/index.js';
import { ROLES, type Role } from '../../tokens/claims.js';
import { ALL_SCOPES } from '../../tokens/scopes.js';
import { clientIdSchema, lifetimeSchema } from './client.js';
import { digestSecret } from './secrets.js';

/** The well-known, test-only client of the local default configuration. */
export const TEST_CLIENT = { id: 'local-dev', secret: 'local-dev-secret' } as const;

export interface StaticClient {
  id: string;
  name: string;
  scopes: string[];
  accessTokenLifetime: number | undefined;
  /** Digests only, like stored clients: the clear values are dropped once read. */
  secretDigests: string[];
  /**
   * Where its tokens go: an environment (environment tokens, the default `default`), or, for a platform-level
   * client, an organization and a role (platform tokens, for `/api/platform`).
   */
  target: StaticClientTarget;
}

export type StaticClientTarget =
  | { kind: 'environment'; environment: string }
  | { kind: 'platform'; organization: string; role: Role };

/** An organization id as a configuration may name it: safe in a key and a claim (no `#`, no spaces). */
const ORGANIZATION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface AuthFileConfig {
  clients: StaticClient[];
  /** Extra resource identifiers a token may be restricted to with `resource`/`audience`. */
  resources: string[];
}

const fileSchema = v.strictObject({
  clients: v.optional(
    v.array(
      v.strictObject({
        id: clientIdSchema,
        name: v.optional(v.pipe(v.string(), v.maxLength(255))),
        secrets: v.pipe(
          v.array(v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'))),
          v.minLength(1, 'needs at least one secret'),
        ),
        scopes: v.optional(
          v.array(v.picklist(ALL_SCOPES as string[], `must be one of ${ALL_SCOPES.join(', ')}`)),
        ),
        accessTokenLifetime: v.optional(lifetimeSchema),
        environment: v.optional(
          v.pipe(
            v.string('must be a string'),
            v.check(
              (id: string) => isEnvironmentId(id),
              'must be an environment id (1-40 of a-z 0-9 -)',
            ),
          ),
        ),
        platform: v.optional(
          v.strictObject({
            organization: v.pipe(
              v.string('must be a string'),
              v.regex(ORGANIZATION_ID, 'must be an organization id (1-64 of A-Z a-z 0-9 . _ -)'),
            ),
            role: v.picklist(ROLES as Role[], `must be one of ${ROLES.join(', ')}`),
          }),
        ),
      }),
    ),
    [],
  ),
  resources: v.optional(v.array(v.pipe(v.string(), v.url('must be an absolute URI'))), []),
});

/** Static secrets chosen by operators must not be trivially guessable. */
const MIN_STATIC_SECRET_LENGTH = 16;

/**
 * The auth configuration (YAML or JSON; JSON is YAML) from its source (lib/config/variables.ts: AUTH_CONFIG, a file, or
 * AUTH_CONFIG_INLINE, the text itself); none, no static clients. Every problem is a ConfigurationError naming the
 * source and the field, so a bad file stops start-up with one clear line.
 */
export function loadAuthConfig(
  source: { text: string; name: string; variables: Variables } | undefined,
  stage: Stage,
): AuthFileConfig {
  if (!source) return { clients: [], resources: [] };
  return parseAuthConfig(source.text, source.name, source.variables, stage);
}

export function parseAuthConfig(
  text: string,
  source: string,
  variables: Variables,
  stage: Stage,
): AuthFileConfig {
  const fail = (message: string): never => {
    throw new ConfigurationError(`auth config ${source}: ${message}`);
  };
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (err) {
    fail(`not valid YAML or JSON (${(err as Error).message.split('\n')[0]})`);
  }
  const result = v.safeParse(fileSchema, raw);
  if (!result.success) {
    const issue = result.issues[0];
    return fail(`${v.getDotPath(issue) ?? 'top level'}: ${issue.message}`);
  }
  const parsed = result.output;
  const seen = new Set<string>();
  const clients = parsed.clients.map((entry, i) => {
    if (seen.has(entry.id)) fail(`clients[${i}].id: duplicate client id "${entry.id}"`);
    seen.add(entry.id);
    const secrets = entry.secrets.map((secret, j) => {
      const where = `clients[${i}].secrets[${j}]`;
      const value = secret.startsWith('$') ? variables[secret.slice(1)] : secret;
      if (value === undefined || value === '')
        fail(`${where}: environment variable ${secret.slice(1)} is not set`);
      if (value!.length < MIN_STATIC_SECRET_LENGTH)
        fail(`${where}: must be at least ${MIN_STATIC_SECRET_LENGTH} characters`);
      if (stage === 'prod' && value === TEST_CLIENT.secret)
        fail(`${where}: the test-only secret is refused in prod`);
      return digestSecret(value!);
    });
    if (stage === 'prod' && entry.id === TEST_CLIENT.id)
      fail(`clients[${i}].id: the test-only client "${TEST_CLIENT.id}" is refused in prod`);
    // A client's tokens go to one place: naming both would leave it unclear which kind of token it gets.
    if (entry.platform && entry.environment !== undefined)
      fail(`clients[${i}]: environment and platform exclude each other`);
    const target: StaticClientTarget = entry.platform
      ? { kind: 'platform', ...entry.platform }
      : { kind: 'environment', environment: entry.environment ?? DEFAULT_ENVIRONMENT };
    return {
      id: entry.id,
      name: entry.name ?? entry.id,
      scopes: [...new Set(entry.scopes ?? ALL_SCOPES)],
      accessTokenLifetime: entry.accessTokenLifetime,
      secretDigests: secrets,
      target,
    };
  });
  return { clients, resources: parsed.resources };
}
