/**
 * The names a webhook delivery's id, timestamp and signature are sent under, each set the three `<prefix>-id`,
 * `-timestamp`, `-signature` headers with the same values: `service` (`service-webhook-*`, this platform's),
 * `standard` (`webhook-*`, what every Standard Webhooks / Svix library reads: their names are hard-coded) and
 * `formance` (`formance-webhook-*`, what receivers written for the reference platform verify).
 */
export const WEBHOOK_HEADER_SETS = {
  service: 'service-webhook',
  standard: 'webhook',
  formance: 'formance-webhook',
} as const;
export type WebhookHeaderSet = keyof typeof WEBHOOK_HEADER_SETS;
export const DEFAULT_WEBHOOK_HEADER_SETS: readonly WebhookHeaderSet[] = ['service', 'standard'];
