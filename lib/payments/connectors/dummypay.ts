import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { genericClient } from './generic.js';
import type { HttpDeps } from './http.js';
import { type ProviderClient, ProviderError } from './provider.js';

/**
 * The reference's test connector: its provider is a directory of JSON files in the generic API's shapes
 * (`accounts.json`, `beneficiaries.json`, `transactions.json`, `balances/<account id>.json`). It exists for tests
 * and demonstrations on one machine; a function in AWS has no such directory, and its runs fail saying so.
 */
export function dummypayClient(
  directory: string,
  deps: Pick<HttpDeps, 'sleep' | 'now'>,
): ProviderClient {
  const files: typeof fetch = async (input) => {
    const url = new URL(String(input));
    const path = decodeURIComponent(url.pathname).replace(/^\/+/, '');
    if (path.split('/').some((part) => part === '..'))
      return new Response('{"Title":"bad path"}', { status: 400 });
    const name = path.startsWith('accounts/')
      ? `balances/${path.split('/')[1]}.json`
      : `${path}.json`;
    let all: unknown;
    try {
      all = JSON.parse(await readFile(join(directory, name), 'utf8'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT')
        return new Response(
          name.startsWith('balances/') ? '{"at":"1970-01-01T00:00:00Z","balances":[]}' : '[]',
        );
      throw new ProviderError(
        `dummypay: cannot read ${name} in ${directory}: ${(err as Error).message}`,
      );
    }
    if (!Array.isArray(all)) return new Response(JSON.stringify(all));
    // The files hold every item: serve them in the pages the generic client asks for.
    const page = Number(url.searchParams.get('page') ?? 1);
    const size = Number(url.searchParams.get('pageSize') ?? 100);
    return new Response(JSON.stringify(all.slice((page - 1) * size, page * size)));
  };
  return genericClient(
    { endpoint: 'http://dummypay.invalid/', apiKey: 'none' },
    { ...deps, fetch: files },
  );
}
