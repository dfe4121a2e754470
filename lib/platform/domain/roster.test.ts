import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../errors/index.js';
import { MAX_MEMBERS } from '../store/directory.js';
import type { Membership } from './directory.js';
import { MAX_ORGANIZATION_MEMBERS, removal, setRole } from './roster.js';

const m = (
  email: string,
  role: 'admin' | 'member',
  addedAt = '2026-01-01T00:00:00.000Z',
): Membership => ({
  organizationId: 'acme',
  email,
  role,
  addedAt,
});
const AT = '2026-11-26T12:00:00.000Z';
const target = (email: string, role: 'admin' | 'member') => ({
  organizationId: 'acme',
  email,
  role,
  at: AT,
});

describe('setRole', () => {
  it('adds a new member, dated now', () => {
    expect(setRole([m('a@x.io', 'admin')], target('b@x.io', 'member'))).toEqual({
      kind: 'put',
      membership: m('b@x.io', 'member', AT),
    });
  });

  it('changes a role, keeping when they were added; the same role changes nothing', () => {
    const members = [m('a@x.io', 'admin'), m('b@x.io', 'member')];
    expect(setRole(members, target('b@x.io', 'admin'))).toEqual({
      kind: 'put',
      membership: m('b@x.io', 'admin'),
    });
    expect(setRole(members, target('b@x.io', 'member'))).toEqual({
      kind: 'unchanged',
      membership: m('b@x.io', 'member'),
    });
  });

  it('never demotes the last admin', () => {
    const members = [m('a@x.io', 'admin'), m('b@x.io', 'member')];
    expect(() => setRole(members, target('a@x.io', 'member'))).toThrow(ConflictError);
    expect(() => setRole(members, target('a@x.io', 'member'))).toThrow(
      'a@x.io is the last admin of organization acme: make another member admin first',
    );
    expect(setRole([...members, m('c@x.io', 'admin')], target('a@x.io', 'member')).kind).toBe(
      'put',
    );
  });

  it('stops at the most members an organization may have (the most the directory reads)', () => {
    expect(MAX_ORGANIZATION_MEMBERS).toBe(MAX_MEMBERS);
    const full = Array.from({ length: MAX_ORGANIZATION_MEMBERS }, (_, i) =>
      m(`p${i}@x.io`, i === 0 ? 'admin' : 'member'),
    );
    expect(() => setRole(full, target('new@x.io', 'member'))).toThrow(ConflictError);
    // A change of role in a full organization is fine.
    expect(setRole(full, target('p1@x.io', 'admin')).kind).toBe('put');
  });
});

describe('removal', () => {
  it('removes a member; an unknown one is 404; the last admin stays', () => {
    const members = [m('a@x.io', 'admin'), m('b@x.io', 'member')];
    expect(removal(members, { organizationId: 'acme', email: 'b@x.io' })).toEqual({
      kind: 'remove',
      membership: m('b@x.io', 'member'),
    });
    expect(() => removal(members, { organizationId: 'acme', email: 'z@x.io' })).toThrow(
      NotFoundError,
    );
    expect(() => removal(members, { organizationId: 'acme', email: 'a@x.io' })).toThrow(
      ConflictError,
    );
    const twoAdmins = [...members, m('c@x.io', 'admin')];
    expect(removal(twoAdmins, { organizationId: 'acme', email: 'a@x.io' }).kind).toBe('remove');
  });
});
