import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';

/**
 * The SQS client of a function, from its environment: `SQS_ENDPOINT` set (the local emulator) → that endpoint
 * with placeholder credentials (fauxqs accepts any), so local runs never look for real AWS credentials;
 * otherwise the SDK's regional endpoint and the function's role.
 */
export function sqsClientFromEnv(env: NodeJS.ProcessEnv = process.env): SQSClient {
  const config: SQSClientConfig = { region: env.AWS_REGION ?? 'us-east-1' };
  if (env.SQS_ENDPOINT) {
    config.endpoint = env.SQS_ENDPOINT;
    config.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  }
  return new SQSClient(config);
}
