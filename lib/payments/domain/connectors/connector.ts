import { ConflictError, ValidationError } from '../../../errors/index.js';
import type { LedgerLink } from './ledger-link.js';
import {
  type ConnectorConfig,
  configView,
  MASK,
  type ProviderSpec,
  providerSpec,
} from './providers.js';

/** An installed connector: a provider account the platform polls for accounts, balances and payments. */
export interface Connector {
  id: string;
  /** The UUID in its id. */
  reference: string;
  provider: string;
  name: string;
  createdAt: string;
  updatedAt?: string;
  config: ConnectorConfig;
  /** Uninstalled: its data is being removed and it runs no more tasks. */
  scheduledForDeletion: boolean;
}

/**
 * The connector id, as the reference writes it: base64url (no padding) of the canonical JSON
 * `{"Provider":"<provider>","Reference":"<uuid>"}`. `providerOf` (payment.ts) reads the provider back.
 */
export function connectorId(provider: string, reference: string): string {
  return Buffer.from(JSON.stringify({ Provider: provider, Reference: reference })).toString(
    'base64url',
  );
}

/** The connector an id names, if it is one of this platform's connector ids (else undefined, a 404). */
export function parseConnectorId(id: string): { provider: string; reference: string } | undefined {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(id)) return undefined;
  try {
    const decoded = JSON.parse(Buffer.from(id, 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;
    const { Provider, Reference } = decoded;
    if (typeof Provider !== 'string' || typeof Reference !== 'string') return undefined;
    if (connectorId(Provider, Reference) !== id) return undefined;
    return { provider: Provider, reference: Reference };
  } catch {
    return undefined;
  }
}

export function newConnector(
  spec: ProviderSpec,
  reference: string,
  createdAt: string,
  config: ConnectorConfig,
): Connector {
  const { ledgerLink, ...rest } = config;
  return {
    id: connectorId(spec.name, reference),
    reference,
    provider: spec.name,
    name: config.name,
    createdAt,
    // `false` (no link) is an update's word; a new connector simply has none.
    config: ledgerLink ? { ...rest, ledgerLink } : rest,
    scheduledForDeletion: false,
  };
}

/**
 * A new configuration for an installed connector. A secret sent back as the mask the API shows keeps its stored
 * value, so a client can send back the config it read with only the fields it means to change.
 */
export function withConfig(
  current: Connector,
  next: ConnectorConfig,
  updatedAt: string,
): Connector {
  if (current.scheduledForDeletion)
    throw new ConflictError(`connector ${current.id} is being uninstalled`);
  const spec = providerSpec(current.provider);
  const fields = Object.fromEntries(
    Object.entries(next.fields).map(([k, value]) => [
      k,
      spec.fields[k]?.secret && value === MASK ? current.config.fields[k] : value,
    ]),
  );
  const config: ConnectorConfig = { ...next, fields };
  const ledgerLink = nextLedgerLink(current.config.ledgerLink || undefined, next.ledgerLink);
  if (ledgerLink) config.ledgerLink = ledgerLink;
  else delete config.ledgerLink;
  return { ...current, name: next.name, config, updatedAt };
}

/**
 * The link after an update: absent keeps it (a client unaware of the field sends the config back without it),
 * `false` removes it, a link sent back with its secret masked keeps the stored secret (same client only).
 */
function nextLedgerLink(
  current: LedgerLink | undefined,
  next: LedgerLink | false | undefined,
): LedgerLink | undefined {
  if (next === undefined) return current;
  if (next === false) return undefined;
  if (next.clientSecret !== MASK) return next;
  if (current?.clientID !== next.clientID)
    throw new ValidationError('body.ledgerLink.clientSecret: give the secret of this new client');
  return { ...next, clientSecret: current.clientSecret };
}

/** The connector as lists answer it (the reference's V3Connector), its config with secrets masked. */
export function connectorView(c: Connector) {
  const spec = providerSpec(c.provider);
  return {
    id: c.id,
    reference: c.reference,
    name: c.name,
    createdAt: c.createdAt,
    provider: c.provider,
    scheduledForDeletion: c.scheduledForDeletion,
    capabilities: spec.capabilities,
    config: configView(spec, c.config),
    ...(c.updatedAt !== undefined ? { updatedAt: c.updatedAt } : {}),
  };
}
