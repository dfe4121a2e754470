import type { PaymentScheme, PaymentStatus } from '../payment.js';
import type { InitiationStatus } from '../payment-initiation.js';

/**
 * The v1 API's words for what the v3 records hold. v1 names providers in upper case with dashes (its closed
 * `Connector` enum), schemes in lower case with spaces, and knows fewer payment and initiation statuses than v3.
 */

/** v1 provider name by this platform's provider name (the providers a connector can be installed for). */
const V1_PROVIDERS: Record<string, string> = { generic: 'GENERIC', dummypay: 'DUMMY-PAY' };

/** The v1 name of a provider, or undefined for one v1 does not know (a free-text connector id's). */
export const v1ProviderOf = (provider: string): string | undefined =>
  V1_PROVIDERS[provider.toLowerCase()];

const SCHEMES: Record<PaymentScheme, string> = {
  UNKNOWN: 'unknown',
  OTHER: 'other',
  CARD_VISA: 'visa',
  CARD_MASTERCARD: 'mastercard',
  CARD_AMEX: 'amex',
  CARD_DINERS: 'diners',
  CARD_DISCOVER: 'discover',
  CARD_JCB: 'jcb',
  CARD_UNION_PAY: 'unionpay',
  CARD_ALIPAY: 'alipay',
  CARD_CUP: 'cup',
  SEPA_DEBIT: 'sepa debit',
  SEPA_CREDIT: 'sepa credit',
  SEPA: 'sepa',
  APPLE_PAY: 'apple pay',
  GOOGLE_PAY: 'google pay',
  DOKU: 'doku',
  DRAGON_PAY: 'dragonpay',
  MAESTRO: 'maestro',
  MOL_PAY: 'molpay',
  A2A: 'a2a',
  ACH_DEBIT: 'ach debit',
  ACH: 'ach',
  RTP: 'rtp',
};

export const V1_SCHEMES: readonly string[] = Object.values(SCHEMES);
const SCHEME_OF_V1 = new Map(Object.entries(SCHEMES).map(([v3, v1]) => [v1, v3 as PaymentScheme]));

export const v1Scheme = (scheme: PaymentScheme): string => SCHEMES[scheme];
/** The v3 scheme of a v1 name (the caller checked it is one of `V1_SCHEMES`). */
export const schemeOfV1 = (scheme: string): PaymentScheme => SCHEME_OF_V1.get(scheme) ?? 'OTHER';

/** The payment statuses v1 knows; v3's others read as OTHER there. */
export const V1_PAYMENT_STATUSES = [
  'PENDING',
  'SUCCEEDED',
  'CANCELLED',
  'FAILED',
  'EXPIRED',
  'REFUNDED',
  'REFUNDED_FAILURE',
  'DISPUTE',
  'DISPUTE_WON',
  'DISPUTE_LOST',
  'OTHER',
] as const;

export const v1PaymentStatus = (status: PaymentStatus): string =>
  (V1_PAYMENT_STATUSES as readonly string[]).includes(status) ? status : 'OTHER';

/**
 * An initiation's status in v1 words. v1 has no SCHEDULED_FOR_PROCESSING (approved, waiting for its time: v1's
 * VALIDATED) nor UNKNOWN (sent, outcome not known: PROCESSING); a reversal that left part of the amount is
 * PARTIALLY_REVERSED.
 */
export function v1InitiationStatus(status: InitiationStatus, partlyReversed: boolean): string {
  if (status === 'SCHEDULED_FOR_PROCESSING') return 'VALIDATED';
  if (status === 'UNKNOWN') return 'PROCESSING';
  if (status === 'REVERSED' && partlyReversed) return 'PARTIALLY_REVERSED';
  return status;
}
