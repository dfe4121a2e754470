import type { Command } from 'commander';
import { fetchToken } from '../api/client.js';
import { UsageError } from '../errors.js';
import { action, type Cli, checkUrl, credentialsFrom, DEFAULT_URL } from '../kit.js';
import { type Credentials, removeProfile, writeProfile } from '../profile.js';

/**
 * `platform login`: checks the credentials against the platform (a token is fetched, never shown) and stores
 * them with the URL in the profile (0600). With a client id and secret every later run fetches a fresh token, so
 * nothing in the file expires; `--token` stores a pasted bearer token as is (a personal token, once environments
 * exist). `platform logout` removes the profile.
 */
export function registerLogin(program: Command, cli: Cli): void {
  program
    .command('login')
    .description(
      `store the platform URL and credentials (--url, default PLATFORM_URL or ${DEFAULT_URL}; --client-id and --client-secret, or --token)`,
    )
    .action(
      action(cli, async (run) => {
        const { opts } = run;
        const credentials = credentialsFrom(opts.token, opts.clientId, opts.clientSecret, 'flags');
        if (!credentials)
          throw new UsageError('login needs --client-id and --client-secret, or --token');
        const url = checkUrl(opts.url ?? cli.variables.url ?? DEFAULT_URL);
        await check(url, credentials);
        const path = await writeProfile(cli.variables, { url, credentials });
        const who =
          credentials.type === 'client_credentials' ? `client ${credentials.clientId}` : 'a token';
        if (run.json) run.printJson({ url, credentials: credentials.type, profile: path });
        else run.line(`logged in to ${url} with ${who} (profile ${path})`);
        return 0;
      }),
    );

  program
    .command('logout')
    .description('remove the stored profile')
    .action(
      action(cli, async (run) => {
        const { path, removed } = await removeProfile(cli.variables);
        if (run.json) run.printJson({ profile: path, removed });
        else run.line(removed ? `logged out (removed ${path})` : `not logged in (no ${path})`);
        return 0;
      }),
    );
}

/** Client credentials are exchanged once; a pasted token is read for its expiry, when it is a JWT. */
async function check(url: string, credentials: Credentials): Promise<void> {
  if (credentials.type === 'client_credentials') {
    await fetchToken(url, credentials.clientId, credentials.clientSecret);
    return;
  }
  const payload = credentials.token.split('.')[1];
  if (!payload) return;
  let exp: unknown;
  try {
    exp = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')).exp;
  } catch {
    return;
  }
  if (typeof exp === 'number' && exp * 1000 <= Date.now())
    throw new UsageError(`--token: the token expired at ${new Date(exp * 1000).toISOString()}`);
}
