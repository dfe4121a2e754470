import { ValidationError } from '../../errors/index.js';
import { parseInstant, sortableInstant } from '../../time/instant.js';
import { isConfigId } from './config.js';
import type { DeliveryStatus } from './delivery.js';

/** The list's filters, each served by a key (store/keys.ts). Bounds are sortable instants (sort-key prefixes). */
export interface DeliveryListFilter {
  configId?: string;
  status?: DeliveryStatus;
  /** Inclusive lower bound: a sortable instant. */
  from?: string;
  /** Exclusive upper bound: a sortable instant. */
  to?: string;
  /** The request's filter parameters as given, recorded in the cursors. */
  recorded: Record<string, string>;
}

/**
 * The query parameters of GET /deliveries, named as the reference platform names them; `configID` (the name the
 * answers use) is taken for `configId`.
 */
export const DELIVERY_FILTERS = [
  'configId',
  'configID',
  'status',
  'createdAtFrom',
  'createdAtTo',
] as const;

const STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed', 'cancelled'];

/**
 * Reads the deliveries list's filters (from the request, or from a cursor, which carries them): `configId` a
 * config id, `status` one of the delivery statuses, `createdAtFrom` (inclusive) and `createdAtTo` (exclusive)
 * RFC 3339 date-times. Anything else is a 400 naming the parameter.
 */
export function readDeliveryFilter(params: Record<string, string | undefined>): DeliveryListFilter {
  const recorded: Record<string, string> = {};
  for (const name of DELIVERY_FILTERS)
    if (params[name] !== undefined) recorded[name] = params[name]!;
  if (recorded.configID !== undefined) {
    if (recorded.configId !== undefined && recorded.configId !== recorded.configID)
      throw new ValidationError('configID: names another config than configId; send one of them');
    recorded.configId = recorded.configID;
    delete recorded.configID;
  }
  const filter: DeliveryListFilter = { recorded };
  if (recorded.configId !== undefined) {
    if (!isConfigId(recorded.configId))
      throw new ValidationError('configId: must be a webhook config id (a UUID)');
    filter.configId = recorded.configId;
  }
  if (recorded.status !== undefined) {
    const status = recorded.status as DeliveryStatus;
    if (!STATUSES.includes(status))
      throw new ValidationError(`status: must be one of ${STATUSES.join(', ')}`);
    filter.status = status;
  }
  if (recorded.createdAtFrom !== undefined)
    filter.from = sortableInstant(parseInstant(recorded.createdAtFrom, 'createdAtFrom'));
  if (recorded.createdAtTo !== undefined)
    filter.to = sortableInstant(parseInstant(recorded.createdAtTo, 'createdAtTo'));
  if (filter.from !== undefined && filter.to !== undefined && filter.from > filter.to) {
    throw new ValidationError('createdAtFrom: must not be after createdAtTo');
  }
  return filter;
}
