import { describe, expect, it } from 'vitest';
import {
  ForbiddenError,
  NoSandboxEnvironmentError,
  NotFoundError,
  ValidationError,
} from '../../errors/index.js';
import type { Environment, Membership } from './directory.js';
import { personalTokenEnvironment, personalTokenMembership } from './personal-token.js';

const membership = (organizationId: string, role: 'admin' | 'member' = 'member'): Membership => ({
  organizationId,
  email: 'p@x.io',
  role,
  addedAt: 't',
});
const env = (
  id: string,
  type: 'sandbox' | 'production',
  createdAt: string,
  organizationId = 'acme',
): Environment => ({ id, organizationId, name: id, type, createdAt });

describe('personalTokenMembership', () => {
  const acme = membership('acme', 'admin');
  const beta = membership('beta');

  it('takes the only organization when nothing is named', () => {
    expect(personalTokenMembership({}, [acme], undefined)).toBe(acme);
  });

  it('asks a person in several organizations to name one; refuses one in none', () => {
    expect(() => personalTokenMembership({}, [acme, beta], undefined)).toThrow(ValidationError);
    expect(() => personalTokenMembership({}, [], undefined)).toThrow(ForbiddenError);
  });

  it('takes the organization named, if the person is in it (404 otherwise)', () => {
    expect(personalTokenMembership({ organization: 'beta' }, [acme, beta], undefined)).toBe(beta);
    expect(() => personalTokenMembership({ organization: 'gamma' }, [acme], undefined)).toThrow(
      'organization gamma not found',
    );
  });

  it('takes the named environment’s organization, if the person is in it and it matches (404 otherwise)', () => {
    const inBeta = env('b-env', 'production', 't', 'beta');
    expect(personalTokenMembership({ environment: 'b-env' }, [acme, beta], inBeta)).toBe(beta);
    expect(
      personalTokenMembership({ environment: 'b-env', organization: 'beta' }, [acme, beta], inBeta),
    ).toBe(beta);
    for (const [request, memberships, named] of [
      [{ environment: 'b-env' }, [acme], inBeta],
      [{ environment: 'b-env', organization: 'acme' }, [acme, beta], inBeta],
      [{ environment: 'gone' }, [acme, beta], undefined],
    ] as const) {
      expect(() => personalTokenMembership(request, memberships, named)).toThrow(NotFoundError);
    }
  });
});

describe('personalTokenEnvironment', () => {
  const prod = env('prod', 'production', '2026-01-01T00:00:00.000Z');
  const newer = env('sbx-new', 'sandbox', '2026-03-01T00:00:00.000Z');
  const older = env('sbx-old', 'sandbox', '2026-02-01T00:00:00.000Z');
  const twin = env('sbx-aaa', 'sandbox', '2026-02-01T00:00:00.000Z');

  it('is the oldest sandbox (ties by id) unless one is named', () => {
    expect(personalTokenEnvironment('acme', [prod, newer, older], undefined)).toBe(older);
    expect(personalTokenEnvironment('acme', [prod, newer, older, twin], undefined)).toBe(twin);
    expect(personalTokenEnvironment('acme', [prod, newer, older], prod)).toBe(prod);
  });

  it('requires a sandbox in the organization, named environment or not', () => {
    expect(() => personalTokenEnvironment('acme', [prod], undefined)).toThrow(
      NoSandboxEnvironmentError,
    );
    expect(() => personalTokenEnvironment('acme', [prod], prod)).toThrow(
      'organization acme has no sandbox environment: create a sandbox environment first',
    );
    expect(() => personalTokenEnvironment('acme', [], undefined)).toThrow(
      NoSandboxEnvironmentError,
    );
  });
});
