import { describe, expect, it } from 'vitest';
import { assetCode, decimalAmount, prettyJson } from './format.js';

describe('console formats', () => {
  it('writes minor units as a decimal of the asset precision, exactly, at any size', () => {
    expect(decimalAmount(2500n, 'USD/2')).toBe('25.00');
    expect(decimalAmount(5n, 'USD/2')).toBe('0.05');
    expect(decimalAmount(-5n, 'USD/2')).toBe('-0.05');
    expect(decimalAmount(0n, 'JPY/0')).toBe('0');
    expect(decimalAmount('123456789012345678901234567890', 'EUR/3')).toBe(
      '123456789012345678901234567.890',
    );
    expect(decimalAmount(9_007_199_254_740_993n, 'USD/2')).toBe('90071992547409.93');
    expect(decimalAmount(2500n, 'COIN')).toBeUndefined();
    expect(decimalAmount(2500n, undefined)).toBeUndefined();
    expect(assetCode('USD/2')).toBe('USD');
    expect(assetCode('COIN')).toBe('COIN');
  });

  it('re-indents JSON text without reading its numbers; other text is shown as it is', () => {
    expect(prettyJson('{"a":1,"b":[12345678901234567890,{}],"c":"x, {y}: \\"z\\"","d":[]}')).toBe(
      '{\n  "a": 1,\n  "b": [\n    12345678901234567890,\n    {}\n  ],\n  "c": "x, {y}: \\"z\\"",\n  "d": []\n}',
    );
    expect(prettyJson('not json {')).toBe('not json {');
  });
});
