import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { NotFoundError } from '../../errors/index.js';
import { environmentOf } from '../../http/environment.js';
import { readJsonBody } from '../../http/json-body.js';
import type { HonoTypes } from '../../http/types.js';
import { openapi, PAGE_PARAMETERS } from '../../openapi/describe.js';
import { MAX_PAGE_SIZE, readListQuery } from '../../pagination/cursor.js';
import { clientView, newClient, newSecret, secretView } from '../domain/client.js';
import type { ClientStore } from '../store/client-store.js';
import { clientInputSchema, secretInputSchema } from './requests.js';
import { clientData, clientPage, createdSecretData } from './schemas.js';

/** Ids the service assigns are UUIDs; anything else cannot name a stored client. */
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A path's client or secret id: one the service could have assigned, or 404. */
function idParam(raw: string, what = 'client'): string {
  if (!ID.test(raw)) throw new NotFoundError(`${what} ${raw.slice(0, 64)} not found`);
  return raw;
}

const isoAt = (now: () => number): string => new Date(now()).toISOString();

/**
 * Clients and secrets management (docs/api.md §2). The bearer middleware guards these routes; each works within
 * the environment of the request's token, where another environment's client is unknown (404).
 */
export function clientRoutes(app: Hono<HonoTypes>, store: ClientStore, now: () => number): void {
  createClientRoute(app, store, now);
  listClientsRoute(app, store);
  readClientRoute(app, store);
  updateClientRoute(app, store, now);
  deleteClientRoute(app, store);
  createSecretRoute(app, store, now);
  deleteSecretRoute(app, store, now);
}

function createClientRoute(app: Hono<HonoTypes>, store: ClientStore, now: () => number): void {
  app.post(
    '/clients',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'createClient',
        summary: 'Create a client',
        description:
          "Created in the environment of the request's token; its tokens are for that environment. Without `scopes`, the client gets every read and write scope of ledger, webhooks and payments (not `auth:*`).",
        tags: ['auth: clients'],
        body: clientInputSchema,
        responses: { 201: { description: 'The client.', schema: clientData } },
      },
    ),
    async (c) => {
      const input = await readJsonBody(c, clientInputSchema);
      const client = newClient(input, randomUUID(), isoAt(now));
      await store.create(environmentOf(c), client);
      return c.json({ data: clientView(client) }, 201);
    },
  );
}

function listClientsRoute(app: Hono<HonoTypes>, store: ClientStore): void {
  app.get(
    '/clients',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'listClients',
        summary: 'List clients',
        tags: ['auth: clients'],
        description:
          "The token's environment's clients; static clients (configuration) are not listed. Without `pageSize` and `cursor` (as the reference's SDK calls it), `{data}` with up to the maximum page size of clients, as the reference answers; with either, `{data, cursor}` pages through them.",
        parameters: PAGE_PARAMETERS,
        responses: {
          200: {
            description: 'A page of clients, in `data` and in `cursor.data`.',
            schema: clientPage,
          },
        },
      },
    ),
    async (c) => {
      const raw = c.req.query();
      // The reference answers every client in `data` and the SDK sends no paging: unpaged, one maximal page.
      const unpaged = raw.pageSize === undefined && raw.cursor === undefined;
      const query = readListQuery(
        unpaged ? { ...raw, pageSize: String(MAX_PAGE_SIZE) } : raw,
        'auth.clients',
      );
      const page = await store.list(environmentOf(c), query);
      const data = page.data.map(clientView);
      return c.json(unpaged ? { data } : { data, cursor: { ...page, data } });
    },
  );
}

function readClientRoute(app: Hono<HonoTypes>, store: ClientStore): void {
  app.get(
    '/clients/:id',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'readClient',
        summary: 'Get a client',
        tags: ['auth: clients'],
        responses: { 200: { description: 'The client.', schema: clientData } },
      },
    ),
    async (c) => {
      const id = idParam(c.req.param('id'));
      const client = await store.get(environmentOf(c), id);
      if (!client) throw new NotFoundError(`client ${id} not found`);
      return c.json({ data: clientView(client) });
    },
  );
}

function updateClientRoute(app: Hono<HonoTypes>, store: ClientStore, now: () => number): void {
  app.put(
    '/clients/:id',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'updateClient',
        summary: 'Replace a client',
        description: 'Name, description, scopes and metadata replaced as a whole.',
        tags: ['auth: clients'],
        body: clientInputSchema,
        responses: { 200: { description: 'The client.', schema: clientData } },
      },
    ),
    async (c) => {
      const id = idParam(c.req.param('id'));
      const input = await readJsonBody(c, clientInputSchema);
      return c.json({
        data: clientView(await store.replace(environmentOf(c), id, input, isoAt(now))),
      });
    },
  );
}

function deleteClientRoute(app: Hono<HonoTypes>, store: ClientStore): void {
  app.delete(
    '/clients/:id',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'deleteClient',
        summary: 'Delete a client',
        description: 'Its secrets too; its tokens stop working at the latest when they expire.',
        tags: ['auth: clients'],
        responses: { 204: { description: 'Deleted.' } },
      },
    ),
    async (c) => {
      await store.delete(environmentOf(c), idParam(c.req.param('id')));
      return c.body(null, 204);
    },
  );
}

function createSecretRoute(app: Hono<HonoTypes>, store: ClientStore, now: () => number): void {
  app.post(
    '/clients/:id/secrets',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'createSecret',
        summary: 'Create a secret',
        description: '`clear` is in this answer only: never shown again, never logged.',
        tags: ['auth: clients'],
        body: secretInputSchema,
        responses: {
          200: { description: 'The secret, in clear this once.', schema: createdSecretData },
        },
      },
    ),
    async (c) => {
      const id = idParam(c.req.param('id'));
      const input = await readJsonBody(c, secretInputSchema);
      const { secret, clear } = newSecret(input, randomUUID(), isoAt(now));
      await store.addSecret(environmentOf(c), id, secret);
      return c.json({ data: { ...secretView(secret), clear } });
    },
  );
}

function deleteSecretRoute(app: Hono<HonoTypes>, store: ClientStore, now: () => number): void {
  app.delete(
    '/clients/:id/secrets/:secretId',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'deleteSecret',
        summary: 'Revoke a secret',
        description: "The client's other secrets keep working.",
        tags: ['auth: clients'],
        responses: { 204: { description: 'Revoked.' } },
      },
    ),
    async (c) => {
      const id = idParam(c.req.param('id'));
      const secretId = idParam(c.req.param('secretId'), 'secret');
      await store.deleteSecret(environmentOf(c), id, secretId, isoAt(now));
      return c.body(null, 204);
    },
  );
}
