import { describe, expect, it } from 'vitest';
import { ConflictError, EnvironmentNotEmptyError } from '../../errors/index.js';
import type { Environment } from './directory.js';
import {
  MAX_ENVIRONMENTS_PER_ORGANIZATION,
  requireDeletable,
  requireEmpty,
  requireRoomForEnvironment,
} from './environments.js';

const env = (id: string, organizationId: string): Environment => ({
  id,
  organizationId,
  name: id,
  type: 'production',
  createdAt: 't',
});

describe('environment rules', () => {
  it('keeps the default environment of the default organization, and only that one', () => {
    expect(() => requireDeletable(env('default', 'default'))).toThrow(ConflictError);
    expect(() => requireDeletable(env('default', 'acme'))).not.toThrow();
    expect(() => requireDeletable(env('sandbox-k3j9x2q1', 'default'))).not.toThrow();
  });

  it('deletes only an empty environment, naming what it holds', () => {
    expect(() => requireEmpty(env('e', 'o'), [])).not.toThrow();
    expect(() => requireEmpty(env('e', 'o'), ['ledgers', 'clients'])).toThrow(
      new EnvironmentNotEmptyError('environment e still holds ledgers, clients: delete them first'),
    );
  });

  it('bounds an organization’s environments', () => {
    expect(() =>
      requireRoomForEnvironment('o', MAX_ENVIRONMENTS_PER_ORGANIZATION - 1),
    ).not.toThrow();
    expect(() => requireRoomForEnvironment('o', MAX_ENVIRONMENTS_PER_ORGANIZATION)).toThrow(
      ConflictError,
    );
  });
});
