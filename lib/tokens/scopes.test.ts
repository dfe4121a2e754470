import { describe, expect, it } from 'vitest';
import { requiredScope } from './scopes.js';

describe('requiredScope', () => {
  it('reads for GET and HEAD, writes otherwise, and reads for a ledger query run (as the reference scopes it)', () => {
    expect(requiredScope('ledger', 'GET')).toBe('ledger:read');
    expect(requiredScope('ledger', 'POST', '/api/ledger/v2/main/transactions')).toBe(
      'ledger:write',
    );
    expect(requiredScope('ledger', 'POST', '/api/ledger/v2/main/queries/q1/run')).toBe(
      'ledger:read',
    );
    expect(requiredScope('ledger', 'PUT', '/api/ledger/v2/main/queries/q1/run')).toBe(
      'ledger:write',
    );
    expect(requiredScope('webhooks', 'POST', '/api/ledger/v2/main/queries/q1/run')).toBe(
      'webhooks:write',
    );
  });
});
