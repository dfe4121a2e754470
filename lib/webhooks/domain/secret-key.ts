// Turns a `whsec_<base64>` secret into the HMAC key bytes. Standard Webhooks keys the HMAC with the DECODED
// bytes, not the string: signing with the string would verify with nothing but ourselves.

const SECRET_PREFIX = 'whsec_';
// Strict standard base64 (Node's decoder silently skips bad characters, which would hide a corrupted secret).
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function decodeSecret(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (encoded.length === 0 || !BASE64.test(encoded)) {
    throw new Error('webhook secret must be "whsec_" followed by standard base64');
  }
  return Buffer.from(encoded, 'base64');
}

// Decoding is cheap but not free, and one container signs for the same few configs over and over. The cache is
// bounded so a container that sees many configs cannot grow without limit; Map keeps insertion order, so the
// first key is the oldest and is evicted first.
const MAX_CACHED_KEYS = 1_000;
const keyCache = new Map<string, Buffer>();

export function secretKey(secret: string): Buffer {
  const cached = keyCache.get(secret);
  if (cached) return cached;
  const key = decodeSecret(secret);
  if (keyCache.size >= MAX_CACHED_KEYS) {
    const oldest = keyCache.keys().next();
    if (!oldest.done) keyCache.delete(oldest.value);
  }
  keyCache.set(secret, key);
  return key;
}
