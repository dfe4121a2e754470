import { randomUUID } from 'node:crypto';
import type { OpenBankingProvider } from './provider.js';

/**
 * dummypay's open banking, as the reference's dummypay simulates it: the provider's link is the platform's callback
 * itself, carrying `status=success` (the user granted access) — change it to `status=error` to see a refusal. The
 * connection it makes is a fresh id (or the renewed one). Users and connections live nowhere but the platform.
 */
export function dummypayOpenBanking(check: () => void): OpenBankingProvider {
  return {
    createUser: async (user) => {
      check();
      return { pspUserID: `dummypay-${user.id}` };
    },
    createLink: async ({ callbackURL, connectionID }) => {
      check();
      const link = new URL(callbackURL);
      link.searchParams.set('status', 'success');
      if (connectionID !== undefined) link.searchParams.set('connectionID', connectionID);
      return { link: link.toString() };
    },
    completeLink: async (query) => {
      check();
      if (query.status === 'success') return { connectionID: query.connectionID ?? randomUUID() };
      return {
        error: `the provider reported status ${String(query.status ?? '(none)').slice(0, 40)}`,
      };
    },
    deleteConnection: async () => check(),
    deleteUser: async () => check(),
  };
}
