import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';

/**
 * Scalar's standalone browser bundle, kept in the repository (`vendor/scalar/`, gzipped): the one file the page
 * loads. The npm package that ships it also installs its whole Vue toolchain (about 260 packages, 279 MB on
 * disk) that nothing here runs; vendor/scalar/README.md says which version it is and how to replace it.
 */
const SCALAR_VENDORED_FILE = new URL('../../vendor/scalar/standalone.js.gz', import.meta.url);

export async function readVendoredScalar(): Promise<Uint8Array> {
  return new Uint8Array(gunzipSync(await readFile(SCALAR_VENDORED_FILE)));
}
