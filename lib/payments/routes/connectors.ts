import type { Hono } from 'hono';
import * as v from 'valibot';
import { NotFoundError } from '../../errors/index.js';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import type { HonoTypes } from '../../http/types.js';
import { openapi, PAGE_PARAMETERS } from '../../openapi/describe.js';
import { readListQuery } from '../../pagination/cursor.js';
import {
  installConnector,
  requireConnector,
  resetConnector,
  uninstallConnector,
  updateConnectorConfig,
} from '../commands/connectors.js';
import { connectorView } from '../domain/connectors/connector.js';
import type { DummypaySettings } from '../domain/connectors/dummypay-directory.js';
import {
  configView,
  PROVIDERS,
  parseConnectorConfig,
  providerConfigs,
  providerSpec,
} from '../domain/connectors/providers.js';
import { instanceView, scheduleView, taskView } from '../domain/connectors/tasks.js';
import { CONNECTOR_KIND } from '../store/kinds.js';
import { INSTANCES_LIST, SCHEDULES_LIST } from '../store/schedule-store.js';
import {
  capabilitiesByProvider,
  capabilityList,
  configData,
  configsData,
  connectorPage,
  createdId,
  instancePage,
  scheduleData,
  schedulePage,
  taskData,
  taskIdData,
} from './schemas.js';
import type { StoresOf } from './stores-of.js';

/** A config body: its provider's fields, checked against the provider the path names. */
const configBody = v.record(v.string(), v.unknown());

/** Connectors (docs/api.md §6): install, configure, reset, uninstall; their schedules, runs and tasks. */
export function connectorRoutes(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  dummypay: DummypaySettings,
): void {
  v3InstallConnectorRoute(app, storesOf, dummypay);
  v3ListConnectorsRoute(app, storesOf);
  v3ListConnectorConfigsRoute(app);
  v3ListConnectorCapabilitiesRoute(app);
  connectorRecordRoutes(app, storesOf, dummypay);
  scheduleRoutes(app, storesOf);
}

function v3InstallConnectorRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  dummypay: DummypaySettings,
): void {
  app.post(
    '/v3/connectors/install/:connector',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3InstallConnector',
        summary: 'Install a connector',
        description:
          'The config is checked against the provider (`generic`, `dummypay`); secrets are stored and never answered. Its tasks start at once.',
        tags: ['connectors'],
        body: configBody,
        responses: { 202: { description: 'The id of the new connector.', schema: createdId } },
      },
    ),
    async (c) => {
      const spec = providerSpec(c.req.param('connector'));
      const config = parseConnectorConfig(spec, await readJsonBody(c, configBody));
      const connector = await installConnector(storesOf(c), spec.name, config, dummypay);
      return jsonResponse(c, { data: connector.id }, 202);
    },
  );
}

function v3ListConnectorsRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/v3/connectors',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3ListConnectors',
        summary: 'List connectors',
        tags: ['connectors'],
        parameters: PAGE_PARAMETERS,
        responses: {
          200: { description: 'A page of connectors, oldest first.', schema: connectorPage },
        },
      },
    ),
    async (c) => {
      const page = await storesOf(c).connectors.list(
        readListQuery(c.req.query(), CONNECTOR_KIND.list),
      );
      return jsonResponse(c, { cursor: { ...page, data: page.data.map(connectorView) } });
    },
  );
}

function v3ListConnectorConfigsRoute(app: Hono<HonoTypes>): void {
  app.get(
    '/v3/connectors/configs',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3ListConnectorConfigs',
        summary: "Each provider's config fields",
        tags: ['connectors'],
        responses: { 200: { description: 'Fields by provider.', schema: configsData } },
      },
    ),
    (c) => jsonResponse(c, { data: providerConfigs() }),
  );
}

function v3ListConnectorCapabilitiesRoute(app: Hono<HonoTypes>): void {
  app.get(
    '/v3/connectors/capabilities',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3ListConnectorCapabilities',
        summary: "Each provider's capabilities",
        tags: ['connectors'],
        responses: {
          200: { description: 'Capabilities by provider.', schema: capabilitiesByProvider },
        },
      },
    ),
    (c) =>
      jsonResponse(c, {
        data: Object.fromEntries(Object.values(PROVIDERS).map((p) => [p.name, p.capabilities])),
      }),
  );
}

function connectorRecordRoutes(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  dummypay: DummypaySettings,
): void {
  v3GetConnectorCapabilitiesRoute(app, storesOf);
  v3GetConnectorConfigRoute(app, storesOf);
  v3UpdateConnectorConfigRoute(app, storesOf, dummypay);
  v3UninstallConnectorRoute(app, storesOf);
  v3ResetConnectorRoute(app, storesOf);
  v3GetTaskRoute(app, storesOf);
}

function v3GetConnectorCapabilitiesRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/v3/connectors/:connectorID/capabilities',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3GetConnectorCapabilities',
        summary: "A connector's capabilities",
        tags: ['connectors'],
        responses: { 200: { description: 'Its capabilities.', schema: capabilityList } },
      },
    ),
    async (c) => {
      const connector = await requireConnector(storesOf(c), c.req.param('connectorID'));
      return jsonResponse(c, { data: providerSpec(connector.provider).capabilities });
    },
  );
}

function v3GetConnectorConfigRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/v3/connectors/:connectorID/config',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3GetConnectorConfig',
        summary: "A connector's config",
        description: 'Secrets are masked.',
        tags: ['connectors'],
        responses: { 200: { description: 'Its config.', schema: configData } },
      },
    ),
    async (c) => {
      const connector = await requireConnector(storesOf(c), c.req.param('connectorID'));
      return jsonResponse(c, {
        data: configView(providerSpec(connector.provider), connector.config),
      });
    },
  );
}

function v3UpdateConnectorConfigRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  dummypay: DummypaySettings,
): void {
  app.patch(
    '/v3/connectors/:connectorID/config',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3UpdateConnectorConfig',
        summary: "Replace a connector's config",
        description: 'A secret sent back masked (as read) keeps its stored value.',
        tags: ['connectors'],
        body: configBody,
        responses: { 204: { description: 'Saved.' } },
      },
    ),
    async (c) => {
      const stores = storesOf(c);
      const connector = await requireConnector(stores, c.req.param('connectorID'));
      const spec = providerSpec(connector.provider);
      const config = parseConnectorConfig(spec, await readJsonBody(c, configBody));
      await updateConnectorConfig(stores, connector.id, config, dummypay);
      return c.body(null, 204);
    },
  );
}

function v3UninstallConnectorRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.delete(
    '/v3/connectors/:connectorID',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3UninstallConnector',
        summary: 'Uninstall a connector',
        description:
          'Its accounts, balances, payments and schedules are removed. The task tells how it went.',
        tags: ['connectors'],
        responses: { 202: { description: 'The uninstall task.', schema: taskIdData } },
      },
    ),
    async (c) => {
      const task = await uninstallConnector(storesOf(c), c.req.param('connectorID'));
      return jsonResponse(c, { data: { taskID: task.id } }, 202);
    },
  );
}

function v3ResetConnectorRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.post(
    '/v3/connectors/:connectorID/reset',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3ResetConnector',
        summary: 'Reset a connector',
        description:
          'Its data is removed and fetched again from the start. The task tells how it went.',
        tags: ['connectors'],
        responses: { 202: { description: 'The id of the reset task.', schema: createdId } },
      },
    ),
    async (c) => {
      const task = await resetConnector(storesOf(c), c.req.param('connectorID'));
      return jsonResponse(c, { data: task.id }, 202);
    },
  );
}

function v3GetTaskRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/v3/tasks/:taskID',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3GetTask',
        summary: 'Get a task',
        tags: ['connectors'],
        responses: { 200: { description: 'The task.', schema: taskData } },
      },
    ),
    async (c) => {
      const id = c.req.param('taskID');
      const task = /^[0-9a-f-]{36}$/.test(id) ? await storesOf(c).tasks.get(id) : undefined;
      if (!task) throw new NotFoundError(`task ${id.slice(0, 64)} not found`);
      return jsonResponse(c, { data: taskView(task) });
    },
  );
}

function scheduleRoutes(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  v3ListConnectorSchedulesRoute(app, storesOf);
  v3GetConnectorScheduleRoute(app, storesOf);
  v3ListConnectorScheduleInstancesRoute(app, storesOf);
}

function v3ListConnectorSchedulesRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/v3/connectors/:connectorID/schedules',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3ListConnectorSchedules',
        summary: "A connector's schedules",
        tags: ['connectors'],
        parameters: PAGE_PARAMETERS,
        responses: { 200: { description: 'A page of schedules.', schema: schedulePage } },
      },
    ),
    async (c) => {
      const stores = storesOf(c);
      const connector = await requireConnector(stores, c.req.param('connectorID'));
      const page = await stores.schedules.list(
        connector.id,
        readListQuery(c.req.query(), SCHEDULES_LIST),
      );
      return jsonResponse(c, { cursor: { ...page, data: page.data.map(scheduleView) } });
    },
  );
}

function v3GetConnectorScheduleRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/v3/connectors/:connectorID/schedules/:scheduleID',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3GetConnectorSchedule',
        summary: 'Get a schedule',
        tags: ['connectors'],
        responses: { 200: { description: 'The schedule.', schema: scheduleData } },
      },
    ),
    async (c) => {
      const stores = storesOf(c);
      const connector = await requireConnector(stores, c.req.param('connectorID'));
      const schedule = await stores.schedules.get(connector.id, c.req.param('scheduleID'));
      if (!schedule)
        throw new NotFoundError(`schedule ${c.req.param('scheduleID').slice(0, 128)} not found`);
      return jsonResponse(c, { data: scheduleView(schedule) });
    },
  );
}

function v3ListConnectorScheduleInstancesRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/v3/connectors/:connectorID/schedules/:scheduleID/instances',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3ListConnectorScheduleInstances',
        summary: "A schedule's runs, newest first",
        tags: ['connectors'],
        parameters: PAGE_PARAMETERS,
        responses: { 200: { description: 'A page of runs.', schema: instancePage } },
      },
    ),
    async (c) => {
      const stores = storesOf(c);
      const connector = await requireConnector(stores, c.req.param('connectorID'));
      const scheduleID = c.req.param('scheduleID');
      if (!(await stores.schedules.get(connector.id, scheduleID)))
        throw new NotFoundError(`schedule ${scheduleID.slice(0, 128)} not found`);
      const page = await stores.schedules.instances(
        connector.id,
        scheduleID,
        readListQuery(c.req.query(), INSTANCES_LIST),
      );
      return jsonResponse(c, { cursor: { ...page, data: page.data.map(instanceView) } });
    },
  );
}
