import { ConflictError, ValidationError } from '../../errors/index.js';

export interface ContactDetails {
  email?: string;
  phoneNumber?: string;
  locale?: string;
}

export interface Address {
  streetName?: string;
  streetNumber?: string;
  city?: string;
  region?: string;
  postalCode?: string;
  country?: string;
}

/** A payment service user: a customer of the platform's user, with the bank accounts they pay from or to. */
export interface PaymentServiceUser {
  id: string;
  createdAt: string;
  name: string;
  contactDetails?: ContactDetails;
  address?: Address;
  bankAccountIDs: string[];
  metadata: Record<string, string>;
}

export type PaymentServiceUserInput = Omit<
  PaymentServiceUser,
  'id' | 'createdAt' | 'bankAccountIDs' | 'metadata'
> & {
  bankAccountIDs?: string[];
  metadata?: Record<string, string>;
};

export function newPaymentServiceUser(
  id: string,
  createdAt: string,
  input: PaymentServiceUserInput,
): PaymentServiceUser {
  return {
    id,
    createdAt,
    name: input.name,
    ...(input.contactDetails ? { contactDetails: input.contactDetails } : {}),
    ...(input.address ? { address: input.address } : {}),
    bankAccountIDs: [...new Set(input.bankAccountIDs ?? [])],
    metadata: { ...input.metadata },
  };
}

/** A user holds at most this many bank accounts: deleting the user unlinks them all in one transaction. */
export const MAX_USER_BANK_ACCOUNTS = 50;

/** Links a bank account; a bank account belongs to one user at most (409 when it is another's). */
export function withBankAccount(
  user: PaymentServiceUser,
  bankAccountId: string,
  owner: string | undefined,
): PaymentServiceUser {
  if (owner !== undefined && owner !== user.id)
    throw new ConflictError(
      `bank account ${bankAccountId} belongs to another payment service user`,
    );
  if (user.bankAccountIDs.includes(bankAccountId)) return user;
  if (user.bankAccountIDs.length >= MAX_USER_BANK_ACCOUNTS)
    throw new ValidationError(
      `payment service user ${user.id} already holds ${MAX_USER_BANK_ACCOUNTS} bank accounts`,
    );
  return { ...user, bankAccountIDs: [...user.bankAccountIDs, bankAccountId] };
}

export function paymentServiceUserView(u: PaymentServiceUser): PaymentServiceUser {
  return {
    id: u.id,
    createdAt: u.createdAt,
    name: u.name,
    ...(u.contactDetails ? { contactDetails: u.contactDetails } : {}),
    ...(u.address ? { address: u.address } : {}),
    bankAccountIDs: u.bankAccountIDs,
    metadata: u.metadata,
  };
}
