import type { Hono } from 'hono';
import { NotFoundError } from '../../errors/index.js';
import { environmentOf } from '../../http/environment.js';
import type { HonoTypes } from '../../http/types.js';
import { openapi } from '../../openapi/describe.js';
import { USER_ID, userView } from '../domain/user.js';
import type { EnvironmentPersons } from '../store/environment-persons.js';
import { userData, userList } from './schemas.js';

/**
 * The persons known to the token's environment (the SDK's listUsers and readUser): members of its organization who
 * have logged in. The bearer middleware guards these routes (`auth:read`).
 */
export function userRoutes(app: Hono<HonoTypes>, persons: EnvironmentPersons): void {
  listUsersRoute(app, persons);
  readUserRoute(app, persons);
}

function listUsersRoute(app: Hono<HonoTypes>, persons: EnvironmentPersons): void {
  app.get(
    '/users',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'listUsers',
        summary: 'List users',
        description:
          "The persons known to the token's environment: the members of its organization who have logged in, by email. Not paginated: an organization has at most 1000 members.",
        tags: ['auth: users'],
        responses: { 200: { description: 'The persons.', schema: userList } },
      },
    ),
    async (c) => {
      const profiles = await persons.list(environmentOf(c));
      return c.json({ data: profiles.map(userView) });
    },
  );
}

function readUserRoute(app: Hono<HonoTypes>, persons: EnvironmentPersons): void {
  app.get(
    '/users/:userId',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'readUser',
        summary: 'Get a user',
        description:
          "A person of the token's environment's organization; anyone else is not found.",
        tags: ['auth: users'],
        responses: { 200: { description: 'The person.', schema: userData } },
      },
    ),
    async (c) => {
      const id = c.req.param('userId');
      const profile = USER_ID.test(id) ? await persons.read(environmentOf(c), id) : undefined;
      if (!profile) throw new NotFoundError(`user ${id.slice(0, 64)} not found`);
      return c.json({ data: userView(profile) });
    },
  );
}
