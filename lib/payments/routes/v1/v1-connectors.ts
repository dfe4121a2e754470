import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import { NotFoundError } from '../../../errors/index.js';
import { readJsonBody } from '../../../http/json-body.js';
import { jsonResponse } from '../../../http/json-response.js';
import type { HonoTypes } from '../../../http/types.js';
import { openapi, PAGE_PARAMETERS } from '../../../openapi/describe.js';
import { readListQuery } from '../../../pagination/cursor.js';
import {
  installConnector,
  resetConnector,
  uninstallConnector,
  updateConnectorConfig,
} from '../../commands/connectors.js';
import {
  allConnectors,
  connectorOfV1Path,
  transferThroughConnector,
} from '../../commands/connectors-v1.js';
import type { RunnerDeps } from '../../connectors/runner.js';
import type { DummypaySettings } from '../../domain/connectors/dummypay-directory.js';
import { parseConnectorConfig, providerSpec } from '../../domain/connectors/providers.js';
import {
  configBodyOfV1,
  configV1View,
  connectorV1View,
  providerConfigsV1,
  scheduleAsV1Task,
} from '../../domain/v1/v1-connectors.js';
import { SCHEDULES_LIST } from '../../store/schedule-store.js';
import { configsData } from '../schemas.js';
import type { StoresOf } from '../stores-of.js';
import { connectorTransferV1InputSchema } from './v1-requests.js';
import {
  configV1Data,
  connectorIdV1Data,
  connectorsV1Data,
  taskV1Data,
  taskV1Page,
  transferV1Created,
} from './v1-schemas.js';

const configBody = v.record(v.string(), v.unknown());
const TAG = ['payments v1'];

/** The connector a v1 path names: `:connector` (its provider) and, when present, `:connectorId`. */
const connectorOf = (c: Context<HonoTypes>, storesOf: StoresOf) =>
  connectorOfV1Path(storesOf(c), c.req.param('connector')!, c.req.param('connectorId'));

/** v1 connectors (docs/api.md §6.1): named by provider, or by provider and id. */
export function connectorV1Routes(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  dummypay: DummypaySettings,
  deps: RunnerDeps,
): void {
  v1ListConnectorsRoute(app, storesOf);
  v1ListConnectorConfigsRoute(app);
  v1InstallConnectorRoute(app, storesOf, dummypay);
  v1ConnectorTransferRoute(app, storesOf, deps);
  for (const base of ['/connectors/:connector', '/connectors/:connector/:connectorId'])
    connectorV1RecordRoutes(app, storesOf, dummypay, base);
}

function v1ListConnectorsRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/connectors',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1ListConnectors',
        summary: 'List installed connectors (v1)',
        tags: TAG,
        responses: {
          200: { description: 'Every connector, oldest first.', schema: connectorsV1Data },
        },
      },
    ),
    async (c) => {
      const connectors = await allConnectors(storesOf(c));
      return jsonResponse(c, { data: connectors.map(connectorV1View) });
    },
  );
}

function v1ListConnectorConfigsRoute(app: Hono<HonoTypes>): void {
  app.get(
    '/connectors/configs',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1ListConnectorConfigs',
        summary: "Each provider's config fields (v1)",
        tags: TAG,
        responses: { 200: { description: 'Fields by provider.', schema: configsData } },
      },
    ),
    (c) => jsonResponse(c, { data: providerConfigsV1() }),
  );
}

function v1InstallConnectorRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  dummypay: DummypaySettings,
): void {
  app.post(
    '/connectors/:connector',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1InstallConnector',
        summary: 'Install a connector (v1)',
        description:
          'As `POST /v3/connectors/install/{connector}`; dummypay names its polling period `filePollingPeriod`.',
        tags: TAG,
        body: configBody,
        responses: { 201: { description: 'The new connector.', schema: connectorIdV1Data } },
      },
    ),
    async (c) => {
      const spec = providerSpec(c.req.param('connector'));
      const body = configBodyOfV1(spec, await readJsonBody(c, configBody));
      const config = parseConnectorConfig(spec, body);
      const connector = await installConnector(storesOf(c), spec.name, config, dummypay);
      return jsonResponse(c, { data: { connectorID: connector.id } }, 201);
    },
  );
}

function v1ConnectorTransferRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
): void {
  app.post(
    '/connectors/:connector/transfers',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1ConnectorTransfer',
        summary: "Transfer between a connector's accounts (v1)",
        description:
          'A transfer initiation sent at once through the only connector of this provider; accounts by id or by their reference at the provider.',
        tags: TAG,
        body: connectorTransferV1InputSchema,
        responses: { 200: { description: 'The transfer initiation.', schema: transferV1Created } },
      },
    ),
    async (c) => {
      const body = await readJsonBody(c, connectorTransferV1InputSchema);
      const connector = await connectorOf(c, storesOf);
      const initiation = await transferThroughConnector(storesOf(c), connector, body, deps);
      return jsonResponse(c, { id: initiation.id });
    },
  );
}

/** The routes of one connector, under both of v1's ways of naming it. */
function connectorV1RecordRoutes(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  dummypay: DummypaySettings,
  base: string,
): void {
  const byId = base.endsWith(':connectorId');
  const suffix = byId ? 'ById' : '';
  const note = byId ? '' : ' The only connector of this provider (several: 400).';

  app.delete(
    base,
    openapi(
      OPENAPI_SPECS &&
        (byId
          ? {
              operationId: 'v1UninstallConnectorById',
              summary: 'Uninstall a connector (v1)',
              description: 'Its accounts, balances, payments and schedules are removed.',
              tags: TAG,
              responses: { 204: { description: 'Uninstalled.' } },
            }
          : {
              operationId: 'v1UninstallConnector',
              summary: 'Uninstall a connector (v1)',
              description: `Its accounts, balances, payments and schedules are removed.${note}`,
              tags: TAG,
              deprecated: true,
              responses: { 204: { description: 'Uninstalled.' } },
            }),
    ),
    async (c) => {
      await uninstallConnector(storesOf(c), (await connectorOf(c, storesOf)).id);
      return c.body(null, 204);
    },
  );
  app.get(
    `${base}/config`,
    openapi(
      OPENAPI_SPECS && {
        operationId: `v1GetConnectorConfig${suffix}`,
        summary: "A connector's config (v1)",
        description: `Secrets are masked.${note}`,
        tags: TAG,
        responses: { 200: { description: 'Its config.', schema: configV1Data } },
      },
    ),
    async (c) => {
      const connector = await connectorOf(c, storesOf);
      return jsonResponse(c, {
        data: configV1View(providerSpec(connector.provider), connector.config),
      });
    },
  );
  app.post(
    `${base}/reset`,
    openapi(
      OPENAPI_SPECS && {
        operationId: `v1ResetConnector${suffix}`,
        summary: 'Reset a connector (v1)',
        description: `Its data is removed and fetched again from the start.${note}`,
        tags: TAG,
        responses: { 204: { description: 'Reset.' } },
      },
    ),
    async (c) => {
      await resetConnector(storesOf(c), (await connectorOf(c, storesOf)).id);
      return c.body(null, 204);
    },
  );

  connectorV1TaskRoutes(app, storesOf, base, suffix, note);
  if (byId) connectorV1ConfigUpdateRoute(app, storesOf, dummypay, base);
}

function connectorV1TaskRoutes(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  base: string,
  suffix: string,
  note: string,
): void {
  app.get(
    `${base}/tasks`,
    openapi(
      OPENAPI_SPECS && {
        operationId: `v1ListConnectorTasks${suffix}`,
        summary: "A connector's tasks (v1)",
        description: `Its periodic fetches (v3's schedules).${note}`,
        tags: TAG,
        parameters: PAGE_PARAMETERS,
        responses: { 200: { description: 'A page of tasks.', schema: taskV1Page } },
      },
    ),
    async (c) => {
      const connector = await connectorOf(c, storesOf);
      const page = await storesOf(c).schedules.list(
        connector.id,
        readListQuery(c.req.query(), SCHEDULES_LIST),
      );
      return jsonResponse(c, { cursor: { ...page, data: page.data.map(scheduleAsV1Task) } });
    },
  );
  app.get(
    `${base}/tasks/:taskId`,
    openapi(
      OPENAPI_SPECS && {
        operationId: `v1GetConnectorTask${suffix}`,
        summary: 'Get a task of a connector (v1)',
        description: note.trim() || undefined,
        tags: TAG,
        responses: { 200: { description: 'The task.', schema: taskV1Data } },
      },
    ),
    async (c) => {
      const connector = await connectorOf(c, storesOf);
      const taskId = c.req.param('taskId');
      const schedule = await storesOf(c).schedules.get(connector.id, taskId);
      if (!schedule) throw new NotFoundError(`task ${taskId.slice(0, 128)} not found`);
      return jsonResponse(c, { data: scheduleAsV1Task(schedule) });
    },
  );
}

function connectorV1ConfigUpdateRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  dummypay: DummypaySettings,
  base: string,
): void {
  app.post(
    `${base}/config`,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1UpdateConnectorConfig',
        summary: "Replace a connector's config (v1)",
        description: 'A secret sent back masked (as read) keeps its stored value.',
        tags: TAG,
        body: configBody,
        responses: { 204: { description: 'Saved.' } },
      },
    ),
    async (c) => {
      const stores = storesOf(c);
      const connector = await connectorOf(c, storesOf);
      const spec = providerSpec(connector.provider);
      const body = configBodyOfV1(spec, await readJsonBody(c, configBody));
      await updateConnectorConfig(stores, connector.id, parseConnectorConfig(spec, body), dummypay);
      return c.body(null, 204);
    },
  );
}
