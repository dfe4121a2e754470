/** A plausible address, lower-cased: a local part without spaces or specials, a dotted domain of DNS labels. */
const EMAIL =
  /^[^\s@<>()",;:\\[\]\u0000-\u001f\u007f]{1,64}@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/**
 * An email as the directory keys it and the configuration names admins: trimmed, lower-cased, and plausible;
 * undefined when it is not one.
 */
export function normaliseEmail(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const email = raw.trim().toLowerCase();
  return email.length <= 254 && EMAIL.test(email) ? email : undefined;
}
