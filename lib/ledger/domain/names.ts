/** Formats of docs/api.md §1 "Names" (the two the configuration checks too live in lib/validation/names.ts). */
export { BUCKET_NAME, LEDGER_NAME } from '../../validation/names.js';

export const RESERVED_LEDGER_NAMES: ReadonlySet<string> = new Set([
  '_',
  '_info',
  '_health',
  '_healthcheck',
]);
export const ACCOUNT_ADDRESS = /^[a-zA-Z0-9_-]+(:[a-zA-Z0-9_-]+)*$/;
/** The one account allowed to go below zero without `force`. */
export const WORLD = 'world';
export const DEFAULT_BUCKET = '_default';
/** Addresses are bounded so every key built from them stays far below DynamoDB's key limits. */
export const MAX_ADDRESS_LENGTH = 256;
