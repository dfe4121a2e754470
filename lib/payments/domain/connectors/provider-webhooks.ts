import { ValidationError } from '../../../errors/index.js';
import { parseConnectorId } from './connector.js';
import { PROVIDERS } from './providers.js';

/**
 * What a provider's webhook to `/v3/connectors/webhooks/<connectorID>/…` is answered: none of this platform's
 * providers sends any (the reference's generic connector translates none either; its server answers such a call
 * 500), so every call is a 400 naming why, decided from the id alone. Nothing is looked up: the route carries no
 * token and no environment, and whether a connector exists is not a stranger's to learn.
 */
export function refuseProviderWebhook(connectorID: string): never {
  const parsed = parseConnectorId(connectorID);
  if (!parsed) throw new ValidationError('connectorID: not a connector id');
  const known = PROVIDERS[parsed.provider];
  throw new ValidationError(
    known
      ? `connector ${connectorID}: the ${known.name} connector receives no webhooks (its provider's data is fetched on its schedules)`
      : `connector ${connectorID}: no connector of provider ${parsed.provider.slice(0, 64)} receives webhooks`,
  );
}
