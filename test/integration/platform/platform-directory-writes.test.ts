import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { assemblePlatformApp } from '../../../lib/assembly/platform-app.js';
import { throttlingError } from '../../../lib/dynamo/errors.js';
import { generatedDocuments } from '../../../lib/openapi/generated-documents.js';
import type { Membership } from '../../../lib/platform/domain/directory.js';
import { setRole } from '../../../lib/platform/domain/roster.js';
import { PlatformDirectory } from '../../../lib/platform/store/directory.js';
import { DirectoryWrites } from '../../../lib/platform/store/directory-writes.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { platformServiceTestbed, ROOT } from '../../support/platform-service.js';
import { testTables } from '../../support/tables.js';

/** The directory's writes under races the HTTP tests cannot time: decided again on the roster as it now is. */

let runtime: ServiceRuntime;
let writes: DirectoryWrites;
let directory: PlatformDirectory;
const AT = '2026-11-26T12:00:00.000Z';

beforeAll(async () => {
  ({ runtime } = await testTables());
  const table = runtime.config.tables.platform;
  writes = new DirectoryWrites(runtime.doc, table, { sleep: async () => undefined });
  directory = new PlatformDirectory(runtime.doc, table);
  await directory.ensureDefaults(['a@x.io'], AT);
});

const put = (members: readonly Membership[] | undefined, email: string, role: 'admin' | 'member') =>
  setRole(members ?? [], { organizationId: 'default', email, role, at: AT });

describe('DirectoryWrites.changeRoster', () => {
  it('decides again when another change lands between its read and its write', async () => {
    await writes.changeRoster('default', (m) => put(m, 'b@x.io', 'admin'));
    // Just before this writer's first transaction is sent, another admin demotes b (and commits).
    let interleaved = false;
    const send = runtime.doc.send.bind(runtime.doc);
    const doc = Object.create(runtime.doc, {
      send: {
        value: async (command: unknown, ...rest: unknown[]) => {
          if (command instanceof TransactWriteCommand && !interleaved) {
            interleaved = true;
            await writes.changeRoster('default', (m) => put(m, 'b@x.io', 'member'));
          }
          return (send as (...a: unknown[]) => Promise<unknown>)(command, ...rest);
        },
      },
    });
    const racing = new DirectoryWrites(doc, runtime.config.tables.platform, {
      sleep: async () => undefined,
    });
    const seen: string[][] = [];
    // a demotes itself: allowed on the roster it read (b an admin), refused on the one it reads again.
    const attempt = racing.changeRoster('default', (members) => {
      seen.push((members ?? []).map((m) => `${m.email}:${m.role}`));
      return put(members, 'a@x.io', 'member');
    });
    await expect(attempt).rejects.toThrow(
      'a@x.io is the last admin of organization default: make another member admin first',
    );
    expect(seen).toEqual([
      ['a@x.io:admin', 'b@x.io:admin'],
      ['a@x.io:admin', 'b@x.io:member'],
    ]);
    expect((await directory.members('default')).map((m) => `${m.email}:${m.role}`)).toEqual([
      'a@x.io:admin',
      'b@x.io:member',
    ]);
  });

  it('lets one of two concurrent demotions of the last two admins through, never both', async () => {
    for (let round = 0; round < 5; round++) {
      await writes.changeRoster('default', (m) => put(m, 'a@x.io', 'admin'));
      await writes.changeRoster('default', (m) => put(m, 'b@x.io', 'admin'));
      const results = await Promise.allSettled([
        writes.changeRoster('default', (m) => put(m, 'a@x.io', 'member')),
        writes.changeRoster('default', (m) => put(m, 'b@x.io', 'member')),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(String(rejected.reason)).toMatch(/is the last admin of organization default/);
      const admins = (await directory.members('default')).filter((m) => m.role === 'admin');
      expect(admins).toHaveLength(1);
    }
  });
});

describe('the default organization, once per container', () => {
  it('is written before the first request; a failure is tried again by the next request', async () => {
    const bed = await platformServiceTestbed();
    const { runtime: rt } = bed;
    let failures = 1;
    let defaultReads = 0;
    const send = rt.doc.send.bind(rt.doc);
    const doc = Object.create(rt.doc, {
      send: {
        value: (command: unknown, ...rest: unknown[]) => {
          const key = (command as GetCommand).input?.Key;
          if (command instanceof GetCommand && key?.pk === 'ORG#default' && key.sk === 'ORG') {
            defaultReads++;
            if (failures-- > 0) return Promise.reject(throttlingError('throttled'));
          }
          return (send as (...a: unknown[]) => unknown)(command, ...rest);
        },
      },
    });
    const app = assemblePlatformApp({
      runtime: { ...rt, doc },
      documents: generatedDocuments,
      signingKeys: bed.signingKeys,
    });
    const me = async () =>
      app.request('/api/platform/me', {
        headers: { authorization: `Bearer ${await bed.personToken(ROOT)}` },
      });
    expect((await me()).status).toBe(503);
    const second = await me();
    expect(second.status).toBe(200);
    expect(((await second.json()) as any).data.organizations).toEqual([
      { id: 'default', name: 'Default organization', role: 'admin' },
    ]);
    const readsAfterSecond = defaultReads;
    expect((await me()).status).toBe(200);
    // Done once: later requests do not ask again.
    expect(defaultReads).toBe(readsAfterSecond);
  });
});
