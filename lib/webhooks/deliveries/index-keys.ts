import { parseInstant, sortableInstant } from '../../time/instant.js';
import type { DeliveryStatus } from './model.js';

/**
 * Filter index items of deliveries (docs/data-model.md): the list's `configId` and `status` filters, alone or
 * together, are each one key range, and the time range is a range of the sort key inside it — never a scan.
 *
 * - `DELIVERIES#config=<configId>` / `<sortable createdAt>#<id>`: a config's deliveries (never moves).
 * - `DELIVERIES#status=<status>` / same sort key: deliveries in a status.
 * - `DELIVERIES#config=<configId>#status=<status>` / same sort key: a config's deliveries in a status. Its
 *   `pending` partition is also what cancels a config's pending deliveries when the config is deleted or
 *   deactivated.
 *
 * Each holds only `deliveryId`. They are written with the delivery, and a status change moves the two that name
 * the status, in the same TransactWriteItems as the delivery's own change.
 */

/** The sort key every listing of deliveries uses (gsi1 for the unfiltered list, the index items for the rest). */
export const deliverySortKey = (createdAt: string, id: string): string =>
  `${sortableInstant(parseInstant(createdAt, 'createdAt'))}#${id}`;

export interface DeliveryFilterKey {
  configId?: string;
  status?: DeliveryStatus;
}

/** The index partition of a filter with at least one of `configId`, `status`. */
export function filterPartition({ configId, status }: DeliveryFilterKey): string {
  if (configId === undefined && status === undefined)
    throw new Error('filterPartition needs configId or status');
  return [
    'DELIVERIES',
    ...(configId !== undefined ? [`config=${configId}`] : []),
    ...(status !== undefined ? [`status=${status}`] : []),
  ].join('#');
}

/** The partitions that name a status: moved when the status changes. */
export const statusPartitions = (configId: string, status: DeliveryStatus): string[] => [
  filterPartition({ status }),
  filterPartition({ configId, status }),
];

/** Every index partition of a delivery. */
export const indexPartitions = (configId: string, status: DeliveryStatus): string[] => [
  filterPartition({ configId }),
  ...statusPartitions(configId, status),
];
