import type { OperationExamples } from './types.js';

export const PAYMENTS_PATH_EXAMPLES: Record<string, string | number> = {
  id: 'eyJDb25uZWN0b3JJRCI6ImV4YW1wbGUiLCJSZWZlcmVuY2UiOiJwYXktMDAxIn0',
  accountID: 'eyJDb25uZWN0b3JJRCI6ImV4YW1wbGUiLCJSZWZlcmVuY2UiOiJhY2MtMDAxIn0',
  bankAccountID: '5e4d3c2b-1a0f-4e9d-8c7b-6a5f4e3d2c1b',
  paymentServiceUserID: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
  poolID: '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a',
  connector: 'generic',
  connectorID: 'eyJQcm92aWRlciI6ImdlbmVyaWMiLCJSZWZlcmVuY2UiOiJleGFtcGxlIn0',
  taskID: 'eyJDb25uZWN0b3JJRCI6ImV4YW1wbGUiLCJSZWZlcmVuY2UiOiJ0YXNrIn0',
  scheduleID: 'FETCH_ACCOUNTS',
  paymentInitiationID:
    'eyJDb25uZWN0b3JJRCI6ImV4YW1wbGUiLCJSZWZlcmVuY2UiOiJ0ci0wMDEiLCJUeXBlIjoiVFJBTlNGRVIifQ',
  // v1's names for the same ids.
  paymentId: 'q1Vb4xk2T0n9cJ8mR3pA7sYfW5hE6uL0dG1iK2oN3zQ',
  accountId: 'Zt7Qe1Wm4Rk9Xc2Vb5Nn8Lp3Hj6Gf0Ds1Aa2Ss3Dd4E',
  bankAccountId: '5e4d3c2b-1a0f-4e9d-8c7b-6a5f4e3d2c1b',
  poolId: '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a',
  connectorId: 'eyJQcm92aWRlciI6ImdlbmVyaWMiLCJSZWZlcmVuY2UiOiJleGFtcGxlIn0',
  taskId: 'fetch-accounts.eyJQcm92aWRlciI6ImdlbmVyaWMiLCJSZWZlcmVuY2UiOiJleGFtcGxlIn0',
  transferId:
    'eyJDb25uZWN0b3JJRCI6ImV4YW1wbGUiLCJSZWZlcmVuY2UiOiJ0ci0wMDEiLCJUeXBlIjoiVFJBTlNGRVIifQ',
  attemptID: '7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d',
  connectionID: '2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e',
  environment: 'default',
  // The provider-webhook route's own path after the connector id.
  path: 'events',
};

const CONNECTOR = 'eyJQcm92aWRlciI6ImdlbmVyaWMiLCJSZWZlcmVuY2UiOiJleGFtcGxlIn0';

export const PAYMENTS_EXAMPLES: OperationExamples = {
  v3InitiatePayment: {
    body: {
      reference: 'tr-001',
      connectorID: CONNECTOR,
      description: 'Supplier payout',
      type: 'TRANSFER',
      amount: 2500,
      asset: 'EUR/2',
      sourceAccountID: 'eyJDb25uZWN0b3JJRCI6ImV4YW1wbGUiLCJSZWZlcmVuY2UiOiJhY2MtMDAxIn0',
      destinationAccountID: 'eyJDb25uZWN0b3JJRCI6ImV4YW1wbGUiLCJSZWZlcmVuY2UiOiJhY2MtMDAyIn0',
      metadata: { invoice: 'inv-7' },
    },
  },
  v3ReversePaymentInitiation: {
    body: {
      reference: 'tr-001-reversal',
      description: 'Refund of the payout',
      amount: 500,
      asset: 'EUR/2',
    },
  },
  v3CreatePayment: {
    body: {
      reference: 'pay-001',
      connectorID: CONNECTOR,
      type: 'PAY-IN',
      status: 'SUCCEEDED',
      amount: 1000,
      asset: 'EUR/2',
      scheme: 'SEPA',
      createdAt: '2026-01-15T10:00:00Z',
      destinationAccountID: 'eyJDb25uZWN0b3JJRCI6ImV4YW1wbGUiLCJSZWZlcmVuY2UiOiJhY2MtMDAxIn0',
      metadata: { order: 'order-42' },
    },
  },
  v3UpdatePaymentMetadata: { body: { order: 'order-42' } },
  v3CreateAccount: {
    body: {
      reference: 'acc-001',
      connectorID: CONNECTOR,
      createdAt: '2026-01-15T10:00:00Z',
      accountName: 'Main account',
      type: 'INTERNAL',
      defaultAsset: 'EUR/2',
    },
  },
  v3CreateBankAccount: {
    body: { name: 'Acme payroll', iban: 'FR1420041010050500013M02606', country: 'FR' },
  },
  v3UpdateBankAccountMetadata: { body: { metadata: { team: 'payroll' } } },
  v3CreatePaymentServiceUser: {
    body: { name: 'Jane Doe', contactDetails: { email: 'jane@example.com', locale: 'fr-FR' } },
  },
  v3CreatePool: {
    body: {
      name: 'treasury',
      accountIDs: ['eyJDb25uZWN0b3JJRCI6ImV4YW1wbGUiLCJSZWZlcmVuY2UiOiJhY2MtMDAxIn0'],
    },
  },
  v3UpdatePoolQuery: { body: { query: { $match: { 'metadata[team]': 'treasury' } } } },
  v3InstallConnector: {
    body: {
      provider: 'Generic',
      name: 'generic-example',
      endpoint: 'https://provider.example.com',
      apiKey: 'sk_test_example',
      pollingPeriod: '5m',
    },
  },
  v3UpdateConnectorConfig: {
    body: {
      provider: 'Generic',
      name: 'generic-example',
      endpoint: 'https://provider.example.com',
      apiKey: 'sk_test_example',
      pollingPeriod: '10m',
    },
  },
  v1CreatePayment: {
    body: {
      reference: 'pay-001',
      connectorID: CONNECTOR,
      type: 'PAY-IN',
      status: 'SUCCEEDED',
      scheme: 'sepa credit',
      amount: 1000,
      asset: 'EUR/2',
      createdAt: '2026-01-15T10:00:00Z',
      destinationAccountID: 'Zt7Qe1Wm4Rk9Xc2Vb5Nn8Lp3Hj6Gf0Ds1Aa2Ss3Dd4E',
    },
  },
  v1UpdatePaymentMetadata: { body: { order: 'order-42' } },
  v1CreateAccount: {
    body: {
      reference: 'acc-001',
      connectorID: CONNECTOR,
      createdAt: '2026-01-15T10:00:00Z',
      accountName: 'Main account',
      type: 'INTERNAL',
      defaultAsset: 'EUR/2',
    },
  },
  v1CreateBankAccount: {
    body: { name: 'Acme payroll', iban: 'FR1420041010050500013M02606', country: 'FR' },
  },
  v1UpdateBankAccountMetadata: { body: { metadata: { team: 'payroll' } } },
  v1CreatePool: {
    body: { name: 'treasury', accountIDs: ['Zt7Qe1Wm4Rk9Xc2Vb5Nn8Lp3Hj6Gf0Ds1Aa2Ss3Dd4E'] },
  },
  v1AddAccountToPool: { body: { accountID: 'Zt7Qe1Wm4Rk9Xc2Vb5Nn8Lp3Hj6Gf0Ds1Aa2Ss3Dd4E' } },
  v1UpdatePoolQuery: { body: { query: { $match: { 'metadata[team]': 'treasury' } } } },
  v1InstallConnector: {
    body: {
      provider: 'Generic',
      name: 'generic-example',
      endpoint: 'https://provider.example.com',
      apiKey: 'sk_test_example',
      pollingPeriod: '5m',
    },
  },
  v1UpdateConnectorConfig: {
    body: {
      provider: 'Generic',
      name: 'generic-example',
      endpoint: 'https://provider.example.com',
      apiKey: '********',
      pollingPeriod: '10m',
    },
  },
  v1ConnectorTransfer: {
    body: { amount: 2500, asset: 'EUR/2', source: 'acc-001', destination: 'acc-002' },
  },
  v1CreateTransferInitiation: {
    body: {
      reference: 'tr-001',
      connectorID: CONNECTOR,
      description: 'Supplier payout',
      type: 'PAYOUT',
      amount: 2500,
      asset: 'EUR/2',
      scheduledAt: '0001-01-01T00:00:00Z',
      sourceAccountID: 'Zt7Qe1Wm4Rk9Xc2Vb5Nn8Lp3Hj6Gf0Ds1Aa2Ss3Dd4E',
      destinationAccountID: 'Xc2Vb5Nn8Lp3Hj6Gf0Ds1Aa2Ss3Dd4EZt7Qe1Wm4Rk9',
      validated: false,
      metadata: { invoice: 'inv-7' },
    },
  },
  v1UpdateTransferInitiationStatus: { body: { status: 'VALIDATED' } },
  v1ReverseTransferInitiation: {
    body: {
      reference: 'tr-001-reversal',
      description: 'Refund of the payout',
      amount: 500,
      asset: 'EUR/2',
      metadata: {},
    },
  },
  v3ForwardBankAccount: { body: { connectorID: CONNECTOR } },
  v3ForwardPaymentServiceUserBankAccount: { body: { connectorID: CONNECTOR } },
  v1ForwardBankAccount: { body: { connectorID: CONNECTOR } },
  v3CreateLinkForPaymentServiceUser: {
    body: { applicationName: 'Acme', clientRedirectURL: 'https://app.example.com/banks/linked' },
  },
  v3UpdateLinkForPaymentServiceUserOnConnector: {
    body: { clientRedirectURL: 'https://app.example.com/banks/linked' },
  },
};
