import { randomBytes, randomUUID } from 'node:crypto';
import type { EventKind } from '../../../events/catalog.js';
import type { DisabledReason } from '../../../events/webhooks.js';
import { parseInstant } from '../../time/instant.js';

/**
 * A webhook configuration (docs/api.md §4). `previousSecret` / `previousSecretExpiresAt` exist only during a secret
 * rotation and are internal: the delivery side signs with both until the expiry; the API never returns them.
 */
export interface WebhookConfig {
  id: string;
  name: string;
  endpoint: string;
  eventTypes: EventKind[];
  secret: string;
  active: boolean;
  createdAt: string;
  updatedAt: string;
  previousSecret?: string;
  previousSecretExpiresAt?: string;
  /** At most this many attempts start per second (`rate-limit.ts`); absent: no limit. */
  rateLimitPerSecond?: number;
  /** The endpoint's health (`endpoint-health.ts`): absent while it delivers. */
  failingSince?: string;
  disabledAt?: string;
  disabledReason?: DisabledReason;
}

/**
 * The record as the API shows it: the contract's eight fields, the secret included (docs/api.md §4), and the
 * endpoint's health while there is something to say (failing since, switched off when and why).
 */
export type ConfigView = Omit<WebhookConfig, 'previousSecret' | 'previousSecretExpiresAt'>;

export function configView(config: WebhookConfig): ConfigView {
  const { id, name, endpoint, eventTypes, secret, active, createdAt, updatedAt } = config;
  const { failingSince, disabledAt, disabledReason, rateLimitPerSecond } = config;
  return {
    id,
    name,
    endpoint,
    eventTypes: [...eventTypes],
    secret,
    active,
    createdAt,
    updatedAt,
    ...(rateLimitPerSecond !== undefined ? { rateLimitPerSecond } : {}),
    ...(failingSince !== undefined ? { failingSince } : {}),
    ...(disabledAt !== undefined ? { disabledAt } : {}),
    ...(disabledReason !== undefined ? { disabledReason } : {}),
  };
}

export const MAX_NAME_LENGTH = 256;
/** More entries than kinds exist only make sense as duplicates; the bound keeps bodies small. */
export const MAX_EVENT_TYPES = 64;
export const SECRET_PREFIX = 'whsec_';
export const MIN_SECRET_BYTES = 24;
export const MAX_SECRET_BYTES = 64;
export const GENERATED_SECRET_BYTES = 32;

export const newConfigId = (): string => randomUUID();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const isConfigId = (value: string): boolean => UUID.test(value);

export const generateSecret = (): string =>
  SECRET_PREFIX + randomBytes(GENERATED_SECRET_BYTES).toString('base64');

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Why `value` is not a valid secret, or undefined when it is: canonical standard base64 of 24–64 bytes, with the
 * Standard Webhooks prefix `whsec_` or without it (the reference platform's own secrets are base64 of 24 bytes,
 * no prefix). Either way the HMAC key is the decoded bytes, and the secret is kept as given.
 */
export function secretProblem(value: string): string | undefined {
  const encoded = value.startsWith(SECRET_PREFIX) ? value.slice(SECRET_PREFIX.length) : value;
  const shape = `must be standard base64, optionally after ${SECRET_PREFIX}`;
  if (encoded.length === 0 || encoded.length % 4 !== 0 || !BASE64.test(encoded)) return shape;
  const bytes = Buffer.from(encoded, 'base64');
  // Node decodes leniently: a round trip proves the text is the canonical encoding of these bytes.
  if (bytes.toString('base64') !== encoded) return shape;
  if (bytes.length < MIN_SECRET_BYTES || bytes.length > MAX_SECRET_BYTES) {
    return `must encode between ${MIN_SECRET_BYTES} and ${MAX_SECRET_BYTES} bytes (got ${bytes.length})`;
  }
  return undefined;
}

/** A config's fields as POST /configs gives them, checked by the routes' schema (`routes/requests.ts`). */
export interface CreateConfigBody {
  endpoint: string;
  eventTypes: EventKind[];
  secret?: string | undefined;
  name?: string | undefined;
  rateLimitPerSecond?: number | undefined;
}

/** A new config (active, name '' when not given). */
export function newConfig(body: CreateConfigBody, id: string, now: string): WebhookConfig {
  return {
    id,
    name: body.name ?? '',
    endpoint: body.endpoint,
    eventTypes: body.eventTypes,
    secret: body.secret ?? generateSecret(),
    active: true,
    createdAt: now,
    updatedAt: now,
    ...(body.rateLimitPerSecond ? { rateLimitPerSecond: body.rateLimitPerSecond } : {}),
  };
}

/**
 * Replaces the secret: the current one becomes `previousSecret` until `now + overlap` (a second rotation inside
 * the window drops the older one: only one previous secret is ever kept). The same secret again changes nothing.
 * With no overlap the old secret stops at once.
 */
export function withSecret(
  config: WebhookConfig,
  secret: string,
  nowMs: number,
  overlapSeconds: number,
  formatMs: (ms: number) => string,
): WebhookConfig {
  if (secret === config.secret) return config;
  const { previousSecret: _p, previousSecretExpiresAt: _e, ...rest } = config;
  const next: WebhookConfig = { ...rest, secret };
  if (overlapSeconds > 0) {
    next.previousSecret = config.secret;
    next.previousSecretExpiresAt = formatMs(nowMs + overlapSeconds * 1000);
  }
  return next;
}

/** The current secret, plus the previous one while its rotation overlap runs (both signatures are sent). */
export function signingSecrets(config: WebhookConfig, nowMs: number): string[] {
  const secrets = [config.secret];
  if (
    config.previousSecret &&
    config.previousSecretExpiresAt &&
    expiresAfter(config.previousSecretExpiresAt, nowMs)
  ) {
    secrets.push(config.previousSecret);
  }
  return secrets;
}

function expiresAfter(expiresAt: string, nowMs: number): boolean {
  try {
    return parseInstant(expiresAt, 'previousSecretExpiresAt').ms > nowMs;
  } catch {
    return false; // unreadable: the old secret is not used
  }
}

/** Field-by-field equality, updatedAt aside: an unchanged config is not written again. */
export function sameConfig(a: WebhookConfig, b: WebhookConfig): boolean {
  return (
    a.name === b.name &&
    a.endpoint === b.endpoint &&
    a.secret === b.secret &&
    a.active === b.active &&
    a.previousSecret === b.previousSecret &&
    a.previousSecretExpiresAt === b.previousSecretExpiresAt &&
    a.rateLimitPerSecond === b.rateLimitPerSecond &&
    a.failingSince === b.failingSince &&
    a.disabledAt === b.disabledAt &&
    a.disabledReason === b.disabledReason &&
    a.eventTypes.length === b.eventTypes.length &&
    a.eventTypes.every((t, i) => b.eventTypes[i] === t)
  );
}
