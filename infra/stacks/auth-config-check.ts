import { parse as parseYaml } from 'yaml';
import { TEST_CLIENT } from '../../lib/auth/domain/static-clients.js';
import type { DeployStage } from './config.js';

/**
 * Checks at synth what the auth function would otherwise refuse only at its first cold start, after a
 * deploy: in prod, no test-only client or secret; and every `$NAME` secret reference has a value source.
 * The full validation (scopes, lengths, lifetimes) stays in `lib/auth/domain/static-clients.ts`, run by the function.
 */
export function checkAuthConfig(
  text: string,
  stage: DeployStage,
  secretNames: readonly string[],
): void {
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (err) {
    throw new Error(
      `auth config: not valid YAML or JSON (${(err as Error).message.split('\n')[0]})`,
    );
  }
  const clients = (raw as { clients?: unknown }).clients;
  if (clients === undefined) return;
  if (!Array.isArray(clients)) throw new Error('auth config: clients must be a list');
  clients.forEach((client: { id?: unknown; secrets?: unknown }, i) => {
    if (stage === 'prod' && client?.id === TEST_CLIENT.id) {
      throw new Error(
        `auth config: clients[${i}].id: the test-only client "${TEST_CLIENT.id}" is refused in prod`,
      );
    }
    const secrets = Array.isArray(client?.secrets) ? client.secrets : [];
    secrets.forEach((secret: unknown, j) => {
      if (typeof secret !== 'string') return;
      if (stage === 'prod' && secret === TEST_CLIENT.secret)
        throw new Error(
          `auth config: clients[${i}].secrets[${j}]: the test-only secret is refused in prod`,
        );
      if (secret.startsWith('$') && !secretNames.includes(secret.slice(1))) {
        throw new Error(
          `auth config: clients[${i}].secrets[${j}]: ${secret} has no entry in context "staticClientSecrets"`,
        );
      }
      if (!secret.startsWith('$')) {
        // A clear secret would be in the template and the cloud assembly for anyone to read.
        throw new Error(
          `auth config: clients[${i}].secrets[${j}]: deployed secrets must be $NAME references to Secrets Manager`,
        );
      }
    });
  });
}

/**
 * The auth configuration as the auth function receives it (`AUTH_CONFIG_INLINE`): the operator's YAML as JSON, the
 * one form the bundled function parses (infra/lambda-yaml.ts). Called after `checkAuthConfig`, so the text parses.
 */
export function authConfigForFunction(text: string): string {
  return JSON.stringify(parseYaml(text) ?? {});
}
