/** What a failed validation says (lib/validation/validate.ts). */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/index.js';
import { validate } from './validate.js';

const config = v.strictObject({
  endpoint: v.string(),
  retry: v.optional(v.strictObject({ attempts: v.number() })),
});
const messageOf = (input: unknown): string => {
  try {
    validate(config, input, 'body');
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as Error).message;
  }
  throw new Error('validated');
};

describe('an unknown field of a strict object', () => {
  it('is named as one, by its path, at any depth (never "Expected never")', () => {
    expect(messageOf({ endpoint: 'x', endpont: 'y' })).toBe('body.endpont: unknown field');
    expect(messageOf({ endpoint: 'x', retry: { attempts: 1, backoff: 2 } })).toBe(
      'body.retry.backoff: unknown field',
    );
  });

  it('is cut like any path segment when the key is long', () => {
    const key = 'k'.repeat(100);
    expect(messageOf({ endpoint: 'x', [key]: 1 })).toBe(`body.${'k'.repeat(64)}…: unknown field`);
  });

  it('leaves other issues as valibot words them, with their full path', () => {
    expect(messageOf({ endpoint: 'x', retry: { attempts: 'one' } })).toBe(
      'body.retry.attempts: Invalid type: Expected number but received "one"',
    );
  });
});
