/**
 * The console's built files as the site serves them: each with its gzip form (API Gateway does not compress,
 * so the site sends the smaller body itself when the browser accepts it).
 */
import { gzipSync } from 'node:zlib';

export interface ConsoleAsset {
  body: Uint8Array;
  gzip: Uint8Array;
  contentType: string;
}

export interface ConsoleAssets {
  /** The page itself, served at `/console`; it names the assets by their content hash. */
  index: ConsoleAsset;
  /** Content-hashed files served at `/console/assets/<name>`, cacheable for ever. */
  files: Map<string, ConsoleAsset>;
}

export const ASSETS_PATH = '/console/assets';

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

export function consoleAsset(name: string, body: Uint8Array | string): ConsoleAsset {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const extension = name.slice(name.lastIndexOf('.'));
  return {
    body: bytes,
    gzip: gzipSync(bytes, { level: 9 }),
    contentType: CONTENT_TYPES[extension] ?? 'application/octet-stream',
  };
}

/** Sizes as docs/guides/console.md states them: every file, raw and gzip, and the gzip total a first visit downloads. */
export function consoleSizes(assets: ConsoleAssets): {
  files: Array<{ name: string; bytes: number; gzipBytes: number }>;
  totalGzipBytes: number;
} {
  const files = [['index.html', assets.index] as const, ...assets.files].map(([name, a]) => ({
    name,
    bytes: a.body.byteLength,
    gzipBytes: a.gzip.byteLength,
  }));
  return { files, totalGzipBytes: files.reduce((sum, f) => sum + f.gzipBytes, 0) };
}
