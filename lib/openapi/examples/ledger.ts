import type { OperationExamples } from './types.js';

const POSTINGS = [{ source: 'world', destination: 'users:001', amount: 100, asset: 'USD/2' }];
const SCRIPT = `send [USD/2 100] (
  source = @world
  destination = @users:001
)`;

/** The ledger's path parameters, as a first session would use them: the ledger `main`, its first transaction. */
export const LEDGER_PATH_EXAMPLES: Record<string, string | number> = {
  ledger: 'main',
  id: 1,
  address: 'users:001',
  key: 'order',
  bucket: '_default',
  version: 'v1',
  exporterID: '0b0c1d5e-6f1a-4c3b-9d2e-5a4b3c2d1e0f',
  pipelineID: '7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d',
  monitorID: '3f2e1d0c-9b8a-4c7d-8e6f-5a4b3c2d1e0f',
};

export const LEDGER_EXAMPLES: OperationExamples = {
  v2CreateLedger: { body: { metadata: { team: 'payments' } } },
  v2UpdateLimits: {
    body: {
      rules: [
        { account: 'users:*', asset: 'USD/2', min: 0 },
        { account: 'merchants:*', max: 10_000_000, forceAllowed: true },
      ],
    },
  },
  v2CreateMonitor: {
    body: {
      account: 'users:*',
      asset: 'USD/2',
      condition: { type: 'below', amount: 1000 },
      metadata: { team: 'risk' },
    },
  },
  v2UpdateLedgerMetadata: { body: { team: 'payments' } },
  v2CreateTransaction: { body: { postings: POSTINGS, metadata: { order: 'order-42' } } },
  v2CreatePending: {
    body: {
      postings: [{ source: 'users:1', destination: 'merchants:7', amount: 2500, asset: 'USD/2' }],
      expiresAt: '2026-12-01T00:00:00Z',
      metadata: { authorization: 'auth-42' },
    },
  },
  v2PostPending: { body: { amounts: [2000], final: true, metadata: { capture: 'cap-1' } } },
  v2RevertTransaction: { body: { metadata: { reason: 'refund' } } },
  v2AddMetadataOnTransaction: { body: { order: 'order-42' } },
  v2AddMetadataToAccount: { body: { tier: 'gold' } },
  v2CreateBulk: {
    body: [
      { action: 'CREATE_TRANSACTION', ik: 'bulk-1', data: { postings: POSTINGS } },
      {
        action: 'ADD_METADATA',
        data: { targetType: 'ACCOUNT', targetId: 'users:001', metadata: { tier: 'gold' } },
      },
    ],
  },
  v2InsertSchema: {
    body: { chart: { world: {}, users: { $userId: { '.self': {} } } } },
  },
  v2RunQuery: { parameters: { id: 'balances' }, body: { vars: { asset: 'USD/2' } } },
  v2CreateExporter: {
    body: { driver: 's3', config: { bucket: 'acme-ledger', prefix: 'exports' } },
  },
  v2UpdateExporter: {
    body: { driver: 's3', config: { bucket: 'acme-ledger', prefix: 'exports' } },
  },
  v2CreatePipeline: { body: { exporterID: '0b0c1d5e-6f1a-4c3b-9d2e-5a4b3c2d1e0f' } },
  createTransaction: { body: { postings: POSTINGS, metadata: { order: 'order-42' } } },
  CreateTransactions: { body: { transactions: [{ postings: POSTINGS }] } },
  addMetadataOnTransaction: { body: { order: 'order-42' } },
  addMetadataToAccount: { body: { tier: 'gold' } },
  runScript: { body: { plain: SCRIPT, metadata: { order: 'order-42' } } },
  updateMapping: {
    body: { contracts: [{ account: 'users:*', expr: { $gte: ['$balance', -1000] } }] },
  },
};
