import { ValidationError } from '../errors/index.js';

/**
 * How deep a request body's JSON may nest (objects and arrays). The deepest body of any route is a few levels
 * (a bulk element's postings' metadata); 64 leaves room for any shape a route reads while keeping every parser
 * and walker that follows, recursive ones included, far from the stack's end.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Checks JSON text in one pass, before any parser sees it, for what the parsers would let through or choke on:
 * - nesting deeper than `MAX_JSON_DEPTH`: a recursive parser runs out of stack on `[` repeated 100,000 times,
 *   which must be a 400, not a 500 (brackets inside strings do not count);
 * - a lone surrogate escape (`"\ud800"`): it parses, but has no UTF-8 encoding, so it would be stored as U+FFFD
 *   down the line, as invalid UTF-8 bytes would (those are refused when the body is decoded).
 * Malformed text is left for the parser to name.
 */
export function assertJsonText(text: string, where = 'body'): void {
  let depth = 0;
  let inString = false;
  let awaitingLowHalf = false; // an escaped high surrogate was just read: the next character must be its low half
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === BACKSLASH) {
        const unit =
          text[i + 1] === 'u' ? Number.parseInt(text.slice(i + 2, i + 6), 16) : Number.NaN;
        const low = unit >= 0xdc00 && unit <= 0xdfff;
        if (low !== awaitingLowHalf) throw loneSurrogate(where);
        awaitingLowHalf = unit >= 0xd800 && unit <= 0xdbff;
        i += Number.isNaN(unit) ? 1 : 5;
        continue;
      }
      if (awaitingLowHalf) throw loneSurrogate(where);
      if (ch === QUOTE) inString = false;
    } else if (ch === QUOTE) inString = true;
    else if (ch === OPEN_BRACE || ch === OPEN_BRACKET) {
      if (++depth > MAX_JSON_DEPTH)
        throw new ValidationError(`${where}: JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
    } else if (ch === CLOSE_BRACE || ch === CLOSE_BRACKET) depth--;
  }
}

const loneSurrogate = (where: string) =>
  new ValidationError(
    `${where}: a string holds a lone surrogate escape (\\uD800-\\uDFFF), not valid Unicode`,
  );

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
