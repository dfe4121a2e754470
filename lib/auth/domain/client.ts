import * as v from 'valibot';
import { DEFAULT_CLIENT_SCOPES } from '../../tokens/scopes.js';
import { digestSecret, generateSecret, lastDigits } from './secrets.js';

/** Default token lifetime (docs/api.md §2.1): one hour; and the bounds a client may choose within. */
export const DEFAULT_TOKEN_LIFETIME_SECONDS = 3600;
export const MIN_TOKEN_LIFETIME_SECONDS = 60;
export const MAX_TOKEN_LIFETIME_SECONDS = 24 * DEFAULT_TOKEN_LIFETIME_SECONDS;
/** Secrets per client: enough for overlap during rotation and one per application, bounded item size. */
export const MAX_SECRETS_PER_CLIENT = 20;

/** Unreserved characters only, so Basic credentials decode the same whether or not a client encodes them. */
export const clientIdSchema = v.pipe(
  v.string('must be a string'),
  v.regex(/^[A-Za-z0-9._~-]{1,128}$/, 'must be 1-128 characters of A-Z a-z 0-9 . _ ~ -'),
);

export const lifetimeSchema = v.pipe(
  v.number('must be a number of seconds'),
  v.integer('must be a whole number of seconds'),
  v.minValue(MIN_TOKEN_LIFETIME_SECONDS, `must be at least ${MIN_TOKEN_LIFETIME_SECONDS}`),
  v.maxValue(MAX_TOKEN_LIFETIME_SECONDS, `must be at most ${MAX_TOKEN_LIFETIME_SECONDS}`),
);

/** A client's fields as POST and PUT /clients give them, checked by the routes' schema (`routes/requests.ts`). */
export interface ClientInput {
  name: string;
  description?: string | undefined;
  scopes?: string[] | undefined;
  metadata?: Record<string, string> | undefined;
  accessTokenLifetime?: number | undefined;
}

/** A secret's fields as POST /clients/<id>/secrets gives them. */
export interface SecretInput {
  name: string;
  metadata?: Record<string, string> | undefined;
}

export interface StoredSecret {
  id: string;
  name: string;
  digest: string;
  lastDigits: string;
  metadata: Record<string, string>;
  createdAt: string;
  lastUsedAt?: string;
}

export interface StoredClient {
  id: string;
  name: string;
  description?: string;
  scopes: string[];
  metadata: Record<string, string>;
  accessTokenLifetime?: number;
  createdAt: string;
  updatedAt: string;
  secrets: Record<string, StoredSecret>;
  /** The environment it belongs to; clients stored before environments existed belong to `default`. */
  environment?: string;
}

/** A client as POST /clients creates it: absent options take their defaults, and it has no secret yet. */
export function newClient(input: ClientInput, id: string, now: string): StoredClient {
  const client: StoredClient = {
    id,
    name: input.name,
    scopes: input.scopes ?? [...DEFAULT_CLIENT_SCOPES],
    metadata: input.metadata ?? {},
    createdAt: now,
    updatedAt: now,
    secrets: {},
  };
  if (input.description !== undefined) client.description = input.description;
  if (input.accessTokenLifetime !== undefined)
    client.accessTokenLifetime = input.accessTokenLifetime;
  return client;
}

/** A generated secret: what is stored (its digest) and the clear value, shown once to whoever created it. */
export function newSecret(
  input: SecretInput,
  id: string,
  now: string,
): { secret: StoredSecret; clear: string } {
  const clear = generateSecret();
  return {
    secret: {
      id,
      name: input.name,
      digest: digestSecret(clear),
      lastDigits: lastDigits(clear),
      metadata: input.metadata ?? {},
      createdAt: now,
    },
    clear,
  };
}

/** The Client as the API shows it: never a digest. */
export function clientView(client: StoredClient) {
  return {
    id: client.id,
    name: client.name,
    ...(client.description !== undefined ? { description: client.description } : {}),
    scopes: client.scopes,
    metadata: client.metadata,
    accessTokenLifetime: client.accessTokenLifetime ?? DEFAULT_TOKEN_LIFETIME_SECONDS,
    createdAt: client.createdAt,
    updatedAt: client.updatedAt,
    secrets: Object.values(client.secrets)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
      .map(secretView),
  };
}

export function secretView(secret: StoredSecret) {
  return {
    id: secret.id,
    name: secret.name,
    lastDigits: secret.lastDigits,
    metadata: secret.metadata,
    createdAt: secret.createdAt,
    ...(secret.lastUsedAt !== undefined ? { lastUsedAt: secret.lastUsedAt } : {}),
  };
}
