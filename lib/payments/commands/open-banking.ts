import { randomBytes } from 'node:crypto';
import { NotFoundError, ValidationError } from '../../errors/index.js';
import type { OpenBankingProvider } from '../connectors/provider.js';
import { clientOf, type RunnerDeps } from '../connectors/runner.js';
import type { Connector } from '../domain/connectors/connector.js';
import type { Task } from '../domain/connectors/tasks.js';
import { newRecordId } from '../domain/ids.js';
import {
  type ForwardedUser,
  forwardedUserId,
  type LinkAttempt,
  withConnection,
} from '../domain/open-banking.js';
import type { PaymentsStores } from '../store/stores.js';
import { nowText } from './clock.js';
import { finishTask, requireConnector, startTask } from './connectors.js';

/**
 * Open banking (docs/api.md §6): the reference's flow, run within the requests. A user is forwarded to a connector
 * (its provider registers them), a link attempt sends them to the provider, the provider sends them back to the
 * callback, which records the connection and sends them on to the client's URL.
 */

export interface LinkRequest {
  /** The public URL of the callback for an attempt id and its state. */
  callbackURL: (attemptID: string, state: string) => string;
  clientRedirectURL: string;
}

async function openBankingOf(
  stores: PaymentsStores,
  connectorID: string,
  deps: RunnerDeps,
): Promise<{ connector: Connector; provider: OpenBankingProvider }> {
  const connector = await requireConnector(stores, connectorID);
  const provider = clientOf(connector, deps).openBanking;
  if (!provider)
    throw new ValidationError(
      `connector ${connectorID}: the ${connector.provider} connector has no users or bank links at its provider`,
    );
  return { connector, provider };
}

async function requireUser(stores: PaymentsStores, psuID: string): Promise<void> {
  if (!(await stores.users.get(psuID)))
    throw new NotFoundError(`payment service user ${psuID} not found`);
}

async function requireForwarded(
  stores: PaymentsStores,
  psuID: string,
  connectorID: string,
): Promise<ForwardedUser> {
  await requireUser(stores, psuID);
  const user = await stores.forwardedUsers.get(forwardedUserId(psuID, connectorID));
  if (!user)
    throw new NotFoundError(
      `payment service user ${psuID} was not forwarded to connector ${connectorID}`,
    );
  return user;
}

/** Registers a user at the connector's provider, once (the reference refuses a second time with a 400). */
export async function forwardUser(
  stores: PaymentsStores,
  psuID: string,
  connectorID: string,
  deps: RunnerDeps,
): Promise<void> {
  const user = await stores.users.get(psuID);
  if (!user) throw new NotFoundError(`payment service user ${psuID} not found`);
  const { provider } = await openBankingOf(stores, connectorID, deps);
  const id = forwardedUserId(psuID, connectorID);
  if (await stores.forwardedUsers.get(id))
    throw new ValidationError(`payment service user ${psuID} already exists on this connector`);
  const { pspUserID } = await provider.createUser({ id: psuID, name: user.name });
  await stores.forwardedUsers.save(id, (current) => {
    if (current)
      throw new ValidationError(`payment service user ${psuID} already exists on this connector`);
    return { id, createdAt: nowText(stores), psuID, connectorID, pspUserID, connections: [] };
  });
}

/** A link attempt (a new connection, or the renewal of `connectionID`): its id and the link to send the user to. */
export async function createLink(
  stores: PaymentsStores,
  psuID: string,
  connectorID: string,
  request: LinkRequest,
  deps: RunnerDeps,
  connectionID?: string,
): Promise<{ attemptID: string; link: string }> {
  const user = await requireForwarded(stores, psuID, connectorID);
  const { provider } = await openBankingOf(stores, connectorID, deps);
  if (connectionID !== undefined) requireConnection(user, connectionID);
  const attempt: LinkAttempt = {
    id: newRecordId(),
    createdAt: nowText(stores),
    psuID,
    connectorID,
    status: 'pending',
    clientRedirectURL: request.clientRedirectURL,
    state: randomBytes(24).toString('base64url'),
    ...(connectionID !== undefined ? { connectionID } : {}),
  };
  await stores.linkAttempts.save(attempt.id, () => attempt);
  const { link } = await provider.createLink({
    attemptID: attempt.id,
    pspUserID: user.pspUserID,
    callbackURL: request.callbackURL(attempt.id, attempt.state),
    ...(connectionID !== undefined ? { connectionID } : {}),
  });
  return { attemptID: attempt.id, link };
}

export async function getAttempt(
  stores: PaymentsStores,
  psuID: string,
  connectorID: string,
  attemptID: string,
): Promise<LinkAttempt> {
  const attempt = await stores.linkAttempts.get(attemptID);
  if (!attempt || attempt.psuID !== psuID || attempt.connectorID !== connectorID)
    throw new NotFoundError(`link attempt ${attemptID} not found`);
  return attempt;
}

function requireConnection(user: ForwardedUser, connectionID: string): void {
  if (!user.connections.some((c) => c.connectionID === connectionID))
    throw new NotFoundError(`connection ${connectionID.slice(0, 256)} not found`);
}

/**
 * The callback: a pending attempt whose state matches is ended by what the provider brought back — completed with
 * its connection saved (or renewed), or exited with the provider's reason. The attempt and the connection are
 * what the client then reads; a second call of the same callback finds the attempt ended (400).
 */
export async function completeLink(
  stores: PaymentsStores,
  attempt: LinkAttempt,
  query: Record<string, string>,
  deps: RunnerDeps,
): Promise<{ attempt: LinkAttempt; connectionID?: string }> {
  if (attempt.status !== 'pending')
    throw new ValidationError(`link attempt ${attempt.id} already ended (${attempt.status})`);
  const { provider } = await openBankingOf(stores, attempt.connectorID, deps);
  const outcome = await provider.completeLink(query);
  const now = nowText(stores);
  if ('error' in outcome) {
    const ended = await endAttempt(stores, attempt.id, { status: 'exited', error: outcome.error });
    return { attempt: ended };
  }
  const connectionID = attempt.connectionID ?? outcome.connectionID;
  const userId = forwardedUserId(attempt.psuID, attempt.connectorID);
  await stores.forwardedUsers.save(userId, (current) => {
    if (!current) throw new ValidationError('the user is no longer forwarded to this connector');
    return withConnection(current, connectionID, now);
  });
  const ended = await endAttempt(stores, attempt.id, { status: 'completed' });
  return { attempt: ended, connectionID };
}

function endAttempt(
  stores: PaymentsStores,
  id: string,
  end: { status: 'completed' | 'exited'; error?: string },
): Promise<LinkAttempt> {
  return stores.linkAttempts.save(id, (current) => {
    if (current?.status !== 'pending')
      throw new ValidationError(`link attempt ${id} already ended`);
    return { ...current, ...end };
  });
}

/** Ends a connection at the provider and here, as a task (the reference's shape). */
export async function deleteConnection(
  stores: PaymentsStores,
  psuID: string,
  connectorID: string,
  connectionID: string,
  deps: RunnerDeps,
): Promise<Task> {
  const user = await requireForwarded(stores, psuID, connectorID);
  const { provider } = await openBankingOf(stores, connectorID, deps);
  requireConnection(user, connectionID);
  const task = await startTask(stores, connectorID);
  try {
    await provider.deleteConnection(user.pspUserID, connectionID);
    await stores.forwardedUsers.save(user.id, (current) => {
      if (!current) throw new NotFoundError(`connection ${connectionID} not found`);
      const connections = current.connections.filter((c) => c.connectionID !== connectionID);
      return { ...current, connections };
    });
  } catch (err) {
    return finishTask(stores, task, err);
  }
  return finishTask(stores, task);
}

/** Removes a user from a connector's provider, with its connections there, as a task. */
export async function deleteForwardedUser(
  stores: PaymentsStores,
  psuID: string,
  connectorID: string,
  deps: RunnerDeps,
): Promise<Task> {
  const user = await requireForwarded(stores, psuID, connectorID);
  const { provider } = await openBankingOf(stores, connectorID, deps);
  const task = await startTask(stores, connectorID);
  try {
    await provider.deleteUser(user.pspUserID);
    await stores.forwardedUsers.remove(user.id);
  } catch (err) {
    return finishTask(stores, task, err);
  }
  return finishTask(stores, task);
}
