import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_S3_CREDENTIALS } from '../../lib/config/env.js';
import { S3PortInUseError, startS3Local } from './s3-local.js';

const dataDir = mkdtempSync(join(tmpdir(), 's3-local-test-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const clientOf = (endpoint: string) =>
  new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { ...LOCAL_S3_CREDENTIALS },
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });

describe('the local S3 emulator', () => {
  it('keeps the bucket exports in DATA_DIR/s3 across restarts, and names S3_PORT when its port is taken', async () => {
    const first = await startS3Local({ port: 0, dataDir });
    expect(first.directory).toBe(join(dataDir, 's3'));
    const port = Number(new URL(first.endpoint).port);
    let client = clientOf(first.endpoint);
    await client.send(
      new PutObjectCommand({ Bucket: 'exports', Key: 'a/b.ndjson', Body: '{"id":1}\n' }),
    );
    client.destroy();

    await expect(startS3Local({ port, dataDir: join(dataDir, 'other') })).rejects.toEqual(
      new S3PortInUseError(
        `port ${port} (the local S3 emulator) is already in use (set S3_PORT to use another)`,
      ),
    );
    await first.stop();

    const again = await startS3Local({ port: 0, dataDir });
    client = clientOf(again.endpoint);
    try {
      const object = await client.send(
        new GetObjectCommand({ Bucket: 'exports', Key: 'a/b.ndjson' }),
      );
      expect(await object.Body!.transformToString()).toBe('{"id":1}\n');
    } finally {
      client.destroy();
      await again.stop();
    }
  });

  it('without a data directory, keeps its objects in a temporary folder removed at stop', async () => {
    const s3 = await startS3Local({ port: 0 });
    expect(existsSync(join(s3.directory, 'exports'))).toBe(true);
    await s3.stop();
    expect(existsSync(s3.directory)).toBe(false);
  });
});
