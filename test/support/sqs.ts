import { SQSClient } from '@aws-sdk/client-sqs';

/** A client of a local SQS emulator (infra/local/sqs-local.ts), with the fake credentials it accepts. */
export function localSqsClient(endpoint: string): SQSClient {
  return new SQSClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}
