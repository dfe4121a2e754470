import * as v from 'valibot';
import { ENVIRONMENT_ID_PATTERN } from '../../environments/environment-id.js';
import { dataOf, dateTime } from '../../openapi/schemas.js';
import { PERSONAL_TOKEN_LIFETIME_SECONDS, ROLES } from '../../tokens/claims.js';
import { ENVIRONMENT_TYPES } from '../domain/directory.js';

/** The platform service's request and response shapes: validated by its routes, shown in its OpenAPI document. */

/** A name people read: 1–N characters, not only spaces, no control characters. Stored as given. */
const displayName = (max: number) =>
  v.pipe(
    v.string('must be a string'),
    v.minLength(1, 'must not be empty'),
    v.maxLength(max, `must be at most ${max} characters`),
    v.regex(/\S/, 'must not be only spaces'),
    v.regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters'),
  );

const idOf = (what: string) =>
  v.pipe(
    v.string('must be a string'),
    v.regex(ENVIRONMENT_ID_PATTERN, `must be ${what} id (1–40 of a-z, 0-9 and inner hyphens)`),
  );

const role = v.picklist(ROLES, 'must be "admin" or "member"');

export const organizationInput = v.strictObject({ name: displayName(100) });

export const environmentInput = v.strictObject({
  name: displayName(64),
  type: v.picklist(ENVIRONMENT_TYPES, 'must be "sandbox" or "production"'),
});

export const memberInput = v.strictObject({ role });

/** Both optional, and so is the body: `{}` or nothing asks for the only organization's oldest sandbox. */
export const personalTokenInput = v.strictObject({
  environment: v.optional(idOf('an environment')),
  organization: v.optional(idOf('an organization')),
});

const organizationSchema = v.strictObject({
  id: v.string(),
  name: v.string(),
  createdAt: dateTime,
  role: v.pipe(role, v.description("The caller's role in it.")),
});

const environmentSchema = v.strictObject({
  id: v.pipe(
    v.string(),
    v.description('`<slug of the name>-<8 random a-z0-9>`; never given twice.'),
  ),
  organizationId: v.string(),
  name: v.string(),
  type: v.picklist(ENVIRONMENT_TYPES),
  createdAt: dateTime,
});

const memberSchema = v.strictObject({
  id: v.pipe(v.string(), v.description("The person's id (`sub` of their tokens).")),
  email: v.string(),
  role,
  addedAt: dateTime,
});

const meSchema = v.strictObject({
  id: v.string(),
  type: v.picklist(['person', 'client']),
  email: v.optional(v.string()),
  organizations: v.array(v.strictObject({ id: v.string(), name: v.string(), role })),
});

const personalTokenSchema = v.strictObject({
  token: v.pipe(
    v.string(),
    v.description('An environment token: send it as `Authorization: Bearer <token>`.'),
  ),
  tokenType: v.literal('Bearer'),
  expiresIn: v.literal(PERSONAL_TOKEN_LIFETIME_SECONDS),
  expiresAt: dateTime,
  environment: v.string(),
  scope: v.pipe(v.string(), v.description("Space-separated scopes: the person's role's.")),
});

export const meData = dataOf(meSchema);
export const organizationData = dataOf(organizationSchema);
export const organizationList = dataOf(v.array(organizationSchema));
export const environmentData = dataOf(environmentSchema);
export const environmentList = dataOf(v.array(environmentSchema));
export const memberData = dataOf(memberSchema);
export const memberList = dataOf(v.array(memberSchema));
export const personalTokenData = dataOf(personalTokenSchema);

export const platformDocument = {
  service: 'platform',
  title: 'Platform',
  description:
    'Organizations, their sandbox and production environments and their members, and personal tokens. Platform tokens only (a person’s, from the token exchange at `/api/auth/oauth/token`, or a platform-level client’s).',
  schemas: {
    Organization: organizationSchema,
    Environment: environmentSchema,
    Member: memberSchema,
    Me: meSchema,
    PersonalToken: personalTokenSchema,
  },
} as const;
