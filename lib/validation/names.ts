/**
 * Formats of docs/api.md §1 "Names" that the configuration checks too (LEDGER_BUCKET_TABLES), so they live with the
 * shared validation rather than in the ledger's domain.
 */
export const LEDGER_NAME = /^[0-9a-zA-Z_-]{1,63}$/;
export const BUCKET_NAME = LEDGER_NAME;
