import * as v from 'valibot';
import { EVENT_KINDS, type EventKind, isEventKind } from '../../../events/catalog.js';
import type { Stage } from '../../config/stage.js';
import { boundedText } from '../../validation/common.js';
import { MAX_REPLAY_CONFIG_IDS, type ReplayDeliveriesBody } from '../commands/bulk-replay.js';
import {
  type CreateConfigBody,
  isConfigId,
  MAX_EVENT_TYPES,
  MAX_NAME_LENGTH,
  secretProblem,
} from '../domain/config.js';
import { MAX_RATE_LIMIT_PER_SECOND } from '../domain/rate-limit.js';
import { endpointProblem, MAX_ENDPOINT_LENGTH } from '../ssrf/endpoint-url.js';

/**
 * The webhooks service's request schemas (docs/architecture.md, "The rules, checked": request schemas live in the
 * routes). Each produces the typed value its command or domain function takes; unknown fields are refused.
 */

const eventTypesSchema = v.pipe(
  v.array(
    v.pipe(v.string('must be strings'), v.maxLength(128, 'must be known event kinds')),
    'must be an array of event kinds',
  ),
  v.minLength(1, 'must not be empty'),
  v.maxLength(MAX_EVENT_TYPES, `must have at most ${MAX_EVENT_TYPES} entries`),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const kinds: EventKind[] = [];
    for (const entry of dataset.value) {
      const kind = entry.toLowerCase();
      if (!isEventKind(kind)) {
        addIssue({
          message: `unknown event kind "${entry.slice(0, 64)}" (known: ${EVENT_KINDS.join(', ')})`,
        });
        return NEVER;
      }
      if (!kinds.includes(kind)) kinds.push(kind);
    }
    return kinds;
  }),
);

const secretSchema = v.pipe(
  v.string('must be a string'),
  v.maxLength(256, 'must be at most 256 characters'),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const problem = secretProblem(dataset.value);
    if (problem) addIssue({ message: problem });
  }),
);

const nameSchema = boundedText(MAX_NAME_LENGTH);

/** 0 is no limit (a field sent as `null` is absent, as everywhere: it cannot clear one). */
const rateLimitSchema = v.pipe(
  v.number('must be a whole number of attempts per second'),
  v.integer('must be a whole number of attempts per second'),
  v.minValue(0, 'must be 0 (no limit) or more'),
  v.maxValue(MAX_RATE_LIMIT_PER_SECOND, `must be at most ${MAX_RATE_LIMIT_PER_SECOND}`),
);

/** The endpoint schema depends on the stage (http only locally). */
function endpointSchema(stage: Stage) {
  return v.pipe(
    v.string('must be a string'),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const problem = endpointProblem(dataset.value, stage);
      if (problem) addIssue({ message: problem });
    }),
  );
}

/** Request schemas; unknown fields are refused everywhere. */
export function configSchemas(stage: Stage) {
  const endpoint = endpointSchema(stage);
  return {
    /** POST /configs. */
    create: v.strictObject({
      endpoint,
      eventTypes: eventTypesSchema,
      secret: v.optional(secretSchema),
      name: v.optional(nameSchema),
      rateLimitPerSecond: v.optional(rateLimitSchema),
    }) satisfies v.GenericSchema<unknown, CreateConfigBody>,
    /**
     * PUT /configs/<id>: fields left out keep their value. `secret` is accepted because the official SDK's
     * ConfigUser carries it; a different secret is a rotation, exactly like `secret/change`.
     */
    update: v.strictObject({
      endpoint: v.optional(endpoint),
      eventTypes: v.optional(eventTypesSchema),
      name: v.optional(nameSchema),
      secret: v.optional(secretSchema),
      /** 0 removes the limit. */
      rateLimitPerSecond: v.optional(rateLimitSchema),
    }),
    /** PUT /configs/<id>/secret/change; an empty body (undefined) generates a secret. */
    // `""` asks for a generated secret, as absent or null does (the reference's console sends it).
    changeSecret: v.optional(
      v.strictObject({ secret: v.optional(v.union([v.literal(''), secretSchema])) }),
    ),
    /** GET /configs filters. */
    filter: v.strictObject({
      id: v.optional(v.pipe(v.string(), v.maxLength(256, 'must be at most 256 characters'))),
      endpoint: v.optional(
        v.pipe(
          v.string(),
          v.maxLength(MAX_ENDPOINT_LENGTH, `must be at most ${MAX_ENDPOINT_LENGTH} characters`),
        ),
      ),
    }),
  };
}

export type ConfigSchemas = ReturnType<typeof configSchemas>;

/** POST /deliveries/replay. */
export const replayDeliveriesSchema = v.strictObject({
  createdAtFrom: v.pipe(
    v.string('must be an RFC 3339 date-time'),
    v.maxLength(64, 'must be an RFC 3339 date-time'),
  ),
  createdAtTo: v.optional(
    v.pipe(
      v.string('must be an RFC 3339 date-time'),
      v.maxLength(64, 'must be an RFC 3339 date-time'),
    ),
  ),
  statuses: v.optional(
    v.array(
      v.picklist(['failed', 'pending'], 'bulk replay only takes failed and pending'),
      'must be an array',
    ),
  ),
  configIds: v.optional(
    v.pipe(
      v.array(
        v.pipe(v.string('must be config ids'), v.check(isConfigId, 'must be config ids (UUIDs)')),
        'must be an array',
      ),
      v.maxLength(MAX_REPLAY_CONFIG_IDS, `must have at most ${MAX_REPLAY_CONFIG_IDS} entries`),
    ),
  ),
  cursor: v.optional(v.pipe(v.string('must be a string'), v.maxLength(8192, 'malformed'))),
  pageSize: v.optional(
    v.pipe(
      v.number('must be a number'),
      v.integer('must be an integer'),
      v.minValue(1, 'must be at least 1'),
      v.maxValue(1000, 'must be at most 1000'),
    ),
  ),
}) satisfies v.GenericSchema<unknown, ReplayDeliveriesBody>;
