import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { CliError } from './errors.js';

/** A regular file to read as a stream, with its size; a missing or unreadable one is a one-line CliError. */
export async function openFile(path: string): Promise<{ stream: Readable; size: number }> {
  try {
    const handle = await open(path);
    const stat = await handle.stat();
    if (!stat.isFile()) {
      await handle.close();
      throw new Error('not a file');
    }
    return { stream: handle.createReadStream(), size: stat.size };
  } catch (e) {
    throw new CliError(`cannot read ${path}: ${(e as Error).message}`);
  }
}
