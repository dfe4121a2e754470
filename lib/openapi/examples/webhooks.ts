import type { OperationExamples } from './types.js';

export const WEBHOOKS_PATH_EXAMPLES: Record<string, string | number> = {
  id: '4997257d-dfb6-445b-929c-cbe2ab182818',
};

export const WEBHOOKS_EXAMPLES: OperationExamples = {
  insertConfig: {
    body: {
      name: 'orders',
      endpoint: 'https://example.com/webhooks',
      eventTypes: ['ledger.committed_transactions'],
    },
  },
  updateConfig: {
    body: { eventTypes: ['ledger.committed_transactions', 'ledger.reverted_transaction'] },
  },
  changeConfigSecret: { body: { secret: 'V0bivxRWveaoz08afqjU6Ko/jwO0Cb+3' } },
  replayDeliveries: {
    body: { createdAtFrom: '2026-01-01T00:00:00Z', statuses: ['failed'] },
  },
};
