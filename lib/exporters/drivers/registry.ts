import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Exporter, HttpConfig, KinesisConfig, S3Config } from '../domain/exporter.js';
import type { Driver } from './driver.js';
import { httpDriver } from './http.js';
import { stdoutDriver } from './stdout.js';

export interface DriverSettings {
  allowLoopback: boolean;
  /** The region S3 clients use when an exporter names none (the worker's). */
  awsRegion?: string;
  /** Where the stdout driver writes (the process's standard output unless a test listens). */
  writeLine?: (line: string) => void;
  httpTimeoutMs?: number;
  /**
   * Credentials for an exporter's local S3-compatible `endpoint` (tests give the emulator's); none: the AWS SDK's
   * default chain (AWS_ACCESS_KEY_ID …), as for S3 itself.
   */
  s3Credentials?: { accessKeyId: string; secretAccessKey: string };
  /**
   * The S3-compatible store an exporter that names no `endpoint` writes to (the local platform's emulator,
   * S3_ENDPOINT); none: S3 itself.
   */
  s3Endpoint?: string;
  /** The same, for an exporter's local Kinesis `endpoint` (an emulator). */
  kinesisCredentials?: { accessKeyId: string; secretAccessKey: string };
}

/** S3 clients by region and endpoint, made at first use and kept for the container's life. */
const s3Clients = new Map<string, S3Client>();

async function s3ClientFor(config: S3Config, settings: DriverSettings): Promise<S3Client> {
  const region = config.region ?? settings.awsRegion ?? 'us-east-1';
  const endpoint = config.endpoint ?? settings.s3Endpoint;
  const key = `${region} ${endpoint ?? ''} ${settings.s3Credentials?.accessKeyId ?? ''}`;
  let client = s3Clients.get(key);
  if (!client) {
    const { S3Client } = await import('@aws-sdk/client-s3');
    client = new S3Client({
      region,
      ...(endpoint
        ? {
            // A local S3-compatible store (the local stage only): path-style, and checksums only where S3 requires
            // them (emulators do not all take the SDK's default trailers).
            endpoint,
            forcePathStyle: true,
            requestChecksumCalculation: 'WHEN_REQUIRED' as const,
            ...(settings.s3Credentials ? { credentials: settings.s3Credentials } : {}),
          }
        : {}),
    });
    s3Clients.set(key, client);
  }
  return client;
}

/** Kinesis clients by region and endpoint, made at first use and kept for the container's life. */
const kinesisClients = new Map<string, KinesisClient>();

/** The region of a stream ARN (`arn:aws:kinesis:<region>:…`), else the configured or the worker's region. */
function kinesisRegion(config: KinesisConfig, settings: DriverSettings): string {
  if (config.stream.startsWith('arn:')) return config.stream.split(':')[3]!;
  return config.region ?? settings.awsRegion ?? 'us-east-1';
}

async function kinesisClientFor(
  config: KinesisConfig,
  settings: DriverSettings,
): Promise<KinesisClient> {
  const region = kinesisRegion(config, settings);
  const key = `${region} ${config.endpoint ?? ''} ${settings.kinesisCredentials?.accessKeyId ?? ''}`;
  let client = kinesisClients.get(key);
  if (!client) {
    const [{ KinesisClient }, { NodeHttpHandler }] = await Promise.all([
      import('@aws-sdk/client-kinesis'),
      import('@smithy/node-http-handler'),
    ]);
    client = new KinesisClient({
      region,
      // HTTP/1.1 with keep-alive: PutRecord needs no HTTP/2 (the client's default, for SubscribeToShard), and
      // the emulators speak HTTP/1.1 only.
      requestHandler: new NodeHttpHandler({ connectionTimeout: 5000, requestTimeout: 15_000 }),
      ...(config.endpoint
        ? {
            endpoint: config.endpoint,
            ...(settings.kinesisCredentials ? { credentials: settings.kinesisCredentials } : {}),
          }
        : {}),
    });
    kinesisClients.set(key, client);
  }
  return client;
}

/**
 * The driver an exporter names, built from its (already checked) configuration. The AWS SDK's S3 and Kinesis
 * clients and the Parquet writer load at the first exporter that needs them, so the function starts without them.
 */
export async function driverFor(exporter: Exporter, settings: DriverSettings): Promise<Driver> {
  switch (exporter.driver) {
    case 'http':
      return httpDriver(exporter.config as HttpConfig, {
        allowLoopback: settings.allowLoopback,
        ...(settings.httpTimeoutMs ? { timeoutMs: settings.httpTimeoutMs } : {}),
      });
    case 's3': {
      const { s3Driver } = await import('./s3.js');
      const config = exporter.config as S3Config;
      return s3Driver(config, await s3ClientFor(config, settings));
    }
    case 'kinesis': {
      const { kinesisDriver } = await import('./kinesis.js');
      const config = exporter.config as KinesisConfig;
      return kinesisDriver(config, await kinesisClientFor(config, settings));
    }
    case 'stdout':
      return stdoutDriver(settings.writeLine ?? ((line) => process.stdout.write(`${line}\n`)));
  }
}
