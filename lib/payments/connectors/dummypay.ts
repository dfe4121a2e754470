import {
  type DummypaySettings,
  dummypayDirectory,
} from '../domain/connectors/dummypay-directory.js';
import { readConfinedFile } from './confined-files.js';
import { dummypayOpenBanking } from './dummypay-open-banking.js';
import { genericClient } from './generic.js';
import type { HttpDeps } from './http.js';
import {
  type InitiationRequest,
  type ProviderClient,
  ProviderError,
  type ProviderPayment,
  type ReversalRequest,
} from './provider.js';

/** The file a generic API path is served from: the three lists and one balances file per account. */
function fileOf(path: string): string | undefined {
  if (path === 'accounts' || path === 'beneficiaries' || path === 'transactions')
    return `${path}.json`;
  const balances = /^accounts\/([^/]+)\/balances$/.exec(path);
  if (!balances) return undefined;
  // The account id comes from the provider's own files: one plain file name, never a path.
  const id = decodeURIComponent(balances[1]!);
  if (id === '.' || id === '..' || /[/\\\0]/.test(id)) return undefined;
  return `balances/${id}.json`;
}

/**
 * The reference's test connector: its provider is a directory of JSON files in the generic API's shapes
 * (`accounts.json`, `beneficiaries.json`, `transactions.json`, `balances/<account id>.json`). It exists for tests
 * and demonstrations on one machine: only a local platform runs it, and only within its root (the directory and
 * every file checked again at each read, symbolic links resolved).
 */
export function dummypayClient(
  settings: DummypaySettings,
  directory: string,
  deps: Pick<HttpDeps, 'sleep' | 'now'>,
): ProviderClient {
  const files: typeof fetch = async (input) => {
    let dir: string;
    try {
      dir = dummypayDirectory(settings, directory);
    } catch (err) {
      throw new ProviderError(`dummypay: ${(err as Error).message}`);
    }
    const url = new URL(String(input));
    const name = fileOf(url.pathname.replace(/^\/+/, ''));
    if (!name) return new Response('{"Title":"no such file"}', { status: 404 });
    const text = await readConfinedFile(settings.root!, dir, name);
    if (text === undefined)
      return new Response(
        name.startsWith('balances/') ? '{"at":"1970-01-01T00:00:00Z","balances":[]}' : '[]',
      );
    let all: unknown;
    try {
      all = JSON.parse(text);
    } catch (err) {
      throw new ProviderError(`dummypay: ${name} is not JSON: ${(err as Error).message}`);
    }
    if (!Array.isArray(all)) return new Response(JSON.stringify(all));
    // The files hold every item: serve them in the pages the generic client asks for.
    const page = Number(url.searchParams.get('page') ?? 1);
    const size = Number(url.searchParams.get('pageSize') ?? 100);
    return new Response(JSON.stringify(all.slice((page - 1) * size, page * size)));
  };
  const reader = genericClient(
    { endpoint: 'http://dummypay.invalid/', apiKey: 'none' },
    { ...deps, fetch: files },
  );
  return {
    ...reader,
    // A simulated provider: every transfer and payout succeeds at once, every reversal too. Nothing is written to
    // its directory (a caller's connector never makes the platform write files).
    initiate: async (request) => {
      dummypayDirectory(settings, directory);
      return simulated(request.reference, request, 'SUCCEEDED', request.type);
    },
    reverse: async (request) => {
      dummypayDirectory(settings, directory);
      return simulated(
        request.reference,
        request.initiation,
        'REFUNDED',
        request.initiation.type,
        request,
      );
    },
    openBanking: dummypayOpenBanking(() => dummypayDirectory(settings, directory)),
    // As the reference's dummypay: the provider's account for a bank account is named after it.
    createBankAccount: async (request) => {
      dummypayDirectory(settings, directory);
      return {
        reference: `dummypay-${request.id}`,
        createdAt: request.createdAt,
        name: request.name,
        metadata: {},
        raw: { id: `dummypay-${request.id}`, name: request.name },
      };
    },
  };
}

function simulated(
  reference: string,
  initiation: InitiationRequest,
  status: 'SUCCEEDED' | 'REFUNDED',
  type: 'TRANSFER' | 'PAYOUT',
  reversal?: ReversalRequest,
): ProviderPayment {
  const { sourceAccountReference: source, destinationAccountReference: destination } = initiation;
  return {
    reference,
    type,
    status,
    amount: reversal?.amount ?? initiation.amount,
    asset: reversal?.asset ?? initiation.asset,
    scheme: 'OTHER',
    createdAt: reversal?.createdAt ?? initiation.createdAt,
    metadata: reversal?.metadata ?? initiation.metadata,
    ...(source !== undefined ? { sourceAccountReference: source } : {}),
    ...(destination !== undefined ? { destinationAccountReference: destination } : {}),
  };
}
