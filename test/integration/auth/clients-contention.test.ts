import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ADMIN, authApp, basic, bearer, FORM, form, tokenFor } from '../../support/auth.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let app: ReturnType<typeof authApp>;
let admin: Record<string, string>;

beforeAll(async () => {
  ({ runtime } = await testTables());
  app = authApp(runtime);
  admin = bearer(await tokenFor(app, ADMIN));
});

const call = (method: string, path: string, body?: unknown) =>
  app.request(`/api/auth${path}`, {
    method,
    headers: body === undefined ? admin : { 'content-type': 'application/json', ...admin },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

interface ClientView {
  id: string;
  name: string;
  metadata: Record<string, string>;
  secrets: Array<{ id: string; name: string }>;
}

describe('one client under contention', () => {
  it('applies 50 concurrent updates, secret creations and deletions, none answered 5xx', async () => {
    const created = (await (await call('POST', '/clients', { name: 'contended' })).json()) as {
      data: ClientView;
    };
    const id = created.data.id;
    const existing: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await call('POST', `/clients/${id}/secrets`, { name: `old-${i}` });
      existing.push(((await res.json()) as { data: { id: string } }).data.id);
    }

    // 30 full replaces, 15 new secrets, 5 revocations: never more than 20 secrets at once, so every one may apply.
    const writers = [
      ...Array.from(
        { length: 30 },
        (_, i) => () =>
          call('PUT', `/clients/${id}`, { name: `name-${i}`, metadata: { writer: String(i) } }),
      ),
      ...Array.from(
        { length: 15 },
        (_, i) => () => call('POST', `/clients/${id}/secrets`, { name: `new-${i}` }),
      ),
      ...existing.map((secretId) => () => call('DELETE', `/clients/${id}/secrets/${secretId}`)),
    ];
    const answers = await Promise.all(writers.map((write) => write()));
    expect(answers).toHaveLength(50);
    expect(answers.map((r) => r.status)).toEqual([
      ...Array(30).fill(200),
      ...Array(15).fill(200),
      ...Array(5).fill(204),
    ]);

    // Every replace applied: each answered the client as its own write left it.
    const replaced = await Promise.all(
      answers.slice(0, 30).map(async (r) => ((await r.json()) as { data: ClientView }).data),
    );
    replaced.forEach((client, i) => {
      expect([client.name, client.metadata]).toEqual([`name-${i}`, { writer: String(i) }]);
    });
    const clears = await Promise.all(
      answers
        .slice(30, 45)
        .map(
          async (r) =>
            ((await r.json()) as { data: { id: string; name: string; clear: string } }).data,
        ),
    );

    const final = ((await (await call('GET', `/clients/${id}`)).json()) as { data: ClientView })
      .data;
    // The last replace to commit wins the options; every secret added is there and every revoked one is gone.
    expect(replaced.map((c) => c.name)).toContain(final.name);
    expect(final.metadata).toEqual({ writer: final.name.slice('name-'.length) });
    expect(final.secrets.map((s) => s.id).sort()).toEqual(clears.map((s) => s.id).sort());
    expect(final.secrets.map((s) => s.name).sort()).toEqual(
      Array.from({ length: 15 }, (_, i) => `new-${i}`).sort(),
    );

    // And each new secret authenticates.
    for (const secret of clears) {
      const res = await app.request('/api/auth/oauth/token', {
        method: 'POST',
        headers: { ...FORM, authorization: basic(id, secret.clear) },
        body: form({ grant_type: 'client_credentials' }),
      });
      expect(res.status).toBe(200);
    }
  });
});
