import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as v from 'valibot';
import { parse as parseYaml } from 'yaml';
import { ConfigurationError } from '../../../lib/errors/index.js';
import { normaliseEmail } from '../../../lib/platform/domain/directory.js';

export const DEFAULT_IDENTITY_CONFIG = fileURLToPath(
  new URL('../identity.local.yaml', import.meta.url),
);

/** A development account of the local identity provider. */
export interface LocalAccount {
  /** Lower-cased. */
  email: string;
  password: string;
  name: string;
  /** Whether its email is verified (default true): a false one lets tests see the platform refuse it. */
  emailVerified: boolean;
  /** Made an admin of the `default` organization by `npm start` (PLATFORM_ADMINS). */
  platformAdmin: boolean;
}

export interface LocalIdentityConfig {
  clientId: string;
  redirectUris: string[];
  accounts: LocalAccount[];
}

const fileSchema = v.strictObject({
  client: v.strictObject({
    id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1-64 of A-Z a-z 0-9 . _ -')),
    redirectUris: v.pipe(
      v.array(v.pipe(v.string(), v.url('must be an absolute URL'))),
      v.minLength(1, 'needs at least one'),
    ),
  }),
  accounts: v.pipe(
    v.array(
      v.strictObject({
        email: v.string(),
        password: v.pipe(v.string(), v.minLength(8, 'must be at least 8 characters')),
        name: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
        emailVerified: v.optional(v.boolean(), true),
        platformAdmin: v.optional(v.boolean(), false),
      }),
    ),
    v.minLength(1, 'needs at least one account'),
  ),
});

/** Reads the local identity configuration (YAML); every problem stops `npm start` with one line naming it. */
export function loadLocalIdentityConfig(path = DEFAULT_IDENTITY_CONFIG): LocalIdentityConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigurationError(
      `identity config ${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? err})`,
    );
  }
  return parseLocalIdentityConfig(text, path);
}

export function parseLocalIdentityConfig(text: string, source: string): LocalIdentityConfig {
  const fail = (message: string): never => {
    throw new ConfigurationError(`identity config ${source}: ${message}`);
  };
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (err) {
    fail(`not valid YAML (${(err as Error).message.split('\n')[0]})`);
  }
  const result = v.safeParse(fileSchema, raw);
  if (!result.success) {
    const issue = result.issues[0];
    return fail(`${v.getDotPath(issue) ?? 'top level'}: ${issue.message}`);
  }
  const seen = new Set<string>();
  const accounts = result.output.accounts.map((account, i) => {
    const email = normaliseEmail(account.email);
    if (!email) fail(`accounts[${i}].email: not an email`);
    if (seen.has(email!)) fail(`accounts[${i}].email: duplicate account ${email}`);
    seen.add(email!);
    return { ...account, email: email! };
  });
  return {
    clientId: result.output.client.id,
    redirectUris: result.output.client.redirectUris,
    accounts,
  };
}
