import { NumscriptError } from './errors.js';

/**
 * The transaction's metadata: the request's and the script's set_tx_meta together. As in the reference ledger, a
 * key given by both is refused (even with the same value) rather than one silently winning.
 */
export function mergeTxMetadata(
  requestMetadata: Record<string, string>,
  scriptMetadata: Record<string, string>,
): Record<string, string> {
  for (const name of Object.keys(scriptMetadata)) {
    if (Object.hasOwn(requestMetadata, name)) {
      throw new NumscriptError(
        'METADATA_OVERRIDE',
        'MetadataOverride',
        `cannot override metadata '${name}' from the script`,
      );
    }
  }
  return { ...requestMetadata, ...scriptMetadata };
}
