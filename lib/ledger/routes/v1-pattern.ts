import { ValidationError } from '../../errors/index.js';
import { ACCOUNT_ADDRESS, MAX_ADDRESS_LENGTH } from '../domain/names.js';

/**
 * A v1 address parameter (`address`, `account`, `source`, `destination`): the reference's v1 read it as a regular
 * expression placed between ^ and $. What an index can serve is recognised first: an exact address, or a prefix
 * (`users:`, `users:.*`); anything else is a regular expression evaluated on the items a page reads.
 */
export type AddressPattern =
  | { kind: 'exact'; address: string }
  | { kind: 'prefix'; prefix: string }
  | { kind: 'regex'; source: string; regex: RegExp };

const PREFIX_BODY = /^[a-zA-Z0-9_-]+(:[a-zA-Z0-9_-]+)*:$/;
/** Unbounded quantifiers a pattern may hold: with addresses of at most 256 characters, two keep a match quadratic at worst. */
const MAX_UNBOUNDED = 2;

export function readAddressPattern(raw: string, name: string): AddressPattern {
  if (raw.length === 0 || raw.length > MAX_ADDRESS_LENGTH)
    throw new ValidationError(`${name}: must be 1-${MAX_ADDRESS_LENGTH} characters`);
  if (ACCOUNT_ADDRESS.test(raw)) return { kind: 'exact', address: raw };
  if (PREFIX_BODY.test(raw)) return { kind: 'prefix', prefix: raw };
  if (raw.endsWith(':.*') && PREFIX_BODY.test(raw.slice(0, -2)))
    return { kind: 'prefix', prefix: raw.slice(0, -2) };
  checkSafe(raw, name);
  try {
    return { kind: 'regex', source: raw, regex: new RegExp(`^(?:${raw})$`) };
  } catch {
    throw new ValidationError(`${name}: not a valid regular expression`);
  }
}

export function matchesPattern(pattern: AddressPattern, address: string): boolean {
  switch (pattern.kind) {
    case 'exact':
      return address === pattern.address;
    case 'prefix':
      return address.startsWith(pattern.prefix);
    case 'regex':
      return pattern.regex.test(address);
  }
}

/**
 * The regular expressions we evaluate are kept to a form whose matching cannot explode (no catastrophic
 * backtracking): quantifiers only on a single character, class or `.`, never on a group; no backreferences or
 * lookarounds; at most MAX_UNBOUNDED `*`, `+` or `{n,}`. Groups remain for alternation (`users:(1|2)`).
 */
function checkSafe(raw: string, name: string): void {
  const refuse = (why: string): never => {
    throw new ValidationError(
      `${name}: ${why} (address patterns are regular expressions with quantifiers on single characters or classes only)`,
    );
  };
  let unbounded = 0;
  let inClass = false;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === '\\') {
      const next = raw[i + 1];
      if (next === undefined) refuse('ends with a lone backslash');
      if (/[1-9k]/.test(next!)) refuse('backreferences are not supported');
      i++;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      continue;
    }
    if (ch === '[') inClass = true;
    else if (ch === '(' && raw[i + 1] === '?')
      refuse('lookarounds and special groups are not supported');
    else if (ch === '*' || ch === '+' || ch === '?' || ch === '{') {
      if (raw[i - 1] === ')') refuse('a quantifier on a group is not supported');
      if (ch === '{') {
        const end = raw.indexOf('}', i);
        if (end < 0) continue;
        if (/^\{\d+,\}$/.test(raw.slice(i, end + 1))) unbounded++;
        i = end;
      } else if (ch !== '?') unbounded++;
      if (raw[i + 1] === '?' || raw[i + 1] === '+') i++;
    }
  }
  if (unbounded > MAX_UNBOUNDED) refuse(`at most ${MAX_UNBOUNDED} unbounded quantifiers`);
}
