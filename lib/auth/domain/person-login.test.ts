import { describe, expect, it } from 'vitest';
import { OAuthError } from './oauth-error.js';
import { personLoginOf } from './person-login.js';

const claims = {
  iss: 'https://idp.example',
  sub: 'abc',
  exp: 1_900_000_000,
  email: 'Ann.Lee@Example.COM ',
  email_verified: true,
};

function refusal(raw: Record<string, unknown>): string {
  try {
    personLoginOf(raw);
  } catch (err) {
    expect(err).toBeInstanceOf(OAuthError);
    expect((err as OAuthError).error).toBe('invalid_grant');
    return (err as OAuthError).description;
  }
  throw new Error('expected a refusal');
}

describe('the person of a verified ID token', () => {
  it('keys the person by the lower-cased email, and keeps the provider subject and a trimmed name', () => {
    expect(personLoginOf({ ...claims, name: '  Ann Lee ' })).toEqual({
      email: 'ann.lee@example.com',
      issuer: 'https://idp.example',
      subject: 'abc',
      name: 'Ann Lee',
      expiresAtSeconds: 1_900_000_000,
    });
    expect(personLoginOf({ ...claims, name: 'x'.repeat(500) }).name).toHaveLength(200);
    expect(personLoginOf({ ...claims, name: 7 })).not.toHaveProperty('name');
  });

  it('takes email_verified as the boolean true or the string "true", nothing else', () => {
    expect(personLoginOf({ ...claims, email_verified: 'true' }).email).toBe('ann.lee@example.com');
    for (const value of [false, 'false', 'TRUE', 1, undefined])
      expect(refusal({ ...claims, email_verified: value })).toBe('ID token email is not verified');
  });

  it('refuses a token without email, with a malformed one, or without iss, sub or exp', () => {
    expect(refusal({ ...claims, email: undefined })).toBe('ID token has no email');
    expect(refusal({ ...claims, email: 'not an email' })).toBe(
      'ID token email is not a valid address',
    );
    expect(refusal({ ...claims, email: ['a@b.example'] })).toBe(
      'ID token email is not a valid address',
    );
    for (const missing of ['iss', 'sub', 'exp'])
      expect(refusal({ ...claims, [missing]: undefined })).toBe('ID token lacks iss, sub or exp');
    expect(refusal({ ...claims, sub: '' })).toBe('ID token lacks iss, sub or exp');
  });
});
