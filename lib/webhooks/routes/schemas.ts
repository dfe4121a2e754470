import * as v from 'valibot';
import { EVENT_KINDS } from '../../../events/catalog.js';
import { EVENT_PAYLOADS } from '../../../events/payload-schemas.js';
import { DISABLED_REASONS } from '../../../events/webhooks.js';
import { cursorOf, dataOf, dateTime } from '../../openapi/schemas.js';

/** The webhooks service's response shapes (docs/api.md §4), for its OpenAPI document and the tests against it. */

export const configSchema = v.strictObject({
  id: v.string(),
  name: v.string(),
  endpoint: v.string(),
  eventTypes: v.array(v.string()),
  secret: v.pipe(v.string(), v.description('`whsec_` + base64 of the key bytes.')),
  active: v.boolean(),
  createdAt: dateTime,
  updatedAt: dateTime,
  rateLimitPerSecond: v.optional(
    v.pipe(v.number(), v.integer(), v.description('At most this many attempts start per second.')),
  ),
  failingSince: v.optional(
    v.pipe(
      dateTime,
      v.description("The first failed attempt of the endpoint's current run of failures."),
    ),
  ),
  disabledAt: v.optional(
    v.pipe(
      dateTime,
      v.description('When the deliverer switched the config off; cleared by its next delivery.'),
    ),
  ),
  disabledReason: v.optional(
    v.pipe(
      v.picklist(DISABLED_REASONS),
      v.description('`failing` for the configured period, or `gone` (410).'),
    ),
  ),
});

/** The reference platform's names (the SDK's `Delivery`). */
export const deliverySchema = v.strictObject({
  id: v.string(),
  configID: v.string(),
  eventID: v.string(),
  eventType: v.string(),
  status: v.picklist(['pending', 'succeeded', 'failed', 'cancelled']),
  attemptCount: v.pipe(v.number(), v.integer()),
  replayGeneration: v.pipe(v.number(), v.integer()),
  nextAttemptAt: v.optional(dateTime),
  lastAttemptAt: v.optional(dateTime),
  lastStatusCode: v.optional(v.pipe(v.number(), v.integer())),
  lastError: v.optional(v.string()),
  payload: v.optional(
    v.pipe(v.string(), v.description('The exact body POSTed (single delivery only).')),
  ),
  createdAt: dateTime,
  updatedAt: dateTime,
});

export const attemptSchema = v.strictObject({
  id: v.string(),
  deliveryID: v.string(),
  attemptNumber: v.pipe(v.number(), v.integer()),
  replayGeneration: v.pipe(v.number(), v.integer()),
  endpoint: v.string(),
  outcome: v.string(),
  statusCode: v.pipe(v.number(), v.integer(), v.description('0 when no response came back.')),
  durationMillis: v.number(),
  error: v.optional(v.string()),
  responseExcerpt: v.optional(
    v.pipe(v.string(), v.description("The first 4 KiB of the receiver's answer.")),
  ),
  createdAt: dateTime,
});

/** `GET /configs/{id}/test`: one signed test delivery. */
export const testAttemptSchema = v.strictObject({
  id: v.string(),
  webhookID: v.string(),
  config: configSchema,
  configId: v.string(),
  payload: v.string(),
  retryAttempt: v.pipe(v.number(), v.integer()),
  status: v.picklist(['success', 'failed']),
  statusCode: v.pipe(v.number(), v.integer()),
  durationMs: v.number(),
  error: v.optional(v.string()),
  responsePreview: v.optional(v.string()),
  date: dateTime,
  createdAt: dateTime,
  updatedAt: dateTime,
});

export const webhooksSchemas = {
  WebhookConfig: configSchema,
  WebhookDelivery: deliverySchema,
  WebhookAttempt: attemptSchema,
  WebhookTestAttempt: testAttemptSchema,
  // Each event kind's payload (events/payload-schemas.ts): GET /event-types answers them from the document.
  ...Object.fromEntries(
    EVENT_KINDS.map((kind) => [`EventPayload.${kind}`, EVENT_PAYLOADS[kind].payload]),
  ),
};

/** `GET /event-types`: the catalogue. */
export const eventTypeList = dataOf(
  v.array(
    v.strictObject({
      name: v.string(),
      app: v.string(),
      version: v.string(),
      description: v.string(),
      schema: v.pipe(
        v.record(v.string(), v.unknown()),
        v.description('JSON Schema (2020-12) of the body a delivery of this kind POSTs.'),
      ),
    }),
  ),
);

export const configData = dataOf(configSchema);
export const configPage = cursorOf(configSchema);
export const deliveryData = dataOf(deliverySchema);
export const deliveryPage = cursorOf(deliverySchema);
export const attemptPage = cursorOf(attemptSchema);

export const webhooksDocument = {
  service: 'webhooks',
  title: 'Webhooks',
  description:
    'Webhook configurations and deliveries: signed (Standard Webhooks), retried on a schedule, replayable.',
  schemas: webhooksSchemas,
} as const;

/** `POST /deliveries/replay`: what the bulk replay did, and where to go on when it stopped at a page. */
export const replayResultSchema = dataOf(
  v.strictObject({
    replayed: v.pipe(v.number(), v.integer()),
    expedited: v.pipe(v.number(), v.integer()),
    skipped: v.pipe(v.number(), v.integer()),
    hasMore: v.boolean(),
    nextCursor: v.optional(v.string()),
    createdAtTo: dateTime,
  }),
);
export const testAttemptData = dataOf(testAttemptSchema);
