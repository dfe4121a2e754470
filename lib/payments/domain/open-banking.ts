import { timingSafeEqual } from 'node:crypto';
import { ValidationError } from '../../errors/index.js';

/**
 * Open banking (docs/api.md §6): a payment service user forwarded to a connector (the provider knows them), link
 * attempts (the user is sent to the provider to grant access to their bank, then back to the platform's callback)
 * and the connections those attempts make.
 */

/** A payment service user known to a connector's provider. Its id is `<psuID>.<connectorID>`. */
export interface ForwardedUser {
  id: string;
  createdAt: string;
  psuID: string;
  connectorID: string;
  /** The provider's id of the user. */
  pspUserID: string;
  /** The user's accesses to their banks through this connector, oldest first. */
  connections: Connection[];
}

export type AttemptStatus = 'pending' | 'completed' | 'exited';

/** One link attempt: created by create-link or update-link, ended by the callback. */
export interface LinkAttempt {
  id: string;
  createdAt: string;
  psuID: string;
  connectorID: string;
  status: AttemptStatus;
  clientRedirectURL: string;
  /** The secret the callback must bring back: only the link the provider was given carries it. */
  state: string;
  /** An update-link attempt renews this connection. */
  connectionID?: string;
  error?: string;
}

/** A user's access to their bank through a connector (kept in the forwarded user: one item, one write). */
export interface Connection {
  connectionID: string;
  createdAt: string;
  updatedAt: string;
}

/** At most this many connections per user and connector: they live in one item. */
export const MAX_CONNECTIONS = 100;

export const forwardedUserId = (psuID: string, connectorID: string) => `${psuID}.${connectorID}`;

/** The user with a connection made or renewed at `at` (an existing one keeps its creation time). */
export function withConnection(
  user: ForwardedUser,
  connectionID: string,
  at: string,
): ForwardedUser {
  const existing = user.connections.find((c) => c.connectionID === connectionID);
  if (!existing && user.connections.length >= MAX_CONNECTIONS)
    throw new ValidationError(`a user holds at most ${MAX_CONNECTIONS} connections per connector`);
  const others = user.connections.filter((c) => c.connectionID !== connectionID);
  return {
    ...user,
    connections: [...others, { connectionID, createdAt: existing?.createdAt ?? at, updatedAt: at }],
  };
}

/** The attempt as the API answers it (the reference's shape: never the state). */
export function attemptView(a: LinkAttempt): Record<string, unknown> {
  return {
    id: a.id,
    psuID: a.psuID,
    connectorID: a.connectorID,
    createdAt: a.createdAt,
    status: a.status,
    clientRedirectURL: a.clientRedirectURL,
    ...(a.error !== undefined ? { error: a.error } : {}),
  };
}

/** Whether a callback's state is the attempt's (compared in constant time). */
export function stateMatches(attempt: LinkAttempt, candidate: string): boolean {
  const a = Buffer.from(attempt.state);
  const b = Buffer.from(candidate);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Where the callback sends the user back: the client's URL with the attempt's outcome added. */
export function clientRedirect(attempt: LinkAttempt, connectionID?: string): string {
  const url = new URL(attempt.clientRedirectURL);
  url.searchParams.set('attemptID', attempt.id);
  url.searchParams.set('status', attempt.status);
  if (connectionID !== undefined) url.searchParams.set('connectionID', connectionID);
  return url.toString();
}
