import { describe, expect, it } from 'vitest';
import { isEnvironmentId } from '../../environments/environment-id.js';
import {
  isOrganizationId,
  newEnvironmentId,
  newOrganizationId,
  randomText,
  slugOf,
} from './ids.js';

describe('slugOf', () => {
  it.each([
    ['Sandbox', 'sandbox'],
    ['  My  Sandbox!! ', 'my-sandbox'],
    ['Équipe Très Spéciale', 'equipe-tres-speciale'],
    ['a---b___c', 'a-b-c'],
    ['UPPER case 42', 'upper-case-42'],
    // Cut at 24, and no hyphen left at the end of the cut.
    ['abcdefghijklmnopqrstuvw xyz', 'abcdefghijklmnopqrstuvw'],
    ['x'.repeat(100), 'x'.repeat(24)],
    ['日本語', 'env'],
    ['!!!', 'env'],
    ['', 'env'],
  ])('%j → %j', (name, slug) => {
    expect(slugOf(name, 'env')).toBe(slug);
  });
});

describe('new ids', () => {
  it('are `<slug>-<8 random a-z0-9>` and always environment ids', () => {
    const fixed = () => 'k3j9x2q1';
    expect(newEnvironmentId('Sandbox', fixed)).toBe('sandbox-k3j9x2q1');
    expect(newOrganizationId('Acme Inc.', fixed)).toBe('acme-inc-k3j9x2q1');
    expect(newOrganizationId('???', fixed)).toBe('org-k3j9x2q1');
    for (const name of ['Sandbox', 'x'.repeat(300), '-', ' a ', 'Ünïcödé', '\u0000\u0001']) {
      const id = newEnvironmentId(name);
      expect(isEnvironmentId(id), id).toBe(true);
      expect(id.length).toBeLessThanOrEqual(33);
      expect(isOrganizationId(newOrganizationId(name))).toBe(true);
    }
  });

  it('draw their random part uniformly from a-z0-9', () => {
    const text = randomText(36 * 200);
    expect(text).toMatch(/^[a-z0-9]+$/);
    const counts = new Map<string, number>();
    for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(36);
    for (const n of counts.values()) expect(n).toBeGreaterThan(100);
    expect(randomText(8)).not.toBe(randomText(8));
  });
});

describe('isOrganizationId', () => {
  it('takes the ids the platform service gives and nothing a key could be bent with', () => {
    expect(isOrganizationId('default')).toBe(true);
    expect(isOrganizationId('acme-k3j9x2q1')).toBe(true);
    for (const bad of ['', 'A', 'a#b', 'a/b', '-a', 'a-', 'x'.repeat(41), 42, undefined])
      expect(isOrganizationId(bad), String(bad)).toBe(false);
  });
});
