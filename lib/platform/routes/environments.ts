import type { Hono } from 'hono';
import { readJsonBody } from '../../http/json-body.js';
import type { HonoTypes } from '../../http/types.js';
import { openapi, path } from '../../openapi/describe.js';
import type { PlatformServiceContext } from '../commands/context.js';
import { createEnvironment, deleteEnvironment, readEnvironment } from '../commands/environments.js';
import { callerIn } from './caller.js';
import { ORGANIZATION_PARAMETER } from './organizations.js';
import { environmentData, environmentInput, environmentList } from './schemas.js';

const ENVIRONMENT_PARAMETER = path('env', 'Id of the environment.');

/** An organization's environments: members list and read them, admins create and delete them. */
export function environmentRoutes(app: Hono<HonoTypes>, ctx: PlatformServiceContext): void {
  listEnvironmentsRoute(app, ctx);
  createEnvironmentRoute(app, ctx);
  getEnvironmentRoute(app, ctx);
  deleteEnvironmentRoute(app, ctx);
}

function listEnvironmentsRoute(app: Hono<HonoTypes>, ctx: PlatformServiceContext): void {
  app.get(
    '/organizations/:org/environments',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'listEnvironments',
        summary: "An organization's environments",
        tags: ['environments'],
        parameters: [ORGANIZATION_PARAMETER],
        responses: { 200: { description: 'Oldest first (at most 100).', schema: environmentList } },
      },
    ),
    async (c) => {
      const org = c.req.param('org');
      await ctx.access.require(callerIn(c), org, 'member');
      return c.json({ data: await ctx.directory.environmentsOf(org) });
    },
  );
}

function createEnvironmentRoute(app: Hono<HonoTypes>, ctx: PlatformServiceContext): void {
  app.post(
    '/organizations/:org/environments',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'createEnvironment',
        summary: 'Create an environment',
        description:
          'Admins only. Its id is `<slug of the name, ≤ 24>-<8 random a-z0-9>`, never given before (nor after its deletion).',
        tags: ['environments'],
        parameters: [ORGANIZATION_PARAMETER],
        body: environmentInput,
        responses: { 201: { description: 'The environment.', schema: environmentData } },
      },
    ),
    async (c) => {
      const input = await readJsonBody(c, environmentInput);
      const environment = await createEnvironment(ctx, callerIn(c), c.req.param('org'), input);
      return c.json({ data: environment }, 201);
    },
  );
}

function getEnvironmentRoute(app: Hono<HonoTypes>, ctx: PlatformServiceContext): void {
  app.get(
    '/organizations/:org/environments/:env',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'getEnvironment',
        summary: 'Get an environment',
        tags: ['environments'],
        parameters: [ORGANIZATION_PARAMETER, ENVIRONMENT_PARAMETER],
        responses: { 200: { description: 'The environment.', schema: environmentData } },
      },
    ),
    async (c) => {
      const { org, env } = c.req.param();
      return c.json({ data: await readEnvironment(ctx, callerIn(c), org, env) });
    },
  );
}

function deleteEnvironmentRoute(app: Hono<HonoTypes>, ctx: PlatformServiceContext): void {
  app.delete(
    '/organizations/:org/environments/:env',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'deleteEnvironment',
        summary: 'Delete an empty environment',
        description:
          'Admins only, and only when the environment holds no ledger, webhook config, payment or client (409 `ENVIRONMENT_NOT_EMPTY` names what it holds). Its id is never given again. The `default` environment of the `default` organization is never deleted (409).',
        tags: ['environments'],
        parameters: [ORGANIZATION_PARAMETER, ENVIRONMENT_PARAMETER],
        responses: { 204: { description: 'Deleted.' } },
      },
    ),
    async (c) => {
      const { org, env } = c.req.param();
      await deleteEnvironment(ctx, callerIn(c), org, env);
      return c.body(null, 204);
    },
  );
}
