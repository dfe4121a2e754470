import type { EventKind } from '../../../events/catalog.js';
import type {
  DisabledReason,
  EndpointDisabledPayload,
  EndpointRecoveredPayload,
} from '../../../events/webhooks.js';
import { parseInstant } from '../../time/instant.js';
import type { WebhookConfig } from './config.js';

/**
 * An endpoint's health, kept on its config: `failingSince` while its attempts keep failing (the first failure of
 * the run; a success clears it), `disabledAt` and `disabledReason` once the deliverer switched the config off
 * (410 Gone, or failures for longer than the configured period). `disabledAt` stays through a reactivation until
 * the endpoint delivers again: that delivery is the recovery an operator is told of.
 */
export interface EndpointHealth {
  failingSince?: string;
  disabledAt?: string;
  disabledReason?: DisabledReason;
}

/** What the attempt that ended a run got back: an HTTP status, or 0 and why nothing came. */
export interface LastAnswer {
  statusCode: number;
  error?: string;
}

/** An operator event a health change emits, in the same write as the config. */
export interface HealthEvent {
  type: Extract<EventKind, 'webhooks.endpoint_disabled' | 'webhooks.endpoint_recovered'>;
  /** Unique per change: a retried write cannot emit it twice. */
  seed: string;
  date: string;
  payload: EndpointDisabledPayload | EndpointRecoveredPayload;
}

/** A delivered attempt: the run of failures ends, and an endpoint switched off by it has recovered. */
export function afterDelivered(config: WebhookConfig): WebhookConfig {
  const { failingSince: _f, disabledAt, disabledReason, ...rest } = config;
  // Only an active config sends; one that was switched off has been activated again and now delivers.
  return disabledAt !== undefined && config.active
    ? rest
    : { ...rest, ...(disabledAt !== undefined ? { disabledAt } : {}), ...reasonOf(disabledReason) };
}

/**
 * A failed attempt at `atMs`: the run of failures starts, or, once it has lasted `disableAfterMs` (0: never), the
 * config is switched off. An inactive config is left as it is (its deliveries are being cancelled).
 */
export function afterFailed(
  config: WebhookConfig,
  at: { ms: number; instant: string },
  disableAfterMs: number,
): WebhookConfig {
  if (!config.active) return config;
  const failingSince = config.failingSince ?? at.instant;
  const since = parseInstant(failingSince, 'failingSince').ms;
  if (disableAfterMs > 0 && at.ms - since >= disableAfterMs)
    return switchedOff({ ...config, failingSince }, at.instant, 'failing');
  return { ...config, failingSince };
}

/** 410 Gone: the receiver asks to be sent nothing more; the config is switched off at once. */
export function afterGone(config: WebhookConfig, atInstant: string): WebhookConfig {
  if (!config.active) return config;
  return switchedOff(
    { ...config, failingSince: config.failingSince ?? atInstant },
    atInstant,
    'gone',
  );
}

/** Activated through the API: a fresh period before it can be switched off again. */
export function activated(config: WebhookConfig): WebhookConfig {
  const { failingSince: _f, ...rest } = config;
  return { ...rest, active: true };
}

/** The operator events of a change from `before` to `next` (none, or one). */
export function healthEvents(
  environment: string,
  before: WebhookConfig,
  next: WebhookConfig,
  last: LastAnswer,
): HealthEvent[] {
  const seed = (what: string, at: string) => `webhooks/${environment}/${next.id}/${what}/${at}`;
  const who = { configID: next.id, name: next.name, endpoint: next.endpoint };
  if (before.active && !next.active && next.disabledAt && next.disabledAt !== before.disabledAt) {
    return [
      {
        type: 'webhooks.endpoint_disabled',
        seed: seed('disabled', next.disabledAt),
        date: next.disabledAt,
        payload: {
          ...who,
          reason: next.disabledReason ?? 'failing',
          failingSince: next.failingSince ?? next.disabledAt,
          disabledAt: next.disabledAt,
          lastStatusCode: last.statusCode,
          ...(last.error !== undefined ? { lastError: last.error } : {}),
        },
      },
    ];
  }
  if (before.disabledAt && !next.disabledAt && next.active) {
    return [
      {
        type: 'webhooks.endpoint_recovered',
        seed: seed('recovered', before.disabledAt),
        date: next.updatedAt,
        payload: { ...who, disabledAt: before.disabledAt, recoveredAt: next.updatedAt },
      },
    ];
  }
  return [];
}

function switchedOff(
  config: WebhookConfig,
  atInstant: string,
  reason: DisabledReason,
): WebhookConfig {
  return { ...config, active: false, disabledAt: atInstant, disabledReason: reason };
}

const reasonOf = (reason: DisabledReason | undefined) =>
  reason !== undefined ? { disabledReason: reason } : {};
