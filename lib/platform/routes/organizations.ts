import type { Hono } from 'hono';
import { readJsonBody } from '../../http/json-body.js';
import type { HonoTypes } from '../../http/types.js';
import { openapi, path } from '../../openapi/describe.js';
import type { PlatformServiceContext } from '../commands/context.js';
import { createOrganization } from '../commands/organizations.js';
import { organizationNotFound } from '../domain/access.js';
import { callerIn } from './caller.js';
import { meData, organizationData, organizationInput, organizationList } from './schemas.js';

export const ORGANIZATION_PARAMETER = path(
  'org',
  'Id of the organization (`default` on a self-hosted deployment).',
);

/** Who the caller is, and their organizations: `/me`, `/organizations`, `/organizations/{org}`. */
export function organizationRoutes(app: Hono<HonoTypes>, ctx: PlatformServiceContext): void {
  getMeRoute(app, ctx);
  listOrganizationsRoute(app, ctx);
  createOrganizationRoute(app, ctx);
  getOrganizationRoute(app, ctx);
}

function getMeRoute(app: Hono<HonoTypes>, ctx: PlatformServiceContext): void {
  app.get(
    '/me',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'getMe',
        summary: 'The caller',
        description:
          'The person (or platform-level client) the token is for, and their organizations with their role.',
        tags: ['organizations'],
        responses: { 200: { description: 'The caller.', schema: meData } },
      },
    ),
    async (c) => {
      const caller = callerIn(c);
      const organizations = await ctx.access.organizationsOf(caller);
      return c.json({
        data: {
          id: caller.id,
          type: caller.type,
          ...(caller.type === 'person' ? { email: caller.email } : {}),
          organizations: organizations.map(({ id, name, role }) => ({ id, name, role })),
        },
      });
    },
  );
}

function listOrganizationsRoute(app: Hono<HonoTypes>, ctx: PlatformServiceContext): void {
  app.get(
    '/organizations',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'listOrganizations',
        summary: "The caller's organizations",
        tags: ['organizations'],
        responses: {
          200: { description: 'Each with the caller’s role, by id.', schema: organizationList },
        },
      },
    ),
    async (c) => c.json({ data: await ctx.access.organizationsOf(callerIn(c)) }),
  );
}

function createOrganizationRoute(app: Hono<HonoTypes>, ctx: PlatformServiceContext): void {
  app.post(
    '/organizations',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'createOrganization',
        summary: 'Create an organization',
        description:
          'The creating person becomes its admin. Only persons who already belong to an organization may create one (no self-service sign-up); clients may not.',
        tags: ['organizations'],
        body: organizationInput,
        responses: { 201: { description: 'The organization.', schema: organizationData } },
      },
    ),
    async (c) => {
      const { name } = await readJsonBody(c, organizationInput);
      return c.json({ data: await createOrganization(ctx, callerIn(c), name) }, 201);
    },
  );
}

function getOrganizationRoute(app: Hono<HonoTypes>, ctx: PlatformServiceContext): void {
  app.get(
    '/organizations/:org',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'getOrganization',
        summary: 'Get an organization',
        description: 'For its members; to anyone else it does not exist (404).',
        tags: ['organizations'],
        parameters: [ORGANIZATION_PARAMETER],
        responses: { 200: { description: 'The organization.', schema: organizationData } },
      },
    ),
    async (c) => {
      const org = c.req.param('org');
      const role = await ctx.access.require(callerIn(c), org, 'member');
      const organization = await ctx.directory.organization(org);
      if (!organization) throw organizationNotFound(org);
      return c.json({ data: { ...organization, role } });
    },
  );
}
