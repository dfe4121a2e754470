import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import type { Stage } from '../../config/stage.js';
import { ValidationError } from '../../errors/index.js';
import { validate } from '../../validation/validate.js';
import { endpointProblem } from '../../webhooks/ssrf/endpoint-url.js';

/**
 * An exporter: a driver and its configuration (the reference's `V2Exporter`). Pipelines send a ledger's log
 * through it. The configuration is checked when the exporter is created or replaced, never at export time.
 */
/** What createExporter and updateExporter take: the reference's `V2ExporterConfiguration`. */
export interface ExporterConfiguration {
  driver: string;
  config: Record<string, unknown>;
}

export interface Exporter {
  id: string;
  /** ISO 8601, when it was created. */
  createdAt: string;
  driver: DriverName;
  config: ExporterConfig;
}

export const DRIVERS = ['http', 's3', 'kinesis', 'stdout'] as const;
export type DriverName = (typeof DRIVERS)[number];

/** Logs one batch holds at most, unless the exporter's `batching.maxItems` asks for fewer. */
export const MAX_BATCH_LOGS = 1000;
export const DEFAULT_BATCH_LOGS = 100;
/** Header values are secrets (an `Authorization` token, say): views show this instead. */
export const REDACTED = '********';
const MAX_HEADERS = 20;

const batching = v.optional(
  v.strictObject({
    maxItems: v.optional(
      v.pipe(
        v.number('must be a number'),
        v.integer('must be an integer'),
        v.minValue(1, 'must be at least 1'),
        v.maxValue(MAX_BATCH_LOGS, `must be at most ${MAX_BATCH_LOGS}`),
      ),
    ),
    // The reference's batching also takes a flush interval; a serverless worker flushes every batch it reads.
    flushInterval: v.optional(v.string('must be a duration string')),
  }),
);

/** A header the driver sets itself, or one no proxy would pass on, cannot be configured. */
const RESERVED_HEADERS = new Set(['content-type', 'content-length', 'host', 'transfer-encoding']);
const headers = v.optional(
  v.pipe(
    v.record(
      v.pipe(
        v.string(),
        v.regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/, 'header names must be HTTP tokens'),
        v.check(
          (name) => !RESERVED_HEADERS.has(name.toLowerCase()),
          'this header is set by the driver',
        ),
      ),
      v.pipe(
        v.string('header values must be strings'),
        v.maxLength(4096, 'header values must be at most 4096 characters'),
        v.regex(/^[\t\x20-\x7e]*$/, 'header values must be printable ASCII'),
      ),
    ),
    v.check((h) => Object.keys(h).length <= MAX_HEADERS, `at most ${MAX_HEADERS} headers`),
  ),
);

const httpConfig = v.strictObject({
  url: v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty')),
  headers,
  batching,
});
const stdoutConfig = v.strictObject({ batching });

/**
 * The `s3` driver: the bucket (S3's naming rules), an optional key prefix, the object format. `endpoint` (an
 * S3-compatible store, path-style) is for the local stage only: in AWS the worker writes to S3 itself, with its
 * role's grant, and never dials an address a caller chose.
 */
/** An AWS region, and (the local stage only) an endpoint of an emulator, for the s3 and kinesis drivers. */
const region = v.optional(
  v.pipe(v.string('must be a string'), v.regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be an AWS region')),
);
const endpoint = v.optional(v.pipe(v.string('must be a string'), v.url('must be a URL')));

const s3Config = v.strictObject({
  bucket: v.pipe(
    v.string('must be a string'),
    v.regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name'),
  ),
  prefix: v.optional(
    v.pipe(
      v.string('must be a string'),
      v.maxLength(512, 'must be at most 512 characters'),
      v.regex(
        /^(?!\/)[\x21-\x7e]*$/,
        'must be printable ASCII without spaces, not starting with /',
      ),
      // Always a folder: `exports` and `exports/` name the same objects.
      v.transform((p) => (p === '' || p.endsWith('/') ? p : `${p}/`)),
    ),
  ),
  format: v.optional(v.picklist(['parquet', 'ndjson'], 'must be parquet or ndjson')),
  region,
  endpoint,
  batching,
});

/**
 * The `kinesis` driver: a data stream by name (or ARN, whose region then wins), its region, and, in the local
 * stage only, an `endpoint` (a Kinesis emulator). No credentials: the worker puts records with its own role.
 */
const kinesisConfig = v.strictObject({
  stream: v.pipe(
    v.string('must be a string'),
    v.regex(
      /^([a-zA-Z0-9_.-]{1,128}|arn:aws[a-z-]*:kinesis:[a-z]{2}(-[a-z]+)+-\d:\d{12}:stream\/[a-zA-Z0-9_.-]{1,128})$/,
      'must be a Kinesis stream name or ARN',
    ),
  ),
  region,
  endpoint,
  batching,
});

export type HttpConfig = v.InferOutput<typeof httpConfig>;
export type KinesisConfig = v.InferOutput<typeof kinesisConfig>;
export type StdoutConfig = v.InferOutput<typeof stdoutConfig>;
export type S3Config = v.InferOutput<typeof s3Config>;
export type ExporterConfig = HttpConfig | S3Config | KinesisConfig | StdoutConfig;

/**
 * The driver and its configuration, checked: an unknown driver, an unknown or malformed field, a URL the SSRF
 * guard would refuse, are each a 400 naming what is wrong (the reference answers VALIDATION too).
 */
export function checkedConfiguration(
  input: ExporterConfiguration,
  stage: Stage,
): Pick<Exporter, 'driver' | 'config'> {
  const driver = input.driver as DriverName;
  if (!DRIVERS.includes(driver)) {
    throw new ValidationError(
      `driver: unknown driver "${input.driver.slice(0, 64)}" (known: ${DRIVERS.join(', ')})`,
    );
  }
  if (driver === 'stdout')
    return { driver, config: validate(stdoutConfig, input.config, 'config') };
  if (driver === 's3' || driver === 'kinesis') {
    const config =
      driver === 's3'
        ? validate(s3Config, input.config, 'config')
        : validate(kinesisConfig, input.config, 'config');
    if (config.endpoint !== undefined && stage !== 'local')
      throw new ValidationError(
        `config.endpoint: only in the local stage (in AWS the worker writes to ${driver === 's3' ? 'S3' : 'Kinesis'} itself)`,
      );
    return { driver, config };
  }
  const config = validate(httpConfig, input.config, 'config');
  const problem = endpointProblem(config.url, stage);
  if (problem) throw new ValidationError(`config.url: ${problem}`);
  return { driver, config };
}

export function newExporter(
  configuration: Pick<Exporter, 'driver' | 'config'>,
  createdAt: string,
): Exporter {
  return { id: randomUUID(), createdAt, ...configuration };
}

/** The exporter as the API shows it: header values are never echoed back. */
export function exporterView(exporter: Exporter) {
  const config: Record<string, unknown> = { ...exporter.config };
  if ('headers' in exporter.config && exporter.config.headers) {
    config.headers = Object.fromEntries(
      Object.keys(exporter.config.headers).map((name) => [name, REDACTED]),
    );
  }
  return { id: exporter.id, createdAt: exporter.createdAt, driver: exporter.driver, config };
}

/** How many logs one batch of this exporter holds. */
export function batchSizeOf(exporter: Exporter): number {
  return exporter.config.batching?.maxItems ?? DEFAULT_BATCH_LOGS;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const isExporterId = (value: string): boolean => UUID.test(value);
