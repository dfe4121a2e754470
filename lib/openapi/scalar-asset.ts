import { readFile } from 'node:fs/promises';

/**
 * Scalar's standalone browser bundle from the installed `@scalar/api-reference` (its package exports do not
 * name the file: it is found beside the package's entry point, `dist/index.js` → `dist/browser/`).
 */
export async function readScalarFromPackage(): Promise<Uint8Array> {
  return readFile(scalarPackageFile());
}

export function scalarPackageFile(): URL {
  return new URL('./browser/standalone.js', import.meta.resolve('@scalar/api-reference'));
}
