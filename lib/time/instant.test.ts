import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/index.js';
import { formatInstant, parseInstant, sortableInstant } from './instant.js';

const message = (value: string) => {
  try {
    parseInstant(value, 'at');
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as Error).message;
  }
  return 'accepted';
};

describe('instants', () => {
  it('parses RFC 3339 with offsets and microseconds, formats in UTC with trailing zeros trimmed', () => {
    expect(formatInstant(parseInstant('2024-02-29T23:30:00.123456-01:00', 'at'))).toBe(
      '2024-03-01T00:30:00.123456Z',
    );
    expect(formatInstant(parseInstant('2026-11-22T10:04:05.120Z', 'at'))).toBe(
      '2026-11-22T10:04:05.12Z',
    );
    expect(formatInstant(parseInstant('2026-11-22T10:04:05Z', 'at'))).toBe('2026-11-22T10:04:05Z');
    expect(sortableInstant(parseInstant('2026-11-22T10:04:05.1234567Z', 'at'))).toBe(
      '2026-11-22T10:04:05.123456Z',
    );
  });

  it('refuses impossible calendar dates and times instead of rolling them over', () => {
    for (const bad of [
      '2026-02-29T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-00-10T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T23:60:00Z',
      '2026-01-01T23:59:60Z',
      '2026-01-01T00:00:00+24:00',
      '2026-01-01',
      'yesterday',
    ]) {
      expect(message(bad), bad).toContain('must be an RFC 3339 date-time');
    }
    expect(message('2024-02-29T00:00:00Z')).toBe('accepted');
  });

  it('keeps to four-digit years so sortable keys keep their width', () => {
    expect(message('0000-12-31T23:59:59Z')).toBe('at: must be between years 0001 and 9999');
    expect(message('0001-01-01T00:00:00Z')).toBe('accepted');
    expect(message('9999-12-31T23:59:59Z')).toBe('accepted');
  });
});
