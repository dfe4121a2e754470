import * as v from 'valibot';

/**
 * Payloads of the webhooks service's operator events (docs/api.md §5): what becomes of a config's endpoint.
 * Delivered like any other event, to the configs subscribed to them, so an operator hears of an endpoint that
 * stopped receiving through one that still does.
 */

/** Why a config was switched off: its endpoint kept failing for the configured period, or answered 410 Gone. */
export const DISABLED_REASONS = ['failing', 'gone'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

const instant = v.pipe(v.string(), v.isoTimestamp());

/** `webhooks.endpoint_disabled`: the config is inactive now; its pending deliveries were cancelled. */
export const endpointDisabledPayloadSchema = v.strictObject({
  configID: v.pipe(v.string(), v.minLength(1)),
  name: v.string(),
  endpoint: v.pipe(v.string(), v.minLength(1)),
  reason: v.picklist(DISABLED_REASONS),
  /** The first failed attempt of the run of failures that ended in the switch-off. */
  failingSince: instant,
  disabledAt: instant,
  /** What the last attempt got: its HTTP status, 0 when no answer came back. */
  lastStatusCode: v.pipe(v.number(), v.integer()),
  /** Why no answer came back (timeout, refused address…), when none did. */
  lastError: v.optional(v.string()),
});

/** `webhooks.endpoint_recovered`: a config switched off by its failures, activated again, delivered. */
export const endpointRecoveredPayloadSchema = v.strictObject({
  configID: v.pipe(v.string(), v.minLength(1)),
  name: v.string(),
  endpoint: v.pipe(v.string(), v.minLength(1)),
  disabledAt: instant,
  recoveredAt: instant,
});

export type EndpointDisabledPayload = v.InferOutput<typeof endpointDisabledPayloadSchema>;
export type EndpointRecoveredPayload = v.InferOutput<typeof endpointRecoveredPayloadSchema>;
