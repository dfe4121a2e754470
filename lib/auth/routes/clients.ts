import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { DEFAULT_CLIENT_SCOPES } from '../../bearer/scopes.js';
import { NotFoundError } from '../../errors/index.js';
import { readJsonBody } from '../../http/json-body.js';
import type { AppEnv } from '../../http/types.js';
import { readListQuery } from '../../pagination/cursor.js';
import { clientInputSchema, clientView, type StoredClient, secretInputSchema } from '../domain/client.js';
import type { ClientStore } from '../store/client-store.js';
import { digestSecret, generateSecret, lastDigits } from '../domain/secrets.js';

/** Ids the service assigns are UUIDs; anything else cannot name a stored client. */
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Clients and secrets management (API.md §2). The bearer middleware guards these routes. */
export function clientRoutes(app: Hono<AppEnv>, store: ClientStore, now: () => number): void {
  const iso = () => new Date(now()).toISOString();
  const idParam = (raw: string, what = 'client'): string => {
    if (!ID.test(raw)) throw new NotFoundError(`${what} ${raw.slice(0, 64)} not found`);
    return raw;
  };

  app.post('/clients', async (c) => {
    const input = await readJsonBody(c, clientInputSchema);
    const at = iso();
    const client: StoredClient = {
      id: randomUUID(),
      name: input.name,
      scopes: input.scopes ?? [...DEFAULT_CLIENT_SCOPES],
      metadata: input.metadata ?? {},
      createdAt: at,
      updatedAt: at,
      secrets: {},
    };
    if (input.description !== undefined) client.description = input.description;
    if (input.accessTokenLifetime !== undefined)
      client.accessTokenLifetime = input.accessTokenLifetime;
    await store.create(client);
    return c.json({ data: clientView(client) }, 201);
  });

  app.get('/clients', async (c) => {
    const page = await store.list(readListQuery(c.req.query(), 'auth.clients'));
    return c.json({ cursor: { ...page, data: page.data.map(clientView) } });
  });

  app.get('/clients/:id', async (c) => {
    const id = idParam(c.req.param('id'));
    const client = await store.get(id);
    if (!client) throw new NotFoundError(`client ${id} not found`);
    return c.json({ data: clientView(client) });
  });

  app.put('/clients/:id', async (c) => {
    const id = idParam(c.req.param('id'));
    const input = await readJsonBody(c, clientInputSchema);
    return c.json({ data: clientView(await store.replace(id, input, iso())) });
  });

  app.delete('/clients/:id', async (c) => {
    await store.delete(idParam(c.req.param('id')));
    return c.body(null, 204);
  });

  app.post('/clients/:id/secrets', async (c) => {
    const id = idParam(c.req.param('id'));
    const input = await readJsonBody(c, secretInputSchema);
    const clear = generateSecret();
    const secret = {
      id: randomUUID(),
      name: input.name,
      digest: digestSecret(clear),
      lastDigits: lastDigits(clear),
      metadata: input.metadata ?? {},
      createdAt: iso(),
    };
    await store.addSecret(id, secret);
    const { digest: _digest, ...shown } = secret;
    return c.json({ data: { ...shown, clear } });
  });

  app.delete('/clients/:id/secrets/:secretId', async (c) => {
    const id = idParam(c.req.param('id'));
    const secretId = idParam(c.req.param('secretId'), 'secret');
    await store.deleteSecret(id, secretId, iso());
    return c.body(null, 204);
  });
}
