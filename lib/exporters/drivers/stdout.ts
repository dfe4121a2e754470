import { stringifyJson } from '../../json/bigint-json.js';
import type { Driver, ExportBatch } from './driver.js';
import { exportedLog } from './exported-log.js';

/** The reference's `stdout` driver: one JSON line per log on the worker's output (its log stream in AWS). */
export function stdoutDriver(write: (line: string) => void): Driver {
  return {
    async send(batch: ExportBatch) {
      for (const log of batch.logs) write(stringifyJson(exportedLog(batch.ledger, log)));
    },
  };
}
