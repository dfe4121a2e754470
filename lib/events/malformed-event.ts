/**
 * Thrown for a stream record that carries an event but can never be dispatched as it is (retried all the same,
 * and logged): a broken row or log item is a bug to see, not something to skip silently.
 */
export class MalformedEventError extends Error {}
