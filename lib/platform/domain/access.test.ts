import { describe, expect, it } from 'vitest';
import { ForbiddenError, InvalidTokenError, NotFoundError } from '../../errors/index.js';
import type { Principal } from '../../http/types.js';
import {
  callerOf,
  clientRole,
  requireMemberSomewhere,
  requirePerson,
  requireRole,
  rosterRole,
} from './access.js';
import type { Membership } from './directory.js';

const principal = (p: Partial<Principal>): Principal => ({
  clientId: 'c',
  subject: 's',
  type: 'person',
  scopes: new Set(),
  ...p,
});

describe('callerOf', () => {
  it('knows a person by their normalised email', () => {
    expect(callerOf(principal({ email: ' Ada@Example.COM ' }))).toEqual({
      type: 'person',
      id: 's',
      email: 'ada@example.com',
    });
  });

  it('refuses a person without a usable email (401)', () => {
    for (const email of [undefined, '', 'not-an-email'])
      expect(() => callerOf(principal({ email }))).toThrow(InvalidTokenError);
  });

  it('gives a client its token’s organization and role, and nothing else', () => {
    expect(
      callerOf(principal({ type: 'client', organization: 'acme', role: 'admin', email: 'x@y.z' })),
    ).toEqual({ type: 'client', id: 's', organization: 'acme', role: 'admin' });
    expect(callerOf(principal({ type: 'client' }))).toEqual({ type: 'client', id: 's' });
  });
});

describe('roles', () => {
  const client = { type: 'client', id: 'bot', organization: 'acme', role: 'member' } as const;
  const person = { type: 'person', id: 'p', email: 'ada@example.com' } as const;
  const members: Membership[] = [
    { organizationId: 'acme', email: 'ada@example.com', role: 'admin', addedAt: 't' },
  ];

  it('a client has its role in its one organization only', () => {
    expect(clientRole(client, 'acme')).toBe('member');
    expect(clientRole(client, 'other')).toBeUndefined();
    expect(clientRole(person, 'acme')).toBeUndefined();
    expect(rosterRole(client, 'acme', [])).toBe('member');
    expect(rosterRole(person, 'acme', members)).toBe('admin');
    expect(rosterRole(person, 'acme', [])).toBeUndefined();
  });

  it('no role: 404 as for an unknown organization; a member asking for admin: 403', () => {
    expect(() => requireRole(undefined, 'member', 'acme')).toThrow(NotFoundError);
    expect(() => requireRole(undefined, 'member', 'acme')).toThrow('organization acme not found');
    expect(() => requireRole('member', 'admin', 'acme')).toThrow(ForbiddenError);
    expect(requireRole('member', 'member', 'acme')).toBe('member');
    expect(requireRole('admin', 'admin', 'acme')).toBe('admin');
    expect(requireRole('admin', 'member', 'acme')).toBe('admin');
  });

  it('only persons act as persons; only members of some organization create one', () => {
    expect(requirePerson(person, 'x')).toBe(person);
    expect(() => requirePerson(client, 'get a personal token')).toThrow(
      "only a person may get a personal token: this is a client's token",
    );
    expect(() => requireMemberSomewhere(0)).toThrow(ForbiddenError);
    expect(() => requireMemberSomewhere(1)).not.toThrow();
  });
});
