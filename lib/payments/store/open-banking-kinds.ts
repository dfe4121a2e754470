import type { ForwardedUser, LinkAttempt } from '../domain/open-banking.js';
import type { RecordKind } from './record-store.js';

/** How open banking's records are stored: plain attributes, no events (the reference emits none for them here). */

const same = <T>(a: T, b: T) => JSON.stringify(a) === JSON.stringify(b);
const optional = (item: Record<string, unknown>, field: string) =>
  item[field] === undefined ? {} : { [field]: String(item[field]) };

export const FORWARDED_USER_KIND: RecordKind<ForwardedUser> = {
  name: 'PSUCONNECTOR',
  list: 'payment-service-user-connectors',
  toItem: (u) => ({ ...u }),
  fromItem: (item) => ({
    id: String(item.id),
    createdAt: String(item.createdAt),
    psuID: String(item.psuID),
    connectorID: String(item.connectorID),
    pspUserID: String(item.pspUserID),
    connections: ((item.connections as Record<string, unknown>[] | undefined) ?? []).map((c) => ({
      connectionID: String(c.connectionID),
      createdAt: String(c.createdAt),
      updatedAt: String(c.updatedAt),
    })),
  }),
  same,
};

export const LINK_ATTEMPT_KIND: RecordKind<LinkAttempt> = {
  name: 'LINKATTEMPT',
  list: 'link-attempts',
  toItem: (a) => ({ ...a }),
  fromItem: (item) => ({
    id: String(item.id),
    createdAt: String(item.createdAt),
    psuID: String(item.psuID),
    connectorID: String(item.connectorID),
    status: item.status as LinkAttempt['status'],
    clientRedirectURL: String(item.clientRedirectURL),
    state: String(item.state),
    ...optional(item, 'connectionID'),
    ...optional(item, 'error'),
  }),
  same,
};
