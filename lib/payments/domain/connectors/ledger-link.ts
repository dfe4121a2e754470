import * as v from 'valibot';
import { ValidationError } from '../../../errors/index.js';
import type { Payment, PaymentStatus } from '../payment.js';
import { PAYMENT_STATUSES } from '../payment.js';

/**
 * A connector's ledger link (beyond the reference; docs/decisions/payments.md, "The ledger link"): each payment the
 * connector fetches is recorded as a transaction of a ledger of the same environment, written through the ledger's
 * public API as the OAuth client the link names.
 */
export interface LedgerLink {
  ledger: string;
  /** The client whose environment token writes the transactions (scope `ledger:write`). */
  clientID: string;
  clientSecret: string;
  accounts: { internal: string; world: string };
  /** The payment statuses that post a payment (its first adjustment in one of them). */
  statuses: PaymentStatus[];
}

export const DEFAULT_INTERNAL_ACCOUNT = 'payments:{connector}:{account}';
export const DEFAULT_WORLD_ACCOUNT = 'world';
export const DEFAULT_LINK_STATUSES: PaymentStatus[] = ['SUCCEEDED'];

/** The ledger's name rule (a letter or digit, then letters, digits, `_` and `-`). */
const LEDGER_NAME = /^[0-9A-Za-z_-]{1,63}$/;
/** An account address: segments of a-z A-Z 0-9 _ - separated by `:` (the ledger's rule). */
const ADDRESS = /^[a-zA-Z0-9_-]+(:[a-zA-Z0-9_-]+)*$/;
const MAX_ADDRESS_LENGTH = 256;
const PLACEHOLDERS = ['{connector}', '{account}', '{provider}'];

const template = (what: string) =>
  v.pipe(
    v.string('must be a string'),
    v.maxLength(200, 'must be at most 200 characters'),
    v.check(
      (t) => ADDRESS.test(PLACEHOLDERS.reduce((s, p) => s.replaceAll(p, 'x'), t)),
      `must be an account address, with ${what}`,
    ),
  );

export const ledgerLinkSchema = v.strictObject({
  ledger: v.pipe(v.string('must be a string'), v.regex(LEDGER_NAME, 'must be a ledger name')),
  clientID: v.pipe(
    v.string('must be a string'),
    v.minLength(1, 'must not be empty'),
    v.maxLength(200),
  ),
  clientSecret: v.pipe(
    v.string('must be a string'),
    v.minLength(1, 'must not be empty'),
    v.maxLength(4096),
  ),
  accounts: v.optional(
    v.strictObject({
      internal: v.optional(
        v.pipe(
          template('{connector}, {provider} and {account} as placeholders'),
          v.check((t) => t.includes('{account}'), 'must contain {account}'),
        ),
      ),
      world: v.optional(template('{connector} and {provider} as placeholders')),
    }),
  ),
  statuses: v.optional(
    v.pipe(
      v.array(v.picklist(PAYMENT_STATUSES, 'must be payment statuses'), 'must be an array'),
      v.minLength(1, 'must name at least one status'),
    ),
  ),
});

/** A checked link with its defaults filled in. */
export function ledgerLinkOf(parsed: v.InferOutput<typeof ledgerLinkSchema>): LedgerLink {
  if (parsed.accounts?.world?.includes('{account}'))
    throw new ValidationError('body.ledgerLink.accounts.world: must not contain {account}');
  return {
    ledger: parsed.ledger,
    clientID: parsed.clientID,
    clientSecret: parsed.clientSecret,
    accounts: {
      internal: parsed.accounts?.internal ?? DEFAULT_INTERNAL_ACCOUNT,
      world: parsed.accounts?.world ?? DEFAULT_WORLD_ACCOUNT,
    },
    statuses: [...new Set(parsed.statuses ?? DEFAULT_LINK_STATUSES)],
  };
}

/** One transaction the link writes: its reference is what makes it once-only in the ledger. */
export interface LinkTransaction {
  reference: string;
  postings: Array<{ source: string; destination: string; amount: bigint; asset: string }>;
  metadata: Record<string, string>;
}

/** What names the connector in addresses: its UUID and its provider. */
export interface LinkedConnector {
  id: string;
  reference: string;
  provider: string;
}

/** The provider's references of a payment's accounts (the runner knows them; the payment keeps only ids). */
export interface AccountReferences {
  source?: string;
  destination?: string;
}

/**
 * The transactions a payment asks of the link, from its history alone (so the same payment read twice asks the
 * same): its settlement, at its oldest adjustment in a posting status (with that adjustment's amount), and, once
 * settled, its refund, at its oldest later REFUNDED adjustment. A payment without history posts its current status
 * and amount. PAY-IN: world → its destination; PAYOUT: its source → world; TRANSFER: source → destination. OTHER
 * and a payment missing the account its type moves post nothing.
 */
export function linkTransactions(
  link: LedgerLink,
  connector: LinkedConnector,
  payment: Payment,
  refs: AccountReferences,
): LinkTransaction[] {
  const sides = sidesOf(link, connector, payment, refs);
  if (!sides) return [];
  const history = [...(payment.adjustments ?? [])].reverse();
  const settledAt = history.length
    ? history.findIndex((a) => link.statuses.includes(a.status))
    : link.statuses.includes(payment.status)
      ? 0
      : -1;
  if (settledAt < 0) return [];
  const settlement = history[settledAt];
  const meta = (kind: string, status: PaymentStatus) => ({
    payments_id: payment.id,
    payments_connector: payment.connectorID,
    payments_reference: payment.reference,
    payments_type: payment.type,
    payments_status: status,
    payments_link: kind,
  });
  const posting = (amount: bigint, reverse: boolean) => [
    {
      source: reverse ? sides.destination : sides.source,
      destination: reverse ? sides.source : sides.destination,
      amount,
      asset: payment.asset,
    },
  ];
  const out: LinkTransaction[] = [
    {
      reference: `payments:${payment.id}`,
      postings: posting(settlement?.amount ?? payment.amount, false),
      metadata: meta('settlement', settlement?.status ?? payment.status),
    },
  ];
  const refund = history.slice(settledAt + 1).find((a) => a.status === 'REFUNDED');
  if (refund && (refund.asset ?? payment.asset) === payment.asset)
    out.push({
      reference: `payments:${payment.id}:refund`,
      postings: posting(refund.amount ?? payment.amount, true),
      metadata: meta('refund', 'REFUNDED'),
    });
  return out.filter((t) => t.postings[0]!.amount > 0n);
}

function sidesOf(
  link: LedgerLink,
  connector: LinkedConnector,
  payment: Payment,
  refs: AccountReferences,
): { source: string; destination: string } | undefined {
  const world = address(link.accounts.world, connector, undefined);
  const internal = (ref: string | undefined) =>
    ref === undefined ? undefined : address(link.accounts.internal, connector, ref);
  const [src, dst] = [internal(refs.source), internal(refs.destination)];
  switch (payment.type) {
    case 'PAY-IN':
      return dst ? { source: world, destination: dst } : undefined;
    case 'PAYOUT':
      return src ? { source: src, destination: world } : undefined;
    case 'TRANSFER':
      return src && dst ? { source: src, destination: dst } : undefined;
    default:
      return undefined;
  }
}

/**
 * An address from a template. A provider's account reference may hold characters an address cannot: each becomes
 * `_` (so `acc.1` and `acc_1` share an account; references are rarely that close).
 */
export function address(
  templateText: string,
  connector: LinkedConnector,
  account: string | undefined,
): string {
  const safe = (s: string) => s.replace(/[^a-zA-Z0-9_-]/g, '_') || '_';
  const out = templateText
    .replaceAll('{connector}', safe(connector.reference))
    .replaceAll('{provider}', safe(connector.provider))
    .replaceAll('{account}', safe(account ?? ''));
  if (out.length > MAX_ADDRESS_LENGTH)
    throw new ValidationError(`ledger link: the address ${out.slice(0, 64)}… is too long`);
  return out;
}
