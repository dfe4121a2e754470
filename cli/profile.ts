import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from './errors.js';
import type { CliVariables } from './variables.js';

/**
 * How the CLI gets a token: a client's credentials, exchanged for a fresh token on every run (client_credentials,
 * so nothing expires in the file), or a bearer token pasted at login (used as is until it expires).
 */
export type Credentials =
  | { type: 'client_credentials'; clientId: string; clientSecret: string }
  | { type: 'token'; token: string };

/** What `platform login` stores: the platform's URL and how to authenticate. */
export interface Profile {
  url: string;
  credentials: Credentials;
}

/** `$XDG_CONFIG_HOME/platform/config.json`, else `~/.config/platform/config.json`. */
export function profilePath(variables: CliVariables): string {
  const base =
    variables.configHome ?? (variables.home ? join(variables.home, '.config') : undefined);
  if (!base) throw new CliError('cannot find a config directory: set HOME or XDG_CONFIG_HOME');
  return join(base, 'platform', 'config.json');
}

export async function readProfile(variables: CliVariables): Promise<Profile | undefined> {
  const path = profilePath(variables);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`cannot read ${path}: ${(e as Error).message}`);
  }
  const profile = parseProfile(text);
  if (!profile) throw new CliError(`${path} is not a profile: run platform login again`);
  return profile;
}

/**
 * Writes the profile readable by its owner only (0600, in a 0700 directory): it holds a secret. Written to a
 * temporary file first and renamed, so a crash never leaves half a profile, nor a moment with wider permissions.
 */
export async function writeProfile(variables: CliVariables, profile: Profile): Promise<string> {
  const path = profilePath(variables);
  const dir = join(path, '..');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temporary, `${JSON.stringify(profile, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  // The mode given to open() is masked by the umask; 0600 is narrower than any umask leaves, but be exact.
  await chmod(temporary, 0o600);
  await rename(temporary, path);
  return path;
}

/** Removes the stored profile; whether there was one. */
export async function removeProfile(
  variables: CliVariables,
): Promise<{ path: string; removed: boolean }> {
  const path = profilePath(variables);
  try {
    await rm(path);
    return { path, removed: true };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { path, removed: false };
    throw new CliError(`cannot remove ${path}: ${(e as Error).message}`);
  }
}

function parseProfile(text: string): Profile | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  const { url, credentials: c } = (raw ?? {}) as { url?: unknown; credentials?: Credentials };
  if (typeof url !== 'string' || !c || typeof c !== 'object') return undefined;
  if (
    c.type === 'client_credentials' &&
    typeof c.clientId === 'string' &&
    typeof c.clientSecret === 'string'
  )
    return {
      url,
      credentials: { type: c.type, clientId: c.clientId, clientSecret: c.clientSecret },
    };
  if (c.type === 'token' && typeof c.token === 'string')
    return { url, credentials: { type: c.type, token: c.token } };
  return undefined;
}
