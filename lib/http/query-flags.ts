import { ValidationError } from '../errors/index.js';

/** A boolean query parameter: absent → false; `true`/`1` or `false`/`0`; anything else is a 400. */
export function booleanFlag(value: string | undefined, name: string): boolean {
  if (value === undefined || value === '') return false;
  const v = value.toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new ValidationError(`${name}: must be true or false`);
}
