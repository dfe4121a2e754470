import { formatInstant, instantFromMs } from '../../time/instant.js';
import type { PaymentsStores } from '../store/stores.js';

/** The store's clock as an RFC 3339 date (creation dates of records the API creates). */
export const nowText = (stores: Pick<PaymentsStores, 'now'>): string =>
  formatInstant(instantFromMs(stores.now()));
