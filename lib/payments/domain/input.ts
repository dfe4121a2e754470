import type { PaymentStatus, PaymentType } from '../../../events/payments.js';
import { ValidationError } from '../../errors/index.js';
import { type Instant, parseInstant, sortableInstant } from '../../time/instant.js';

/** Bounds that keep every key built from these values far below DynamoDB's key limits (2048 / 1024 bytes). */
export const MAX_REFERENCE_LENGTH = 1000;
export const MAX_CONNECTOR_ID_LENGTH = 256;
export const MAX_ACCOUNT_ID_LENGTH = 256;

const EARLIEST = Date.UTC(1970, 0, 1);

/** An RFC 3339 date-time (calendar-checked by `parseInstant`), not before 1970. Microsecond precision. */
export function parseCreatedAt(value: string, field = 'createdAt'): Instant {
  const instant = parseInstant(value, field);
  if (instant.ms < EARLIEST) throw new ValidationError(`${field}: must be between 1970 and 9999`);
  return instant;
}

/** The fixed-width form used in sort keys: text order is time order. */
export const sortableCreatedAt = (createdAt: string): string =>
  sortableInstant(parseCreatedAt(createdAt));

/** The payments list's filters, all optional; each one (and each combination) is served by its own key range. */
export interface PaymentFilter {
  status?: PaymentStatus | undefined;
  type?: PaymentType | undefined;
  connectorID?: string | undefined;
}
