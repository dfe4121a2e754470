import type { Context } from 'hono';
import { environmentOf } from '../../http/environment.js';
import type { HonoTypes } from '../../http/types.js';
import type { PaymentsStores } from '../store/stores.js';

/** The stores of the request's environment (its token's): the only payments data a route may touch. */
export type StoresOf = (c: Context<HonoTypes>) => PaymentsStores;

export const storesOfRequest =
  (storesOf: (environment: string) => PaymentsStores): StoresOf =>
  (c) =>
    storesOf(environmentOf(c));
