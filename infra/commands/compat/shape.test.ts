/**
 * The compat probe's shape check, on the SDK's own schemas: a body with a field under a name the SDK does not read
 * is a SHAPE row even though the SDK resolves it (it drops the field), and this platform's documented additions
 * are named but stay OK.
 */
import { describe, expect, it } from 'vitest';
import { judgeSuccess } from './classify.js';
import type { Exchange } from './exchanges.js';
import { sdkBodySchema, unknownFields } from './shape.js';

const exchange = (status: number, body: unknown): Exchange => ({
  method: 'GET',
  url: 'http://127.0.0.1:1/api/x',
  status,
  body: JSON.stringify(body),
  count: null,
});
const routed = async () => true;

describe('sdkBodySchema and unknownFields', () => {
  it('finds the schema the SDK parses a body with, per operation and status', () => {
    expect(sdkBodySchema('auth.v1', 'listClients', 200)).toBeDefined();
    expect(sdkBodySchema('sdk', 'getVersions', 200)).toBeDefined();
    // 204s carry no body; an unknown operation has no schema.
    expect(sdkBodySchema('ledger.v2', 'countAccounts', 204)).toBeUndefined();
    expect(sdkBodySchema('ledger.v2', 'noSuchOperation', 200)).toBeUndefined();
  });

  it('names every undeclared field by its path, through arrays, records and nesting', () => {
    const accounts = sdkBodySchema('ledger.v2', 'listAccounts', 200)!;
    const body = {
      cursor: {
        pageSize: 15,
        hasMore: false,
        data: [
          {
            address: 'a',
            metadata: { anything: 'goes' },
            volumes: { USD: { input: 1, output: 0, balance: 1, extra: 1 } },
            stray: true,
          },
        ],
      },
    };
    expect(unknownFields(accounts, body)).toEqual([
      'cursor.data[].volumes{}.extra',
      'cursor.data[].stray',
    ]);
    expect(unknownFields(accounts, { cursor: { ...body.cursor, data: [] } })).toEqual([]);
  });
  it('takes an object the SDK declares without fields as free-form (a connector config), nothing else', () => {
    const connectors = sdkBodySchema('payments.v3', 'listConnectors', 200)!;
    const connector = {
      id: 'c',
      reference: 'r',
      name: 'n',
      provider: 'dummypay',
      createdAt: '2026-11-25T10:00:00Z',
      scheduledForDeletion: false,
      capabilities: ['FETCH_ACCOUNTS'],
      config: { provider: 'Dummypay', name: 'n', pollingPeriod: '30m', directory: 'd' },
    };
    const page = (data: unknown[]) => ({ cursor: { pageSize: 15, hasMore: false, data } });
    expect(unknownFields(connectors, page([connector]))).toEqual([]);
    expect(unknownFields(connectors, page([{ ...connector, stray: 1 }]))).toEqual([
      'cursor.data[].stray',
    ]);
  });
});

describe('judgeSuccess', () => {
  it('calls the listing the SDK read as {} a SHAPE row', async () => {
    const verdict = await judgeSuccess(
      'auth.v1',
      'listClients',
      exchange(200, { cursor: { pageSize: 15, hasMore: false, data: [] } }),
      routed,
    );
    expect(verdict).toEqual({
      outcome: 'SHAPE',
      status: 200,
      detail: "field(s) the SDK's schema does not declare: cursor",
    });
  });

  it('keeps a documented addition OK and names it', async () => {
    const verdict = await judgeSuccess(
      'webhooks.v1',
      'getManyConfigs',
      exchange(200, { cursor: { hasMore: false, data: [], pageSize: 15 } }),
      routed,
    );
    expect(verdict).toEqual({
      outcome: 'OK',
      status: 200,
      detail: 'adds cursor.pageSize (extensions.ts)',
    });
  });

  it('does not excuse the same name in another service', async () => {
    const verdict = await judgeSuccess(
      'ledger.v2',
      'getInfo',
      exchange(200, { server: 'ledger', version: '1', name: 'x' }),
      routed,
    );
    expect(verdict.outcome).toBe('SHAPE');
    expect(verdict.detail).toBe("field(s) the SDK's schema does not declare: name");
  });
});
