import type { Hono } from 'hono';
import { NotFoundError } from '../../errors/index.js';
import { environmentOf } from '../../http/environment.js';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import type { HonoTypes } from '../../http/types.js';
import { openapi, PAGE_PARAMETERS, query } from '../../openapi/describe.js';
import { readListQuery } from '../../pagination/cursor.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import { validate } from '../../validation/validate.js';
import {
  configView,
  generateSecret,
  isConfigId,
  newConfig,
  newConfigId,
  type WebhookConfig,
  withSecret,
} from '../domain/config.js';
import { activated } from '../domain/endpoint-health.js';
import { onConfigDeactivated, onConfigDeleted } from '../domain/lifecycle.js';
import type { WebhooksScope } from '../environment-stores.js';
import { CONFIGS_LIST, type ConfigFilter, type ConfigStore } from '../store/config-store.js';
import type { ConfigSchemas } from './requests.js';
import { configData, configPage } from './schemas.js';

export interface ConfigRoutesDeps {
  /** The configs (and, to cancel a config's pending deliveries on delete and deactivate, the deliveries) of an environment. */
  scope: WebhooksScope;
  schemas: ConfigSchemas;
  /** How long a replaced secret keeps verifying. */
  secretOverlapSeconds: number;
}

const FILTERS = ['id', 'endpoint'] as const;
const formatMs = (ms: number) => formatInstant(instantFromMs(ms));

/**
 * Webhook configurations (docs/api.md §4): create, list, get, change, delete, activate, deactivate, change secret;
 * each in the token's environment, where another environment's config is as unknown as one never created.
 */
export function configRoutes(app: Hono<HonoTypes>, deps: ConfigRoutesDeps): void {
  insertConfigRoute(app, deps);
  getManyConfigsRoute(app, deps);
  getConfigRoute(app, deps);
  updateConfigRoute(app, deps);
  deleteConfigRoute(app, deps);
  setActiveRoute(app, deps, 'activate', true);
  setActiveRoute(app, deps, 'deactivate', false);
  changeConfigSecretRoute(app, deps);
}

function insertConfigRoute(app: Hono<HonoTypes>, { scope, schemas }: ConfigRoutesDeps): void {
  app.post(
    '/configs',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'insertConfig',
        summary: 'Create a webhook config',
        description:
          'The service generates the secret when none is given (`whsec_` + base64 of 32 random bytes).',
        tags: ['webhooks: configs'],
        body: schemas.create,
        responses: { 200: { description: 'The config, secret included.', schema: configData } },
      },
    ),
    async (c) => {
      const body = await readJsonBody(c, schemas.create);
      const { configs: store } = scope(environmentOf(c));
      const config = await store.create(newConfig(body, newConfigId(), formatMs(store.now())));
      return jsonResponse(c, { data: configView(config) });
    },
  );
}

function getManyConfigsRoute(app: Hono<HonoTypes>, { scope, schemas }: ConfigRoutesDeps): void {
  app.get(
    '/configs',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'getManyConfigs',
        summary: 'List webhook configs',
        tags: ['webhooks: configs'],
        parameters: [
          ...PAGE_PARAMETERS,
          query('id', 'Only this config.'),
          query('endpoint', 'Only configs of this endpoint.'),
        ],
        responses: { 200: { description: 'A page of configs.', schema: configPage } },
      },
    ),
    async (c) => {
      const query = readListQuery(c.req.query(), CONFIGS_LIST, FILTERS);
      let filter: ConfigFilter;
      if (query.cursor) {
        // A cursor carries its listing's filter (the endpoint's digest); `id` listings never have a next page.
        const digest = query.cursor.f?.endpointDigest;
        filter = digest !== undefined ? { endpointDigest: digest } : {};
      } else {
        const params = validate(
          schemas.filter,
          Object.fromEntries(
            FILTERS.filter((f) => c.req.query(f) !== undefined).map((f) => [f, c.req.query(f)]),
          ),
          'query',
        );
        filter = {};
        if (params.id !== undefined) filter.id = params.id;
        if (params.endpoint !== undefined) filter.endpoint = params.endpoint;
      }
      // An id that cannot be a config id matches nothing, without a read.
      if (filter.id !== undefined && !isConfigId(filter.id))
        return jsonResponse(c, { cursor: { pageSize: query.pageSize, hasMore: false, data: [] } });
      const page = await scope(environmentOf(c)).configs.list(query, filter);
      return jsonResponse(c, { cursor: { ...page, data: page.data.map(configView) } });
    },
  );
}

function getConfigRoute(app: Hono<HonoTypes>, { scope }: ConfigRoutesDeps): void {
  app.get(
    '/configs/:id',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'getConfig',
        summary: 'Get a webhook config',
        tags: ['webhooks: configs'],
        responses: { 200: { description: 'The config.', schema: configData } },
      },
    ),
    async (c) => {
      const id = readConfigId(c.req.param('id'));
      const config = await scope(environmentOf(c)).configs.get(id);
      if (!config) throw notFound(id);
      return jsonResponse(c, { data: configView(config) });
    },
  );
}

function updateConfigRoute(
  app: Hono<HonoTypes>,
  { scope, schemas, secretOverlapSeconds }: ConfigRoutesDeps,
): void {
  app.put(
    '/configs/:id',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'updateConfig',
        summary: 'Change a webhook config',
        description: 'Endpoint, event types, name, rate limit (0 removes it).',
        tags: ['webhooks: configs'],
        body: schemas.update,
        responses: { 200: { description: 'The config.', schema: configData } },
      },
    ),
    async (c) => {
      const id = readConfigId(c.req.param('id'));
      const body = await readJsonBody(c, schemas.update);
      const { configs: store } = scope(environmentOf(c));
      const config = await change(store, id, (current) => {
        let next: WebhookConfig = { ...current };
        if (body.endpoint !== undefined) next.endpoint = body.endpoint;
        if (body.eventTypes !== undefined) next.eventTypes = body.eventTypes;
        if (body.name !== undefined) next.name = body.name;
        if (body.rateLimitPerSecond === 0) delete next.rateLimitPerSecond;
        else if (body.rateLimitPerSecond !== undefined)
          next.rateLimitPerSecond = body.rateLimitPerSecond;
        if (body.secret !== undefined)
          next = withSecret(next, body.secret, store.now(), secretOverlapSeconds, formatMs);
        return next;
      });
      return jsonResponse(c, { data: configView(config) });
    },
  );
}

function deleteConfigRoute(app: Hono<HonoTypes>, { scope }: ConfigRoutesDeps): void {
  app.delete(
    '/configs/:id',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'deleteConfig',
        summary: 'Delete a webhook config',
        description: 'Its pending deliveries are cancelled.',
        tags: ['webhooks: configs'],
        responses: { 200: { description: 'Deleted (empty body).' } },
      },
    ),
    async (c) => {
      const id = readConfigId(c.req.param('id'));
      const { configs: store, deliveries } = scope(environmentOf(c));
      const deleted = await store.delete(id);
      if (!deleted) throw notFound(id);
      try {
        await onConfigDeleted(deleted, deliveries, formatMs(store.now()));
      } catch (err) {
        // The config is gone already, so a retried DELETE would be a 404: answer 200, and leave what was not
        // cancelled to the deliverer, which cancels a missing config's deliveries when their messages arrive.
        c.get('logger').log(
          'warn',
          'webhook config deleted; cancelling its pending deliveries failed',
          {
            configId: id,
            error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
          },
        );
      }
      // The reference platform answers 200 with an empty body; the official SDK reads none.
      return c.body(null, 200);
    },
  );
}

/** `activate` and `deactivate`: one route each, the same but for the state they set. */
function setActiveRoute(
  app: Hono<HonoTypes>,
  { scope }: ConfigRoutesDeps,
  action: 'activate' | 'deactivate',
  active: boolean,
): void {
  app.put(
    `/configs/:id/${action}`,
    openapi(
      OPENAPI_SPECS && {
        operationId: `${action}Config`,
        summary: `${active ? 'Activate' : 'Deactivate'} a webhook config`,
        description: active ? 'Idempotent.' : 'Idempotent; its pending deliveries are cancelled.',
        tags: ['webhooks: configs'],
        responses: { 200: { description: 'The config.', schema: configData } },
      },
    ),
    async (c) => {
      const id = readConfigId(c.req.param('id'));
      const { configs: store, deliveries } = scope(environmentOf(c));
      // Idempotent: already in that state → 200, nothing written, updatedAt unchanged.
      // Activating gives a switched-off endpoint a fresh failing period (domain/endpoint-health.ts).
      const config = await change(store, id, (current) =>
        active ? activated(current) : { ...current, active },
      );
      // After the change: a failure here is a 5xx, and the (idempotent) deactivation can simply be sent again.
      if (!active) await onConfigDeactivated(config, deliveries, formatMs(store.now()));
      return jsonResponse(c, { data: configView(config) });
    },
  );
}

function changeConfigSecretRoute(
  app: Hono<HonoTypes>,
  { scope, schemas, secretOverlapSeconds }: ConfigRoutesDeps,
): void {
  app.put(
    '/configs/:id/secret/change',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'changeConfigSecret',
        summary: "Change a config's secret",
        description:
          'The old secret keeps signing beside the new one for the overlap window (24 h by default).',
        tags: ['webhooks: configs'],
        body: schemas.changeSecret,
        bodyOptional: true,
        responses: { 200: { description: 'The config, new secret included.', schema: configData } },
      },
    ),
    async (c) => {
      const id = readConfigId(c.req.param('id'));
      const body = await readJsonBody(c, schemas.changeSecret, { optional: true });
      // Generated once, outside `decide`, so that a retried attempt stores the same secret.
      const secret = body?.secret || generateSecret();
      const { configs: store } = scope(environmentOf(c));
      const config = await change(store, id, (current) =>
        withSecret(current, secret, store.now(), secretOverlapSeconds, formatMs),
      );
      return jsonResponse(c, { data: configView(config) });
    },
  );
}

/** A config changed by `decide` (retried on a conflict by the store), or 404. */
async function change(
  store: ConfigStore,
  id: string,
  decide: (current: WebhookConfig) => WebhookConfig,
): Promise<WebhookConfig> {
  const config = await store.update(id, decide);
  if (!config) throw notFound(id);
  return config;
}

/** A path id that cannot be a config id is answered like an unknown one, without a read. */
function readConfigId(raw: string): string {
  if (!isConfigId(raw)) throw notFound(raw);
  return raw;
}

const notFound = (id: string) => new NotFoundError(`webhook config ${id.slice(0, 64)} not found`);
