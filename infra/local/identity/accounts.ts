import { createHash, timingSafeEqual } from 'node:crypto';
import type { LocalAccount } from './config.js';

/**
 * The provider's accounts: found by email (login) or by subject (the provider's `findAccount`). A subject is
 * derived from the email, so it is the same at every start: the platform binds a person's email to the provider's
 * issuer and subject at the first login, and refuses another subject later.
 */
export class LocalAccounts {
  private readonly byEmail = new Map<string, LocalAccount>();
  private readonly bySubject = new Map<string, LocalAccount>();

  constructor(accounts: readonly LocalAccount[]) {
    for (const account of accounts) {
      this.byEmail.set(account.email, account);
      this.bySubject.set(localSubject(account.email), account);
    }
  }

  /** The account whose email and password these are; undefined otherwise (the same time spent either way). */
  authenticate(email: string, password: string): { subject: string } | undefined {
    const account = this.byEmail.get(email.trim().toLowerCase());
    const matches = sameSecret(password, account?.password ?? '');
    return account && matches ? { subject: localSubject(account.email) } : undefined;
  }

  /** The claims an ID token of this subject may carry (the provider filters them by scope). */
  claims(subject: string): Record<string, unknown> | undefined {
    const account = this.bySubject.get(subject);
    return (
      account && {
        sub: subject,
        email: account.email,
        email_verified: account.emailVerified,
        name: account.name,
      }
    );
  }
}

export const localSubject = (email: string): string =>
  `local-${createHash('sha256').update(email).digest('hex').slice(0, 24)}`;

/** Compares digests, so neither the length nor the content of a guess shows in the time taken. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected)) && expected !== '';
}
