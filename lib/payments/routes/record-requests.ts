import * as v from 'valibot';
import { ASSET } from '../../money/asset.js';
import { metadataMap, nonEmptyText } from '../../validation/common.js';
import { ACCOUNT_TYPES } from '../domain/account.js';
import { MAX_ACCOUNT_ID_LENGTH, MAX_REFERENCE_LENGTH } from '../domain/input.js';
import { MAX_USER_BANK_ACCOUNTS } from '../domain/payment-service-user.js';
import { connectorIdSchema, createdAtSchema } from './requests.js';

/** Request bodies of accounts, bank accounts, payment service users and pools (docs/api.md §6). */

const enumOf = <T extends readonly string[]>(values: T) =>
  v.picklist(values, `must be one of ${values.join(', ')}`);

const asset = v.pipe(
  v.string('must be a string'),
  v.regex(ASSET, 'must be an asset such as USD or USD/2'),
);

/** POST /v3/accounts. */
export const accountInputSchema = v.strictObject({
  reference: nonEmptyText(MAX_REFERENCE_LENGTH),
  connectorID: connectorIdSchema,
  createdAt: createdAtSchema,
  accountName: nonEmptyText(1000),
  type: enumOf(ACCOUNT_TYPES),
  defaultAsset: v.optional(asset),
  metadata: v.optional(metadataMap),
});

const alphanumeric = (min: number, max: number) =>
  v.pipe(
    v.string('must be a string'),
    v.regex(/^[A-Za-z0-9]+$/, 'must hold letters and digits only'),
    v.minLength(min, `must be at least ${min} characters`),
    v.maxLength(max, `must be at most ${max} characters`),
  );
const countryCode = v.pipe(
  v.string('must be a string'),
  v.regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code such as FR'),
);

/** POST /v3/bank-accounts: an account number or an IBAN (checked by `newBankAccount`). */
export const bankAccountInputSchema = v.strictObject({
  name: nonEmptyText(1000),
  accountNumber: v.optional(alphanumeric(1, 64)),
  iban: v.optional(alphanumeric(15, 31)),
  swiftBicCode: v.optional(alphanumeric(8, 11)),
  country: v.optional(countryCode),
  metadata: v.optional(metadataMap),
});

/** PATCH /v3/bank-accounts/<id>/metadata: `{metadata: {...}}`, not empty. */
export const bankAccountMetadataSchema = v.strictObject({ metadata: v.optional(metadataMap) });

const optionalText = (max: number) => v.optional(nonEmptyText(max));

/** POST /v3/payment-service-users. */
export const paymentServiceUserInputSchema = v.strictObject({
  name: nonEmptyText(1000),
  contactDetails: v.optional(
    v.strictObject({
      email: v.optional(v.pipe(v.string('must be a string'), v.email('must be an email address'))),
      phoneNumber: v.optional(
        v.pipe(
          v.string('must be a string'),
          v.regex(/^\+?[0-9][0-9 ().-]{2,31}$/, 'must be a phone number'),
        ),
      ),
      locale: v.optional(
        v.pipe(v.string(), v.regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a locale')),
      ),
    }),
  ),
  address: v.optional(
    v.strictObject({
      streetName: optionalText(256),
      streetNumber: v.optional(alphanumeric(1, 16)),
      city: optionalText(256),
      region: optionalText(256),
      postalCode: optionalText(32),
      country: v.optional(countryCode),
    }),
  ),
  bankAccountIDs: v.optional(
    v.pipe(
      v.array(v.string()),
      v.maxLength(MAX_USER_BANK_ACCOUNTS, `must have at most ${MAX_USER_BANK_ACCOUNTS} entries`),
    ),
  ),
  metadata: v.optional(metadataMap),
});

const poolQuery = v.record(v.string(), v.unknown(), 'must be an object');

/** POST /v3/pools: a query (dynamic pool) or account ids (static pool). */
export const poolInputSchema = v.strictObject({
  name: nonEmptyText(1000),
  query: v.optional(poolQuery),
  accountIDs: v.optional(v.array(nonEmptyText(MAX_ACCOUNT_ID_LENGTH), 'must be an array')),
});

/** PATCH /v3/pools/<id>/query. */
export const poolQueryInputSchema = v.strictObject({ query: poolQuery });

/** POST /v3/bank-accounts/<id>/forward and the user's equivalent. */
export const forwardInputSchema = v.strictObject({ connectorID: connectorIdSchema });
