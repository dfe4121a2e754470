import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The bucket the local S3 emulator starts with: where the guide's exporter writes. */
export const LOCAL_EXPORT_BUCKET = 'exports';

/**
 * s3rver's programmatic API, as the platform uses it (the package ships no types): its request handler, served by
 * a server of ours (its own `run` leaves a port in use as an unhandled error event), and its bucket set-up.
 */
interface S3rverInstance {
  callback(): RequestListener;
  configureBuckets(): Promise<void>;
  logger: { close(): void };
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;

export interface S3Local {
  /** `http://127.0.0.1:<port>`: what S3_ENDPOINT is set to. */
  endpoint: string;
  /** Where its buckets are: one folder per bucket, one file per object (`<key>._S3rver_object`). */
  directory: string;
  stop(): Promise<void>;
}

export class S3PortInUseError extends Error {}

/**
 * The local S3 emulator (s3rver, from npm) in this process, on `port` of the loopback (0: a free one), with the
 * bucket `exports`. Its objects are kept in `dataDir/s3` across restarts; without a data directory, in a temporary
 * one removed at stop. It takes any request signed with its key pair (LOCAL_S3_CREDENTIALS) and checks no
 * signature: it is a development store, reachable from this machine only.
 */
export async function startS3Local(options: { port: number; dataDir?: string }): Promise<S3Local> {
  const directory = options.dataDir
    ? join(options.dataDir, 's3')
    : mkdtempSync(join(tmpdir(), 'platform-s3-'));
  mkdirSync(directory, { recursive: true });
  const removeTemporary = () => {
    if (!options.dataDir) rmSync(directory, { recursive: true, force: true });
  };
  // Loaded here: only a platform with its emulator needs it (and its Koa stack).
  const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;
  const s3rver = new S3rver({
    silent: true,
    directory,
    allowMismatchedSignatures: true,
    // Path-style only: `<bucket>.localhost` names would need DNS.
    vhostBuckets: false,
    configureBuckets: [{ name: LOCAL_EXPORT_BUCKET }],
  });
  await s3rver.configureBuckets();
  const server = createServer(s3rver.callback());
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve(server.address() as AddressInfo));
  }).catch((err: NodeJS.ErrnoException) => {
    s3rver.logger.close();
    removeTemporary();
    throw err.code === 'EADDRINUSE'
      ? new S3PortInUseError(
          `port ${options.port} (the local S3 emulator) is already in use (set S3_PORT to use another)`,
        )
      : err;
  });
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    directory,
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      s3rver.logger.close();
      removeTemporary();
    },
  };
}
