import { type KinesisClient, PutRecordCommand } from '@aws-sdk/client-kinesis';
import { stringifyJson } from '../../json/bigint-json.js';
import type { KinesisConfig } from '../domain/exporter.js';
import { type Driver, DriverError, type ExportBatch } from './driver.js';
import { exportedLog } from './exported-log.js';

/** A Kinesis record's data and partition key together may not exceed 1 MiB. */
export const MAX_RECORD_BYTES = 1024 * 1024;

/**
 * The batch as Kinesis records: each the `http` driver's body (a JSON array of logs, each with its ledger), as
 * many consecutive logs as fit in one record. A ledger log item is at most 400 KB (DynamoDB's item limit), so one
 * log always fits.
 */
export function recordsOf(batch: ExportBatch, partitionKey: string): Uint8Array[] {
  const room = MAX_RECORD_BYTES - Buffer.byteLength(partitionKey) - 2; // the array's brackets
  const records: Uint8Array[] = [];
  let parts: string[] = [];
  let size = 0;
  const flush = () => {
    if (parts.length > 0) records.push(Buffer.from(`[${parts.join(',')}]`));
    parts = [];
    size = 0;
  };
  for (const log of batch.logs) {
    const json = stringifyJson(exportedLog(batch.ledger, log));
    const bytes = Buffer.byteLength(json);
    if (bytes > room)
      throw new DriverError(`kinesis: log ${log.id} is larger than a Kinesis record (1 MiB)`);
    if (size + 1 + bytes > room) flush();
    size += (parts.length > 0 ? 1 : 0) + bytes; // the comma before all but the first
    parts.push(json);
  }
  flush();
  return records;
}

/**
 * The `kinesis` driver: each batch goes to the stream as one record (or a few, each ≤ 1 MiB), with the ledger as
 * partition key, so a ledger's records land on one shard. The records are put one after another, each once the
 * last is stored: a consumer reads a ledger's logs in log order. A batch that fails part-way is sent again whole,
 * from its first log (the log ids let a consumer drop what it already has).
 */
export function kinesisDriver(config: KinesisConfig, client: KinesisClient): Driver {
  const target = config.stream.startsWith('arn:')
    ? { StreamARN: config.stream }
    : { StreamName: config.stream };
  return {
    async send(batch: ExportBatch) {
      const partitionKey = batch.ledger;
      for (const data of recordsOf(batch, partitionKey)) {
        try {
          await client.send(
            new PutRecordCommand({ ...target, PartitionKey: partitionKey, Data: data }),
          );
        } catch (err) {
          const { name, message } = err as Error;
          throw new DriverError(`kinesis: ${name}: ${message} (stream ${config.stream})`);
        }
      }
    },
  };
}
