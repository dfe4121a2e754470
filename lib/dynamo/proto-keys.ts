import type {
  InitializeHandler,
  InitializeHandlerArguments,
  InitializeHandlerOutput,
  InitializeMiddleware,
  MetadataBearer,
  Pluggable,
} from '@smithy/types';

/**
 * Keys named `__proto__` or `constructor` survive DynamoDB.
 *
 * Callers' maps (metadata, features, account addresses) may hold these keys, and the AWS SDK's marshaller and
 * unmarshaller (`@aws-sdk/util-dynamodb`) mishandle both: maps are built with `map[key] = value`, which for
 * `__proto__` calls the prototype setter instead of storing the key (the entry is dropped, on write and on read);
 * and an object is recognised as a map by `value.constructor.name === "Object"`, so a map with its own
 * `constructor` key is refused ("Unsupported type passed") or taken for a Set. So, on the document client only,
 * such a key is stored under an escaped name: the key preceded by one more NUL than it had (`__proto__` ↔
 * `\0__proto__`, `\0__proto__` ↔ `\0\0__proto__`, same for `constructor`), a bijection no other key takes part
 * in. Every key of a request (items, keys, values) and every `ExpressionAttributeNames` value (the same name in
 * an update path) is escaped before marshalling; every key of a response is unescaped after unmarshalling, into
 * an own property. Requests without such a key pass untouched (one walk, no copy).
 */

const NEEDS_ESCAPE = /^\0*(?:__proto__|constructor)$/;
const NEEDS_UNESCAPE = /^\0+(?:__proto__|constructor)$/;

export const escapeStoredKey = (key: string): string => (NEEDS_ESCAPE.test(key) ? `\0${key}` : key);
export const unescapeStoredKey = (key: string): string =>
  NEEDS_UNESCAPE.test(key) ? key.slice(1) : key;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Whether any object key under `value`, or any `ExpressionAttributeNames` value, matches `pattern`. */
function mentions(value: unknown, pattern: RegExp, isName = false): boolean {
  if (Array.isArray(value)) return value.some((item) => mentions(item, pattern));
  if (isPlainObject(value))
    return Object.entries(value).some(
      ([key, child]) =>
        pattern.test(key) || mentions(child, pattern, key === 'ExpressionAttributeNames'),
    );
  return isName && typeof value === 'string' && pattern.test(value);
}

/** A copy of `value` with every object key renamed, and (under ExpressionAttributeNames) every name too. */
function renamed(value: unknown, rename: (key: string) => string, inNames = false): unknown {
  if (Array.isArray(value)) return value.map((item) => renamed(item, rename));
  if (!isPlainObject(value)) return inNames && typeof value === 'string' ? rename(value) : value;
  // fromEntries defines own properties: the restored `__proto__` key is data, not the prototype.
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [
      rename(key),
      renamed(child, rename, key === 'ExpressionAttributeNames'),
    ]),
  );
}

const protoKeysMiddleware: InitializeMiddleware<object, MetadataBearer> =
  (next: InitializeHandler<object, MetadataBearer>) =>
  async (
    args: InitializeHandlerArguments<object>,
  ): Promise<InitializeHandlerOutput<MetadataBearer>> => {
    const input = mentions(args.input, NEEDS_ESCAPE, false)
      ? (renamed(args.input, escapeStoredKey) as object)
      : args.input;
    const result = await next({ ...args, input });
    if (mentions(result.output, NEEDS_UNESCAPE, false))
      result.output = renamed(result.output, unescapeStoredKey) as MetadataBearer;
    return result;
  };

/** Plug into a DynamoDB document client: runs first on the way in (before marshalling), last on the way out. */
export const protoSafeKeys: Pluggable<object, MetadataBearer> = {
  applyToStack: (stack) => {
    stack.add(protoKeysMiddleware, { step: 'initialize', name: 'protoSafeKeys', override: true });
  },
};
