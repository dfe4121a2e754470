import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { S3Config } from '../domain/exporter.js';
import { type Driver, DriverError, type ExportBatch } from './driver.js';
import { ndjsonOf, objectKey, parquetOf } from './s3-objects.js';

/**
 * The `s3` driver: each batch is one object, Parquet (default) or NDJSON, named by the batch's environment,
 * ledger, date and first and last log id (s3-objects.ts), so a batch sent again overwrites itself.
 */
export function s3Driver(config: S3Config, client: S3Client): Driver {
  const format = config.format ?? 'parquet';
  return {
    async send(batch: ExportBatch) {
      const key = objectKey(config.prefix ?? '', batch, format);
      try {
        await client.send(
          new PutObjectCommand({
            Bucket: config.bucket,
            Key: key,
            Body: format === 'parquet' ? parquetOf(batch) : ndjsonOf(batch),
            ContentType:
              format === 'parquet' ? 'application/vnd.apache.parquet' : 'application/x-ndjson',
          }),
        );
      } catch (err) {
        const { name, message } = err as Error;
        throw new DriverError(`s3: ${name}: ${message} (s3://${config.bucket}/${key})`);
      }
    },
  };
}
