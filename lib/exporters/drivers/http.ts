import { stringifyJson } from '../../json/bigint-json.js';
import { isFailure, postWebhook } from '../../webhooks/deliver/post-webhook.js';
import type { HttpConfig } from '../domain/exporter.js';
import { type Driver, DriverError, type ExportBatch } from './driver.js';
import { exportedLog } from './exported-log.js';

export interface HttpDriverOptions {
  /** Loopback receivers: the local stage only, as for webhooks. */
  allowLoopback: boolean;
  timeoutMs?: number;
}

/**
 * The reference's `http` driver: each batch is one POST of a JSON array of logs (each with its ledger), amounts
 * as exact integers; any 2xx is success. Through the webhooks' SSRF guard (no private or metadata addresses, no
 * redirects followed, a hard deadline). A resent batch carries the same log ids, and the same
 * `Idempotency-Key` header (`<ledger>:<first id>-<last id>`), so a receiver can drop what it already has.
 */
export function httpDriver(config: HttpConfig, options: HttpDriverOptions): Driver {
  return {
    async send(batch: ExportBatch) {
      const first = batch.logs[0]!.id;
      const last = batch.logs[batch.logs.length - 1]!.id;
      const result = await postWebhook({
        url: config.url,
        headers: {
          ...config.headers,
          'content-type': 'application/json',
          'idempotency-key': `${batch.ledger}:${first}-${last}`,
        },
        body: stringifyJson(batch.logs.map((log) => exportedLog(batch.ledger, log))),
        allowLoopback: options.allowLoopback,
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      });
      if (isFailure(result)) throw new DriverError(`${result.errorKind}: ${result.error}`);
      if (result.status < 200 || result.status > 299)
        throw new DriverError(`the receiver answered HTTP ${result.status}`);
    },
  };
}
