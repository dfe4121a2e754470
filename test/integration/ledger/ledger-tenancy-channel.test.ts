/**
 * The ledger's one tenancy channel, walked: a request's token names an environment, its routes take the stores of
 * that environment's scope (lib/ledger/scope.ts), and every DynamoDB call they make goes through that
 * environment's client (`clients.forEnvironment`), naming only that environment's partition keys — direct writes,
 * reads, lazily loaded handlers, the mounted exporters, and the embedded engine's commits. The function's own
 * client (`runtime.doc`, which in AWS reaches no environment's items) is never used for them.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClients } from '../../../lib/dynamo/client.js';
import { type GuardedCommand, keysOutside } from '../../../lib/dynamo/prefix-guard.js';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient, stringify } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

interface Call {
  /** The environment whose client sent it; `undefined`: the function's own client. */
  environment: string | undefined;
  command: string;
  outside: string[];
}

/**
 * The runtime with recording clients: each environment's client and the function's own record every call they
 * send (numbers read as bigint, so the ledger takes these clients rather than building its own).
 */
function recordingRuntime(runtime: ServiceRuntime): { runtime: ServiceRuntime; calls: Call[] } {
  const calls: Call[] = [];
  const { doc, clients } = createDocumentClients(runtime.connection, { bigintNumbers: true });
  const recording = (client: DynamoDBDocumentClient, environment: string | undefined) =>
    new Proxy(client, {
      get: (target, property, receiver) =>
        property === 'send'
          ? (command: GuardedCommand, ...rest: unknown[]) => {
              calls.push({
                environment,
                command: command.constructor.name,
                outside: environment === undefined ? [] : keysOutside(environment, command),
              });
              return Reflect.apply(target.send, target, [command, ...rest]);
            }
          : Reflect.get(target, property, receiver),
    });
  const byEnvironment = new Map<string, DynamoDBDocumentClient>();
  return {
    calls,
    runtime: {
      ...runtime,
      bigintNumbers: true,
      doc: recording(doc, undefined),
      clients: {
        forEnvironment: (environment) => {
          let client = byEnvironment.get(environment);
          if (!client) {
            client = recording(clients.forEnvironment(environment), environment);
            byEnvironment.set(environment, client);
          }
          return client;
        },
      },
    },
  };
}

let base: ServiceRuntime;
beforeAll(async () => {
  ({ runtime: base } = await testTables());
});

/** A walk over the ledger's routes of every kind, as a client of `environment`. */
async function walk(call: Awaited<ReturnType<typeof ledgerClient>>['call'], ledger: string) {
  const ok = async (method: string, path: string, body?: unknown) => {
    const { status, body: answer } = await call(method, path, body);
    expect(status, `${method} ${path}: ${stringify(answer ?? null)}`).toBeLessThan(300);
    return answer;
  };
  await ok('POST', `/v2/${ledger}`, { features: { MOVES_HISTORY: 'ON' } });
  const posting = { source: 'world', destination: 'users:1', amount: 10n, asset: 'USD' };
  await ok('POST', `/v2/${ledger}/transactions`, { postings: [posting] });
  await ok('POST', `/v2/${ledger}/_bulk`, [
    { action: 'CREATE_TRANSACTION', data: { postings: [posting] } },
  ]);
  await ok('POST', `/v2/${ledger}/accounts/users:1/metadata`, { tier: 'gold' });
  await ok('GET', `/v2/${ledger}/transactions?pageSize=5`);
  await ok('GET', `/v2/${ledger}/accounts/users:1?expand=volumes`);
  await ok('GET', `/v2/${ledger}/aggregate/balances`);
  await ok('GET', `/v2/${ledger}/logs`);
  await ok('GET', `/v2/${ledger}/accounts/users:1/balances/history?asset=USD`);
  await ok('POST', `/v2/${ledger}/monitors`, {
    account: 'users:1',
    asset: 'USD',
    condition: { type: 'negative' },
  });
  await ok('GET', `/v2/${ledger}/monitors`);
  await ok('POST', '/v2/_/exporters', { driver: 'stdout', config: {} });
  await ok('GET', '/v2/_/exporters');
  await ok('GET', `/${ledger}/transactions`);
}

describe('the ledger’s tenancy channel: from the token to the item keys through the scope', () => {
  for (const engine of ['direct', 'embedded'] as const) {
    it(`${engine} writes: every call goes through the token’s environment’s client, within its keys`, async () => {
      const environment = `walk-${engine}`;
      const { runtime, calls } = recordingRuntime(base);
      const { call } = await ledgerClient(runtime, {
        environment,
        ...(engine === 'embedded' ? { embedded: {} } : {}),
      });
      calls.length = 0; // the token's minting (the auth service's keys) is no part of the walk
      await walk(call, `walk-${engine}`);
      expect(calls.length).toBeGreaterThan(20);
      expect(calls.filter((c) => c.environment !== environment)).toEqual([]);
      expect(calls.filter((c) => c.outside.length > 0)).toEqual([]);
      // The commits themselves (TransactWriteItems) came through it too.
      expect(calls.some((c) => c.command === 'TransactWriteCommand')).toBe(true);
    });
  }
});
