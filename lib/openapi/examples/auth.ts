import type { OperationExamples } from './types.js';

export const AUTH_PATH_EXAMPLES: Record<string, string | number> = {
  id: '3bb6a0b6-8d5a-4f2b-9c1e-2f7d6e5c4b3a',
  secretId: '8c7b6a5f-4e3d-4c2b-9a1f-0e9d8c7b6a5f',
  userId: '6d5c4b3a-2f1e-4d0c-9b8a-7f6e5d4c3b2a',
};

export const AUTH_EXAMPLES: OperationExamples = {
  createToken: {
    body: {
      grant_type: 'client_credentials',
      client_id: 'my-client-id',
      client_secret: 'my-client-secret',
      scope: 'ledger:read ledger:write',
    },
  },
  createClient: {
    body: {
      name: 'billing',
      description: 'Billing service',
      scopes: ['ledger:read', 'ledger:write'],
    },
  },
  updateClient: {
    body: { name: 'billing', description: 'Billing service', scopes: ['ledger:read'] },
  },
  createSecret: { body: { name: 'ci' } },
};

export const PLATFORM_PATH_EXAMPLES: Record<string, string | number> = {
  org: 'default',
  env: 'sandbox',
  email: 'member@example.com',
};

export const PLATFORM_EXAMPLES: OperationExamples = {
  createOrganization: { body: { name: 'Acme' } },
  createEnvironment: { body: { name: 'sandbox', type: 'sandbox' } },
  putMember: { body: { role: 'member' } },
  createPersonalToken: { body: { organization: 'default', environment: 'sandbox' } },
};
