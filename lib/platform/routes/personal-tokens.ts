import type { Hono } from 'hono';
import * as v from 'valibot';
import { readJsonBody } from '../../http/json-body.js';
import type { HonoTypes } from '../../http/types.js';
import { openapi } from '../../openapi/describe.js';
import type { PlatformServiceContext } from '../commands/context.js';
import { issuePersonalToken } from '../commands/personal-token.js';
import { callerIn } from './caller.js';
import { personalTokenData, personalTokenInput } from './schemas.js';

/** `POST /personal-tokens`: a five-minute environment token for the person, for command-line use. */
export function personalTokenRoutes(app: Hono<HonoTypes>, ctx: PlatformServiceContext): void {
  app.post(
    '/personal-tokens',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'createPersonalToken',
        summary: 'Get a personal token',
        description:
          'Persons only. An environment token for the person, valid exactly 5 minutes, not refreshable, with their role’s scopes: for the environment named, else the oldest sandbox environment of the organization named (or of the person’s only one). The organization must have a sandbox environment: otherwise 400 `NO_SANDBOX_ENVIRONMENT` and nothing is issued.',
        tags: ['personal tokens'],
        body: personalTokenInput,
        bodyOptional: true,
        responses: { 201: { description: 'The token.', schema: personalTokenData } },
      },
    ),
    async (c) => {
      const body = v.optional(personalTokenInput);
      const request = (await readJsonBody(c, body, { optional: true })) ?? {};
      return c.json({ data: await issuePersonalToken(ctx, callerIn(c), request) }, 201);
    },
  );
}
