import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { platformConfigFromVariables } from '../config/env.js';
import { tableVariables } from '../resources/definitions.js';
import { bigintDocumentClient, createRuntime } from './runtime.js';

const config = platformConfigFromVariables({
  STAGE: 'local',
  PUBLIC_BASE_URL: 'http://localhost:3000',
  AWS_REGION: 'eu-west-1',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:1',
  ...tableVariables('runtime-test-'),
});

/** What the client turns a stored number into (its unmarshalling option; DynamoDB returns numbers as text). */
const numberOf = (doc: DynamoDBDocumentClient, text: string): unknown => {
  const wrap = doc.config.translateConfig?.unmarshallOptions?.wrapNumbers;
  return typeof wrap === 'function' ? wrap(text) : Number(text);
};

describe('the document clients of a runtime', () => {
  it('a bigint runtime (the ledger and payments functions) has one client, which reads numbers as bigint', () => {
    const runtime = createRuntime(config, { bigintNumbers: true });
    expect(bigintDocumentClient(runtime)).toBe(runtime.doc);
    expect(numberOf(runtime.doc, '12345678901234567890')).toBe(12345678901234567890n);
  });

  it('a plain runtime (shared by services) keeps numbers; a bigint client is built beside it', () => {
    const runtime = createRuntime(config);
    const doc = bigintDocumentClient(runtime);
    expect(doc).not.toBe(runtime.doc);
    expect(numberOf(runtime.doc, '42')).toBe(42);
    expect(numberOf(doc, '12345678901234567890')).toBe(12345678901234567890n);
  });
});
