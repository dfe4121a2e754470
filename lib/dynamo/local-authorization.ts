import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';

type RequestSigner = Exclude<NonNullable<DynamoDBClientConfig['signer']>, () => unknown>;

/**
 * A signer for DynamoDB Local that does not sign. The emulator reads a request's Authorization header only for
 * its key id and region (they name its database) and checks no signature, while signature version 4 costs Node
 * about 0.3 CPU-ms a request (hashing the body, then the canonical request, per request) — on the path of every
 * ledger commit and of its durability read. Every request carries the one header, built once.
 */
export function localAuthorization(accessKeyId: string, region: string): RequestSigner {
  const authorization = `AWS4-HMAC-SHA256 Credential=${accessKeyId}/19700101/${region}/dynamodb/aws4_request, SignedHeaders=host, Signature=0`;
  return {
    sign: async (request) => {
      request.headers.authorization = authorization;
      return request;
    },
  };
}
