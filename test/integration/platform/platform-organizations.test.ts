import { beforeAll, describe, expect, it } from 'vitest';
import { personId } from '../../../lib/platform/domain/directory.js';
import {
  type PlatformServiceTestbed,
  platformServiceTestbed,
  ROOT,
} from '../../support/platform-service.js';

/** `/me`, organizations and members (docs/decisions/tenancy.md, "The platform service"). */

let bed: PlatformServiceTestbed;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const root = () => bed.as(ROOT);

beforeAll(async () => {
  bed = await platformServiceTestbed();
});

describe('the default organization', () => {
  it('exists from the first request, with PLATFORM_ADMINS as its admins and its default environment', async () => {
    const me = await (await root())('GET', '/me');
    expect(me.status, me.text).toBe(200);
    expect(me.body).toEqual({
      data: {
        id: personId(ROOT),
        type: 'person',
        email: ROOT,
        organizations: [{ id: 'default', name: 'Default organization', role: 'admin' }],
      },
    });
    const envs = await (await root())('GET', '/organizations/default/environments');
    expect(envs.body.data).toEqual([
      {
        id: 'default',
        organizationId: 'default',
        name: 'default',
        type: 'production',
        createdAt: expect.stringMatching(ISO),
      },
    ]);
  });
});

describe('organizations', () => {
  it('lets a member create one, becoming its admin; others do not see it', async () => {
    const created = await (await root())('POST', '/organizations', { name: 'Acme Payments' });
    expect(created.status, created.text).toBe(201);
    const org = created.body.data;
    expect(org).toEqual({
      id: expect.stringMatching(/^acme-payments-[a-z0-9]{8}$/),
      name: 'Acme Payments',
      createdAt: expect.stringMatching(ISO),
      role: 'admin',
    });
    const list = await (await root())('GET', '/organizations');
    expect(list.body.data.map((o: { id: string; role: string }) => [o.id, o.role])).toEqual(
      [
        [org.id, 'admin'],
        ['default', 'admin'],
      ].sort((a, b) => a[0]!.localeCompare(b[0]!)),
    );
    const read = await (await root())('GET', `/organizations/${org.id}`);
    expect(read.body).toEqual({ data: org });

    // Someone else: as if it did not exist, exactly like an unknown id.
    await (await root())('PUT', '/organizations/default/members/eve@example.com', {
      role: 'member',
    });
    const eve = bed.as('eve@example.com');
    const hidden = await (await eve)('GET', `/organizations/${org.id}`);
    const unknown = await (await eve)('GET', '/organizations/nothing-here-12345678');
    expect(hidden.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(hidden.body.errorCode).toBe('NOT_FOUND');
    expect(hidden.body.errorMessage).toBe(`organization ${org.id} not found`);
    for (const path of ['/environments', '/members', '/environments/default'])
      expect((await (await eve)('GET', `/organizations/${org.id}${path}`)).status, path).toBe(404);
  });

  it('refuses a person in no organization, and clients, saying why (403)', async () => {
    const loner = await (await bed.as('loner@example.com'))('POST', '/organizations', {
      name: 'Mine',
    });
    expect(loner.status).toBe(403);
    expect(loner.body.errorCode).toBe('FORBIDDEN');
    expect(loner.body.errorMessage).toMatch(/only a person who already belongs to an organization/);
    const client = await bed.call(
      await bed.clientToken('ops-bot', 'default', 'admin'),
      'POST',
      '/organizations',
      { name: 'Bots' },
    );
    expect(client.status).toBe(403);
    expect(client.body.errorMessage).toMatch(/only a person may create an organization/);
  });

  it('refuses bad input with 400 VALIDATION and writes nothing', async () => {
    const call = await root();
    const before = (await call('GET', '/organizations')).body.data.length;
    const cases: Array<[unknown, RegExp]> = [
      [{}, /^body\.name: /],
      [{ name: '' }, /^body\.name: must not be empty/],
      [{ name: '   ' }, /^body\.name: must not be only spaces/],
      [{ name: 42 }, /^body\.name: must be a string/],
      [{ name: 'x'.repeat(101) }, /^body\.name: must be at most 100 characters/],
      [{ name: 'a\u0007b' }, /^body\.name: must not contain control characters/],
      [{ name: 'Ok', extra: true }, /^body\.extra: /],
      ['not json', /body is not valid JSON/],
      [[{ name: 'x' }], /^body/],
    ];
    for (const [body, message] of cases) {
      const res = await call('POST', '/organizations', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
      expect(res.body.errorMessage).toMatch(message);
    }
    expect((await call('GET', '/organizations')).body.data.length).toBe(before);
  });

  it('refuses a body over 1 MiB with 413 in the contract shape', async () => {
    const res = await (await root())('POST', '/organizations', {
      name: 'x'.repeat(1024 * 1024 + 10),
    });
    expect(res.status).toBe(413);
    expect(res.body.errorCode).toBe('VALIDATION');
  });

  it('gives ids from the name: slug of at most 24, accents dropped, fallback when nothing is left', async () => {
    const call = await root();
    const long = await call('POST', '/organizations', {
      name: 'Équipe  Très---Longue Organisation Numéro 42',
    });
    expect(long.body.data.id).toMatch(/^equipe-tres-longue-organ-[a-z0-9]{8}$/);
    const symbols = await call('POST', '/organizations', { name: '日本 !!!' });
    expect(symbols.body.data.id).toMatch(/^org-[a-z0-9]{8}$/);
  });
});

describe('platform-level clients', () => {
  it('act in their one organization with their token’s role', async () => {
    const token = await bed.clientToken('ops-bot', 'default', 'member');
    const me = await bed.call(token, 'GET', '/me');
    expect(me.body).toEqual({
      data: {
        id: 'ops-bot',
        type: 'client',
        organizations: [{ id: 'default', name: 'Default organization', role: 'member' }],
      },
    });
    expect((await bed.call(token, 'GET', '/organizations/default/members')).status).toBe(200);
    const refused = await bed.call(token, 'POST', '/organizations/default/environments', {
      name: 'x',
      type: 'sandbox',
    });
    expect(refused.status).toBe(403);
    // Another organization: unknown to it.
    const created = await (await root())('POST', '/organizations', { name: 'Elsewhere' });
    const other = await bed.call(token, 'GET', `/organizations/${created.body.data.id}`);
    expect(other.status).toBe(404);
    // A client for an organization that does not exist has none.
    const ghost = await bed.clientToken('ghost-bot', 'no-such-org', 'admin');
    expect((await bed.call(ghost, 'GET', '/me')).body.data.organizations).toEqual([]);
    expect((await bed.call(ghost, 'GET', '/organizations/no-such-org')).status).toBe(404);
  });

  it('as admin, manage members', async () => {
    const token = await bed.clientToken('ops-admin', 'default', 'admin');
    const put = await bed.call(
      token,
      'PUT',
      '/organizations/default/members/bot-added@example.com',
      {
        role: 'member',
      },
    );
    expect(put.status, put.text).toBe(200);
    expect(put.body.data.role).toBe('member');
    const del = await bed.call(
      token,
      'DELETE',
      '/organizations/default/members/bot-added@example.com',
    );
    expect(del.status).toBe(204);
  });
});

describe('members', () => {
  let org: string;
  const admin = 'ada@example.com';

  beforeAll(async () => {
    await (await root())('PUT', '/organizations/default/members/ada@example.com', {
      role: 'member',
    });
    const created = await (await bed.as(admin))('POST', '/organizations', { name: 'Team Ada' });
    org = created.body.data.id;
  });

  it('lists the creator as the only admin', async () => {
    const list = await (await bed.as(admin))('GET', `/organizations/${org}/members`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      data: [
        { id: personId(admin), email: admin, role: 'admin', addedAt: expect.stringMatching(ISO) },
      ],
    });
  });

  it('adds (email normalised), changes a role keeping addedAt, and the person sees it at once', async () => {
    const call = await bed.as(admin);
    const added = await call('PUT', `/organizations/${org}/members/%20Bob%40Example.COM`, {
      role: 'member',
    });
    expect(added.status, added.text).toBe(200);
    expect(added.body).toEqual({
      data: {
        id: personId('bob@example.com'),
        email: 'bob@example.com',
        role: 'member',
        addedAt: expect.stringMatching(ISO),
      },
    });
    const bob = await bed.as('bob@example.com');
    expect((await bob('GET', `/organizations/${org}`)).body.data.role).toBe('member');
    // A member may read, not manage.
    const refused = await bob('PUT', `/organizations/${org}/members/carol@example.com`, {
      role: 'member',
    });
    expect(refused.status).toBe(403);
    expect(refused.body.errorMessage).toBe(`only an admin of organization ${org} may do this`);
    expect((await bob('DELETE', `/organizations/${org}/members/${admin}`)).status).toBe(403);

    const promoted = await call('PUT', `/organizations/${org}/members/bob@example.com`, {
      role: 'admin',
    });
    expect(promoted.body.data).toEqual({ ...added.body.data, role: 'admin' });
    // Again: unchanged, same answer.
    const again = await call('PUT', `/organizations/${org}/members/bob@example.com`, {
      role: 'admin',
    });
    expect(again.body).toEqual(promoted.body);
    expect((await bob('GET', `/organizations/${org}`)).body.data.role).toBe('admin');
    // Both sides of the membership: bob's organizations list it too.
    expect(
      (await bob('GET', '/organizations')).body.data.map((o: { id: string }) => o.id),
    ).toContain(org);
  });

  it('never leaves an organization without an admin (409), and removes others (204)', async () => {
    const call = await bed.as(admin);
    await call('PUT', `/organizations/${org}/members/dan@example.com`, { role: 'admin' });
    await call('PUT', `/organizations/${org}/members/bob@example.com`, { role: 'member' });
    await call('DELETE', `/organizations/${org}/members/dan@example.com`);
    const demote = await call('PUT', `/organizations/${org}/members/${admin}`, { role: 'member' });
    expect(demote.status).toBe(409);
    expect(demote.body).toEqual({
      errorCode: 'CONFLICT',
      errorMessage: `${admin} is the last admin of organization ${org}: make another member admin first`,
    });
    const remove = await call('DELETE', `/organizations/${org}/members/${admin}`);
    expect(remove.status).toBe(409);
    expect(remove.body.errorCode).toBe('CONFLICT');

    const gone = await call('DELETE', `/organizations/${org}/members/bob@example.com`);
    expect(gone.status).toBe(204);
    expect(gone.text).toBe('');
    const bob = await bed.as('bob@example.com');
    // At once: the same token that worked a moment ago now finds nothing.
    expect((await bob('GET', `/organizations/${org}`)).status).toBe(404);
    expect(
      (await bob('GET', '/organizations')).body.data.map((o: { id: string }) => o.id),
    ).not.toContain(org);
    const unknown = await call('DELETE', `/organizations/${org}/members/bob@example.com`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.errorMessage).toBe(
      `bob@example.com is not a member of organization ${org}`,
    );
  });

  it('refuses bad emails and roles with 400 VALIDATION', async () => {
    const call = await bed.as(admin);
    for (const email of [
      'not-an-email',
      'a%40b',
      '%40example.com',
      'x@-bad-.com',
      'a%00b%40example.com',
    ]) {
      const res = await call('PUT', `/organizations/${org}/members/${email}`, { role: 'member' });
      expect(res.status, email).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
      expect(res.body.errorMessage).toBe('path.email: must be an email address');
    }
    for (const body of [{ role: 'owner' }, {}, { role: 'member', x: 1 }, { role: ['admin'] }]) {
      const res = await call('PUT', `/organizations/${org}/members/erin@example.com`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
    }
    const list = await call('GET', `/organizations/${org}/members`);
    expect(list.body.data.map((m: { email: string }) => m.email)).not.toContain('erin@example.com');
  });

  it('two admins demoting each other at once leave one admin', async () => {
    const call = await bed.as(admin);
    await call('PUT', `/organizations/${org}/members/fay@example.com`, { role: 'admin' });
    const fay = await bed.as('fay@example.com');
    const [a, b] = await Promise.all([
      call('PUT', `/organizations/${org}/members/fay@example.com`, { role: 'member' }),
      fay('PUT', `/organizations/${org}/members/${admin}`, { role: 'member' }),
    ]);
    // One change was made; the other, decided again on the changed roster, found its maker no longer an admin.
    expect([a.status, b.status].sort()).toEqual([200, 403]);
    const survivor = a.status === 200 ? call : fay;
    const members = (await survivor('GET', `/organizations/${org}/members`)).body.data;
    expect(members.filter((m: { role: string }) => m.role === 'admin')).toEqual([
      expect.objectContaining({ email: a.status === 200 ? admin : 'fay@example.com' }),
    ]);
  });
});
