import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { ValidationError } from '../../errors/index.js';
import {
  type DummypaySettings,
  dummypayDirectory,
  isWithin,
} from '../domain/connectors/dummypay-directory.js';
import { ProviderError } from './provider.js';

/** The largest file dummypay reads: its files are test fixtures, and a run holds one in memory. */
export const MAX_DUMMYPAY_FILE_BYTES = 8 * 1024 * 1024;

/**
 * A file's text under `directory`, read only when its real path (every symbolic link followed) lies within the
 * real `root`; undefined when it does not exist. The last component is opened without following a link, so a
 * link swapped in after the check is refused rather than followed.
 */
export async function readConfinedFile(
  root: string,
  directory: string,
  name: string,
): Promise<string | undefined> {
  const realRoot = await realpath(root).catch(() => {
    throw new ProviderError(`dummypay: the root ${root} does not exist`);
  });
  let real: string;
  try {
    real = await realpath(join(directory, name));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ProviderError(`dummypay: cannot read ${name}: ${(err as Error).message}`);
  }
  if (!isWithin(realRoot, real))
    throw new ProviderError(`dummypay: ${name} leads outside the dummypay root (a symbolic link)`);
  const file = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW).catch((err: Error) => {
    throw new ProviderError(`dummypay: cannot open ${name}: ${err.message}`);
  });
  try {
    const stat = await file.stat();
    if (!stat.isFile()) throw new ProviderError(`dummypay: ${name} is not a file`);
    if (stat.size > MAX_DUMMYPAY_FILE_BYTES)
      throw new ProviderError(
        `dummypay: ${name} is larger than ${MAX_DUMMYPAY_FILE_BYTES} bytes (${stat.size})`,
      );
    return await file.readFile('utf8');
  } finally {
    await file.close();
  }
}

/**
 * A dummypay config checked against the files as they are now: its directory resolved within the root (400
 * otherwise), and, when it exists, its real path too (a symbolic link out of the root is refused at install).
 */
export async function checkDummypayConfig(
  settings: DummypaySettings,
  fields: Record<string, unknown>,
): Promise<void> {
  const dir = dummypayDirectory(settings, String(fields.directory));
  const realRoot = await realpath(settings.root!).catch(() => settings.root!);
  const realDir = await realpath(dir).catch(() => undefined);
  if (realDir !== undefined && !isWithin(realRoot, realDir))
    throw new ValidationError(
      'body.directory: leads outside the dummypay root through a symbolic link',
    );
}
