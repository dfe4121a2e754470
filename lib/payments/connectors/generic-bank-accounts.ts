import * as v from 'valibot';
import { stringifyJson } from '../../json/bigint-json.js';
import { formatInstant } from '../../time/instant.js';
import { parseCreatedAt } from '../domain/input.js';
import { type HttpDeps, postJson } from './http.js';
import { type BankAccountRequest, type ProviderAccount, ProviderError } from './provider.js';

/** What the generic API's `POST /bank-accounts` answers: the account the provider made for the bank account. */
const createdBankAccountSchema = v.object({
  id: v.pipe(v.string(), v.minLength(1)),
  name: v.string(),
  country: v.optional(v.nullable(v.string())),
  createdAt: v.pipe(
    v.string(),
    v.transform((s) => formatInstant(parseCreatedAt(s))),
  ),
  metadata: v.optional(v.nullable(v.record(v.string(), v.string())), {}),
});

/**
 * `POST /bank-accounts` of the generic connector API (the reference's generic plugin creates bank accounts there):
 * the name, the numbers and the metadata go to the provider; its answer becomes the connector's external account.
 * The numbers are not copied into that account (its reads, lists and events are not where numbers are shown).
 */
export async function createGenericBankAccount(
  deps: HttpDeps,
  url: URL,
  apiKey: string,
  request: BankAccountRequest,
): Promise<ProviderAccount> {
  const body = stringifyJson({
    name: request.name,
    ...(request.accountNumber !== undefined ? { accountNumber: request.accountNumber } : {}),
    ...(request.iban !== undefined ? { iban: request.iban } : {}),
    ...(request.swiftBicCode !== undefined ? { swiftBicCode: request.swiftBicCode } : {}),
    ...(request.country !== undefined ? { country: request.country } : {}),
    metadata: request.metadata,
  });
  const answer = v.safeParse(createdBankAccountSchema, await postJson(deps, url, apiKey, body));
  if (!answer.success) throw new ProviderError('provider: the created bank account is malformed');
  const a = answer.output;
  return {
    reference: a.id,
    createdAt: a.createdAt,
    name: a.name,
    metadata: a.metadata ?? {},
    raw: {
      id: a.id,
      name: a.name,
      createdAt: a.createdAt,
      ...(a.country ? { country: a.country } : {}),
    },
  };
}
