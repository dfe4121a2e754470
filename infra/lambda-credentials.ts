/**
 * What the Lambda bundles use in place of the AWS SDK's default credential chain (`@aws-sdk/credential-provider-node`,
 * swapped in by the `alias` in infra/bundling.ts). Lambda hands a function its role's credentials in environment
 * variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN) and in no other way, so the chain's
 * other sources — profiles, SSO, web identity, container and instance metadata, with the STS/SSO clients they
 * bring — are dead weight: about 85 KB of every bundle, loaded on every cold start.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

export const defaultProvider = (init: Parameters<typeof fromEnv>[0] = {}) => fromEnv(init);
