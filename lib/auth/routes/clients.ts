import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { NotFoundError } from '../../errors/index.js';
import { readJsonBody } from '../../http/json-body.js';
import type { AppEnv } from '../../http/types.js';
import { readListQuery } from '../../pagination/cursor.js';
import {
  clientInputSchema,
  clientView,
  newClient,
  newSecret,
  secretInputSchema,
  secretView,
} from '../domain/client.js';
import type { ClientStore } from '../store/client-store.js';

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
    const client = newClient(input, randomUUID(), iso());
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
    const { secret, clear } = newSecret(input, randomUUID(), iso());
    await store.addSecret(id, secret);
    return c.json({ data: { ...secretView(secret), clear } });
  });

  app.delete('/clients/:id/secrets/:secretId', async (c) => {
    const id = idParam(c.req.param('id'));
    const secretId = idParam(c.req.param('secretId'), 'secret');
    await store.deleteSecret(id, secretId, iso());
    return c.body(null, 204);
  });
}
