import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { isEnvironmentId } from '../../../lib/environments/environment-id.js';
import { randomText } from '../../../lib/platform/domain/ids.js';
import {
  type PlatformServiceTestbed,
  platformServiceTestbed,
  ROOT,
} from '../../support/platform-service.js';

/** An organization's environments: create, list, read, delete only when empty, ids never given twice. */

let bed: PlatformServiceTestbed;
let org: string;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** What the fake probes find: kind → environments holding one. */
const held = new Map<string, Set<string>>();
const probed: string[] = [];
/** The random parts new ids get, in order (then real randomness). */
const suffixes: string[] = [];
const admin = 'env-admin@example.com';
const member = 'env-member@example.com';

beforeAll(async () => {
  bed = await platformServiceTestbed({
    environmentProbes: ['ledgers', 'webhook configs', 'payments', 'clients'].map((holds) => ({
      holds,
      exists: async (environment: string) => {
        probed.push(`${holds}:${environment}`);
        return held.get(holds)?.has(environment) ?? false;
      },
    })),
    random: (length) => suffixes.shift() ?? randomText(length),
  });
  const root = await bed.as(ROOT);
  await root('PUT', `/organizations/default/members/${admin}`, { role: 'member' });
  org = (await (await bed.as(admin))('POST', '/organizations', { name: 'Env Co' })).body.data.id;
  await (await bed.as(admin))('PUT', `/organizations/${org}/members/${member}`, {
    role: 'member',
  });
});

const envPath = (id = '') => `/organizations/${org}/environments${id ? `/${id}` : ''}`;

/** The environment's id item, read straight from the platform table. */
async function idItem(id: string) {
  const { Item } = await bed.runtime.doc.send(
    new GetCommand({
      TableName: bed.runtime.config.tables.platform,
      Key: { pk: `ENV#${id}`, sk: 'ENV' },
      ConsistentRead: true,
    }),
  );
  return Item;
}

describe('creating and reading environments', () => {
  it('lets an admin create one (201) that members list and read', async () => {
    const created = await (await bed.as(admin))('POST', envPath(), {
      name: 'Sandbox',
      type: 'sandbox',
    });
    expect(created.status, created.text).toBe(201);
    const env = created.body.data;
    expect(env).toEqual({
      id: expect.stringMatching(/^sandbox-[a-z0-9]{8}$/),
      organizationId: org,
      name: 'Sandbox',
      type: 'sandbox',
      createdAt: expect.stringMatching(ISO),
    });
    expect(isEnvironmentId(env.id)).toBe(true);
    const asMember = await bed.as(member);
    expect((await asMember('GET', envPath(env.id))).body).toEqual({ data: env });
    expect((await asMember('GET', envPath())).body.data).toContainEqual(env);
    expect(await idItem(env.id)).toMatchObject({ state: 'active', organizationId: org });
  });

  it('refuses members (403) and non-members (404)', async () => {
    const body = { name: 'Prod', type: 'production' };
    const asMember = await (await bed.as(member))('POST', envPath(), body);
    expect(asMember.status).toBe(403);
    expect(asMember.body.errorCode).toBe('FORBIDDEN');
    const stranger = await (await bed.as(ROOT))('POST', envPath(), body);
    expect(stranger.status).toBe(404);
    expect(stranger.body.errorMessage).toBe(`organization ${org} not found`);
    const list = await (await bed.as(admin))('GET', envPath());
    expect(list.body.data.map((e: { name: string }) => e.name)).not.toContain('Prod');
  });

  it('refuses bad input with 400 VALIDATION', async () => {
    const call = await bed.as(admin);
    const cases: Array<[unknown, RegExp]> = [
      [{ name: 'x', type: 'staging' }, /^body\.type: must be "sandbox" or "production"/],
      [{ name: 'x' }, /^body\.type: /],
      [{ type: 'sandbox' }, /^body\.name: /],
      [{ name: 'x'.repeat(65), type: 'sandbox' }, /^body\.name: must be at most 64/],
      [{ name: 'x', type: 'sandbox', id: 'mine' }, /^body\.id: /],
      [{ name: ['x'], type: 'sandbox' }, /^body\.name: must be a string/],
      [[], /^body: must be a JSON object/],
    ];
    for (const [body, message] of cases) {
      const res = await call('POST', envPath(), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
      expect(res.body.errorMessage).toMatch(message);
    }
  });

  it('answers ids of other organizations, unknown and malformed ids with 404', async () => {
    const call = await bed.as(admin);
    // `default` exists, in the default organization, where this admin is a member: not under this organization.
    for (const id of ['default', 'nope-12345678', 'UPPER', 'a'.repeat(41), '..']) {
      const res = await call('GET', envPath(id));
      expect(res.status, id).toBe(404);
    }
    expect((await call('DELETE', envPath('default'))).status).toBe(404);
    expect(
      (
        await bed.call(
          await bed.personToken(admin),
          'GET',
          '/organizations/default/environments/default',
        )
      ).status,
    ).toBe(200);
  });

  it('gives concurrent creations with the same name distinct ids', async () => {
    const call = await bed.as(admin);
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        call('POST', envPath(), { name: 'Load Test', type: 'sandbox' }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    const ids = results.map((r) => r.body.data.id as string);
    expect(new Set(ids).size).toBe(8);
    for (const id of ids) expect(id).toMatch(/^load-test-[a-z0-9]{8}$/);
    const listed = (await call('GET', envPath())).body.data.map((e: { id: string }) => e.id);
    expect(listed).toEqual(expect.arrayContaining(ids));
  });
});

describe('deleting environments', () => {
  it('deletes an empty one (204): then unknown everywhere, a tombstone keeps its id', async () => {
    const call = await bed.as(admin);
    suffixes.push('k3j9x2q1');
    const env = (await call('POST', envPath(), { name: 'Scratch', type: 'sandbox' })).body.data;
    expect(env.id).toBe('scratch-k3j9x2q1');
    probed.length = 0;
    const res = await call('DELETE', envPath(env.id));
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    expect(probed.sort()).toEqual(
      ['clients', 'ledgers', 'payments', 'webhook configs'].map((k) => `${k}:${env.id}`).sort(),
    );
    expect((await call('GET', envPath(env.id))).status).toBe(404);
    expect((await call('DELETE', envPath(env.id))).status).toBe(404);
    const listed = (await call('GET', envPath())).body.data.map((e: { id: string }) => e.id);
    expect(listed).not.toContain(env.id);
    expect(await idItem(env.id)).toMatchObject({
      state: 'deleted',
      deletedAt: expect.stringMatching(ISO),
    });

    // The same name and the same random part again: the id is taken by the tombstone, so another is given.
    suffixes.push('k3j9x2q1', 'zz9zz9zz');
    const again = await call('POST', envPath(), { name: 'Scratch', type: 'sandbox' });
    expect(again.status).toBe(201);
    expect(again.body.data.id).toBe('scratch-zz9zz9zz');
  });

  it('refuses an environment that still holds data (409 ENVIRONMENT_NOT_EMPTY, naming what), and keeps it', async () => {
    const call = await bed.as(admin);
    const env = (await call('POST', envPath(), { name: 'Busy', type: 'production' })).body.data;
    held.set('ledgers', new Set([env.id]));
    held.set('payments', new Set([env.id]));
    const res = await call('DELETE', envPath(env.id));
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      errorCode: 'ENVIRONMENT_NOT_EMPTY',
      errorMessage: `environment ${env.id} still holds ledgers, payments: delete them first`,
    });
    expect((await call('GET', envPath(env.id))).status).toBe(200);
    expect(await idItem(env.id)).toMatchObject({ state: 'active' });
    held.clear();
    expect((await call('DELETE', envPath(env.id))).status).toBe(204);
  });

  it('refuses members (403) and never deletes the default environment of the default organization (409)', async () => {
    const env = (await (await bed.as(admin))('POST', envPath(), { name: 'Keep', type: 'sandbox' }))
      .body.data;
    const byMember = await (await bed.as(member))('DELETE', envPath(env.id));
    expect(byMember.status).toBe(403);
    expect((await (await bed.as(admin))('GET', envPath(env.id))).status).toBe(200);

    const root = await bed.as(ROOT);
    const res = await root('DELETE', '/organizations/default/environments/default');
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      errorCode: 'CONFLICT',
      errorMessage:
        'the default environment of the default organization cannot be deleted: the deployment and its static clients rely on it',
    });
    expect((await root('GET', '/organizations/default/environments/default')).status).toBe(200);
  });

  it('deletes one environment once when two deletions race', async () => {
    const call = await bed.as(admin);
    const env = (await call('POST', envPath(), { name: 'Race', type: 'sandbox' })).body.data;
    const statuses = (
      await Promise.all([call('DELETE', envPath(env.id)), call('DELETE', envPath(env.id))])
    ).map((r) => r.status);
    expect(statuses.sort()).toEqual([204, 404]);
  });
});
