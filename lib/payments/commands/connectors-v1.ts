import { NotFoundError, ValidationError } from '../../errors/index.js';
import { type Cursor, decodeCursor } from '../../pagination/cursor.js';
import type { RunnerDeps } from '../connectors/runner.js';
import { accountId } from '../domain/account.js';
import type { Connector } from '../domain/connectors/connector.js';
import { providerSpec } from '../domain/connectors/providers.js';
import { isHashedId, newRecordId } from '../domain/ids.js';
import type { PaymentInitiation } from '../domain/payment-initiation.js';
import { CONNECTOR_KIND } from '../store/kinds.js';
import type { PaymentsStores } from '../store/stores.js';
import { requireConnector } from './connectors.js';
import { createInitiation } from './payment-initiations.js';

/** Connectors a v1 lookup reads at most (one environment's installed connectors). */
const MAX_CONNECTORS = 10_000;

/** Every connector of the environment, oldest first. */
export async function allConnectors(stores: PaymentsStores): Promise<Connector[]> {
  const found: Connector[] = [];
  let cursor: Cursor | undefined;
  do {
    const page = await stores.connectors.list({ pageSize: 1000, ...(cursor ? { cursor } : {}) });
    found.push(...page.data);
    cursor = page.hasMore && page.next ? decodeCursor(page.next, CONNECTOR_KIND.list) : undefined;
  } while (cursor && found.length < MAX_CONNECTORS);
  return found;
}

/**
 * The connector a v1 path names: by its provider (`GENERIC`, `DUMMY-PAY`) and id, or by its provider alone, as v1
 * did when a provider had one connector: then exactly one must be installed (several: 400, name it by id).
 */
export async function connectorOfV1Path(
  stores: PaymentsStores,
  provider: string,
  connectorId?: string,
): Promise<Connector> {
  const spec = providerSpec(provider);
  if (connectorId !== undefined) {
    const connector = await requireConnector(stores, connectorId);
    if (connector.provider !== spec.name)
      throw new NotFoundError(
        `connector ${connectorId.slice(0, 400)} is not a ${provider} connector`,
      );
    return connector;
  }
  const installed = (await allConnectors(stores)).filter(
    (c) => c.provider === spec.name && !c.scheduledForDeletion,
  );
  if (installed.length === 0)
    throw new NotFoundError(`no ${provider.slice(0, 64)} connector is installed`);
  if (installed.length > 1)
    throw new ValidationError(
      `connector: ${installed.length} ${provider} connectors are installed; name one by id (/connectors/${provider}/<connectorId>/...)`,
    );
  return installed[0]!;
}

/** An account a v1 transfer names: one of the connector's account ids, or its reference at the provider. */
async function connectorAccount(
  stores: PaymentsStores,
  connector: Connector,
  field: string,
  value: string,
): Promise<string> {
  if (isHashedId(value)) {
    const account = await stores.accounts.get(value);
    if (account?.connectorID === connector.id) return value;
  }
  const byReference = accountId(connector.id, value);
  if (await stores.accounts.get(byReference)) return byReference;
  throw new ValidationError(`${field}: account ${value.slice(0, 256)} not found on this connector`);
}

export interface ConnectorTransfer {
  amount: bigint;
  asset: string;
  destination: string;
  source?: string;
}

/**
 * v1's "transfer funds between connector accounts": a transfer initiation of its own reference, sent at once
 * (no approval step in v1's call). Answers the initiation; its status tells how the sending went.
 */
export async function transferThroughConnector(
  stores: PaymentsStores,
  connector: Connector,
  transfer: ConnectorTransfer,
  deps: RunnerDeps,
): Promise<PaymentInitiation> {
  const destinationAccountID = await connectorAccount(
    stores,
    connector,
    'destination',
    transfer.destination,
  );
  const sourceAccountID =
    transfer.source === undefined
      ? undefined
      : await connectorAccount(stores, connector, 'source', transfer.source);
  const { initiation } = await createInitiation(
    stores,
    {
      reference: `transfer-${newRecordId()}`,
      connectorID: connector.id,
      description: '',
      type: 'TRANSFER',
      amount: transfer.amount,
      asset: transfer.asset,
      ...(sourceAccountID !== undefined ? { sourceAccountID } : {}),
      destinationAccountID,
      metadata: {},
    },
    true,
    deps,
  );
  return initiation;
}
