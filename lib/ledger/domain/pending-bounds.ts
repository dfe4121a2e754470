/**
 * The bounds of a hold, apart from domain/pending.ts: the routes' request schemas use them at start-up, and the
 * pending domain loads at a ledger's first pending request.
 */

/** The longest a hold may wait for its post: 366 days, as a card authorisation never outlives a year. */
export const MAX_TIMEOUT_SECONDS = 366 * 24 * 3600;
/** Postings of one hold, at most (as a transaction's). */
export const MAX_HOLD_POSTINGS = 100;
