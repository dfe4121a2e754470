import type { Hono } from 'hono';
import { readJsonBody } from '../../http/json-body.js';
import type { HonoTypes } from '../../http/types.js';
import { openapi, path } from '../../openapi/describe.js';
import type { PlatformServiceContext } from '../commands/context.js';
import { putMember, removeMember } from '../commands/members.js';
import { type Membership, personId } from '../domain/directory.js';
import { callerIn, emailParam } from './caller.js';
import { ORGANIZATION_PARAMETER } from './organizations.js';
import { memberData, memberInput, memberList } from './schemas.js';

const EMAIL_PARAMETER = path('email', 'The person’s email (case does not matter), URL-encoded.');

const memberView = ({ email, role, addedAt }: Membership) => ({
  id: personId(email),
  email,
  role,
  addedAt,
});

/** An organization's members: members list them, admins add, change and remove them. */
export function memberRoutes(app: Hono<HonoTypes>, ctx: PlatformServiceContext): void {
  listMembersRoute(app, ctx);
  putMemberRoute(app, ctx);
  deleteMemberRoute(app, ctx);
}

function listMembersRoute(app: Hono<HonoTypes>, ctx: PlatformServiceContext): void {
  app.get(
    '/organizations/:org/members',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'listMembers',
        summary: "An organization's members",
        tags: ['members'],
        parameters: [ORGANIZATION_PARAMETER],
        responses: { 200: { description: 'By email (at most 1000).', schema: memberList } },
      },
    ),
    async (c) => {
      const org = c.req.param('org');
      await ctx.access.require(callerIn(c), org, 'member');
      return c.json({ data: (await ctx.directory.members(org)).map(memberView) });
    },
  );
}

function putMemberRoute(app: Hono<HonoTypes>, ctx: PlatformServiceContext): void {
  app.put(
    '/organizations/:org/members/:email',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'putMember',
        summary: 'Add a member, or change their role',
        description:
          'Admins only. The person need not have logged in yet. Demoting the last admin is refused (409).',
        tags: ['members'],
        parameters: [ORGANIZATION_PARAMETER, EMAIL_PARAMETER],
        body: memberInput,
        responses: { 200: { description: 'The membership.', schema: memberData } },
      },
    ),
    async (c) => {
      const email = emailParam(c);
      const { role } = await readJsonBody(c, memberInput);
      const membership = await putMember(ctx, callerIn(c), c.req.param('org'), { email, role });
      return c.json({ data: memberView(membership) });
    },
  );
}

function deleteMemberRoute(app: Hono<HonoTypes>, ctx: PlatformServiceContext): void {
  app.delete(
    '/organizations/:org/members/:email',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'deleteMember',
        summary: 'Remove a member',
        description:
          'Admins only. Removing the last admin is refused (409). The person gets no new token for the organization from then on; one they hold stops at its expiry.',
        tags: ['members'],
        parameters: [ORGANIZATION_PARAMETER, EMAIL_PARAMETER],
        responses: { 204: { description: 'Removed.' } },
      },
    ),
    async (c) => {
      await removeMember(ctx, callerIn(c), c.req.param('org'), emailParam(c));
      return c.body(null, 204);
    },
  );
}
