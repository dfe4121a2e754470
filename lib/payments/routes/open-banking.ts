import type { Hono } from 'hono';
import * as v from 'valibot';
import { isEnvironmentId } from '../../environments/environment-id.js';
import { NotFoundError } from '../../errors/index.js';
import { environmentOf } from '../../http/environment.js';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import type { HonoTypes } from '../../http/types.js';
import { openapi } from '../../openapi/describe.js';
import {
  completeLink,
  createLink,
  deleteConnection,
  deleteForwardedUser,
  forwardUser,
  getAttempt,
  type LinkRequest,
} from '../commands/open-banking.js';
import type { RunnerDeps } from '../connectors/runner.js';
import { requireUuid } from '../domain/ids.js';
import { attemptView, clientRedirect, stateMatches } from '../domain/open-banking.js';
import type { PaymentsStores } from '../store/stores.js';
import { taskIdData } from './schemas.js';
import type { StoresOf } from './stores-of.js';

const httpUrl = v.pipe(
  v.string(),
  v.maxLength(2000),
  v.check((s) => {
    try {
      return ['http:', 'https:'].includes(new URL(s).protocol);
    } catch {
      return false;
    }
  }, 'clientRedirectURL must be an http or https URL'),
);
const linkSchema = v.strictObject({
  applicationName: v.optional(v.pipe(v.string(), v.maxLength(256))),
  clientRedirectURL: httpUrl,
});
const linkCreated = v.strictObject({ attemptID: v.string(), link: v.string() });
const attemptFields = {
  id: v.string(),
  psuID: v.string(),
  connectorID: v.string(),
  createdAt: v.string(),
  status: v.picklist(['pending', 'completed', 'exited']),
  clientRedirectURL: v.string(),
  error: v.optional(v.string()),
};
/**
 * The reference's server wraps the attempt in `data`; SDK 7.0.1 reads it unwrapped. Both are answered, so a client
 * of either finds it.
 */
const attemptData = v.strictObject({ ...attemptFields, data: v.strictObject(attemptFields) });

const USER = '/v3/payment-service-users/:paymentServiceUserID/connectors/:connectorID';
const TAGS = ['payment service users'];

export interface OpenBankingRouteOptions {
  /** The platform's public URL: the callback's address given to providers. */
  publicBaseUrl: string;
}

/** The payment service user and the connector a path names. */
const ids = (c: { req: { param(name: string): string } }) => ({
  psuID: requireUuid(c.req.param('paymentServiceUserID'), 'paymentServiceUserID'),
  connectorID: c.req.param('connectorID'),
});

/** Where the provider sends the user back: this platform's callback for the attempt, then the client's URL. */
function linkRequest(
  options: OpenBankingRouteOptions,
  environment: string,
  clientRedirectURL: string,
): LinkRequest {
  return {
    clientRedirectURL,
    callbackURL: (attemptID, state) =>
      `${options.publicBaseUrl}/api/payments/v3/open-banking/${environment}/attempts/${attemptID}/callback?state=${state}`,
  };
}

/** Open banking (docs/api.md §6): users at a connector's provider, link attempts and connections. */
export function openBankingRoutes(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
  options: OpenBankingRouteOptions,
): void {
  v3ForwardPaymentServiceUserToProviderRoute(app, storesOf, deps);
  v3CreateLinkForPaymentServiceUserRoute(app, storesOf, deps, options);
  v3GetPaymentServiceUserLinkAttemptFromConnectorIDRoute(app, storesOf);
  v3UpdateLinkForPaymentServiceUserOnConnectorRoute(app, storesOf, deps, options);
  v3DeletePaymentServiceUserConnectionFromConnectorIDRoute(app, storesOf, deps);
  v3DeletePaymentServiceUserConnectorRoute(app, storesOf, deps);
}

function v3ForwardPaymentServiceUserToProviderRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
): void {
  app.post(
    `${USER}/forward`,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3ForwardPaymentServiceUserToProvider',
        summary: "Register a payment service user at a connector's provider",
        description:
          'Once per connector (400 after). Connectors without users at their provider (generic) answer 400.',
        tags: TAGS,
        responses: { 204: { description: 'Registered.' } },
      },
    ),
    async (c) => {
      const { psuID, connectorID } = ids(c);
      await forwardUser(storesOf(c), psuID, connectorID, deps);
      return c.body(null, 204);
    },
  );
}

function v3CreateLinkForPaymentServiceUserRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
  options: OpenBankingRouteOptions,
): void {
  app.post(
    `${USER}/create-link`,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3CreateLinkForPaymentServiceUser',
        summary: 'Start linking a user to their bank',
        description:
          "Send the user to `link`: the provider brings them back to the platform's callback, which records the connection and redirects to `clientRedirectURL` with `attemptID`, `status` and `connectionID`.",
        tags: TAGS,
        body: linkSchema,
        responses: { 201: { description: 'The attempt and its link.', schema: linkCreated } },
      },
    ),
    async (c) => {
      const { psuID, connectorID } = ids(c);
      const { clientRedirectURL } = await readJsonBody(c, linkSchema);
      const request = linkRequest(options, environmentOf(c), clientRedirectURL);
      return jsonResponse(c, await createLink(storesOf(c), psuID, connectorID, request, deps), 201);
    },
  );
}

function v3GetPaymentServiceUserLinkAttemptFromConnectorIDRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
): void {
  app.get(
    `${USER}/link-attempts/:attemptID`,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3GetPaymentServiceUserLinkAttemptFromConnectorID',
        summary: 'Get a link attempt',
        tags: TAGS,
        responses: { 200: { description: 'The attempt.', schema: attemptData } },
      },
    ),
    async (c) => {
      const { psuID, connectorID } = ids(c);
      const attemptID = requireUuid(c.req.param('attemptID'), 'attemptID');
      const attempt = await getAttempt(storesOf(c), psuID, connectorID, attemptID);
      const view = attemptView(attempt);
      return jsonResponse(c, { ...view, data: view });
    },
  );
}

function v3UpdateLinkForPaymentServiceUserOnConnectorRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
  options: OpenBankingRouteOptions,
): void {
  app.post(
    `${USER}/connections/:connectionID/update-link`,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3UpdateLinkForPaymentServiceUserOnConnector',
        summary: "Renew a user's connection to their bank",
        description: 'A link attempt for an existing connection, completed like create-link.',
        tags: TAGS,
        body: linkSchema,
        responses: { 201: { description: 'The attempt and its link.', schema: linkCreated } },
      },
    ),
    async (c) => {
      const { psuID, connectorID } = ids(c);
      const { clientRedirectURL } = await readJsonBody(c, linkSchema);
      const request = linkRequest(options, environmentOf(c), clientRedirectURL);
      const connectionID = c.req.param('connectionID');
      const created = await createLink(
        storesOf(c),
        psuID,
        connectorID,
        request,
        deps,
        connectionID,
      );
      return jsonResponse(c, created, 201);
    },
  );
}

function v3DeletePaymentServiceUserConnectionFromConnectorIDRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
): void {
  app.delete(
    `${USER}/connections/:connectionID`,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3DeletePaymentServiceUserConnectionFromConnectorID',
        summary: "End a user's connection to their bank",
        tags: TAGS,
        responses: { 202: { description: 'The task.', schema: taskIdData } },
      },
    ),
    async (c) => {
      const { psuID, connectorID } = ids(c);
      const connectionID = c.req.param('connectionID');
      const task = await deleteConnection(storesOf(c), psuID, connectorID, connectionID, deps);
      return jsonResponse(c, { data: { taskID: task.id } }, 202);
    },
  );
}

function v3DeletePaymentServiceUserConnectorRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
): void {
  app.delete(
    USER,
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3DeletePaymentServiceUserConnector',
        summary: "Remove a user from a connector's provider",
        description: 'Its connections there end with it.',
        tags: TAGS,
        responses: { 202: { description: 'The task.', schema: taskIdData } },
      },
    ),
    async (c) => {
      const { psuID, connectorID } = ids(c);
      const task = await deleteForwardedUser(storesOf(c), psuID, connectorID, deps);
      return jsonResponse(c, { data: { taskID: task.id } }, 202);
    },
  );
}

/**
 * The callback a provider sends the user back to. It carries no token (a browser follows it): the attempt's
 * environment is in its path and the attempt's secret `state` in its query, which must match. Registered before the
 * bearer check. `noRedirect=true` answers 204 instead of redirecting (the reference's parameter).
 */
export function openBankingCallbackRoute(
  app: Hono<HonoTypes>,
  storesOf: (environment: string) => PaymentsStores,
  deps: RunnerDeps,
): void {
  app.get(
    '/v3/open-banking/:environment/attempts/:attemptID/callback',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3OpenBankingCallback',
        summary: "A link attempt's callback (no token: its state authenticates it)",
        tags: TAGS,
        responses: {
          204: { description: 'Completed (`noRedirect=true`).' },
          307: { description: "Completed: to the client's URL." },
        },
      },
    ),
    async (c) => {
      const environment = c.req.param('environment');
      const attemptID = requireUuid(c.req.param('attemptID'), 'attemptID');
      const query = c.req.query();
      const notFound = new NotFoundError(`link attempt ${attemptID} not found`);
      if (!isEnvironmentId(environment)) throw notFound;
      const stores = storesOf(environment);
      const attempt = await stores.linkAttempts.get(attemptID);
      if (!attempt || !stateMatches(attempt, query.state ?? '')) throw notFound;
      const ended = await completeLink(stores, attempt, query, deps);
      if (query.noRedirect === 'true') return c.body(null, 204);
      return c.redirect(clientRedirect(ended.attempt, ended.connectionID), 307);
    },
  );
}
