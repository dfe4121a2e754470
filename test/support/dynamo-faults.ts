import {
  ProvisionedThroughputExceededException,
  ThrottlingException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';

/** DynamoDB failures as the SDK raises them, for failure injection with aws-sdk-client-mock. */

/** A cancelled transaction: one reason per item, `None` except the given ones. */
export function cancelled(
  command: { input: { TransactItems?: unknown[] } },
  codes: Record<number, string>,
): TransactionCanceledException {
  const count = command.input.TransactItems?.length ?? 0;
  const reasons = Array.from({ length: count }, (_, i) =>
    codes[i] ? { Code: codes[i], Message: `${codes[i]} (injected)` } : { Code: 'None' },
  );
  return new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: reasons,
  });
}

export const throughputExceeded = () =>
  new ProvisionedThroughputExceededException({
    message: 'The level of configured provisioned throughput for the table was exceeded',
    $metadata: { httpStatusCode: 400 },
  });

export const throttled = () =>
  new ThrottlingException({
    message: 'Rate of requests exceeds the allowed throughput',
    $metadata: { httpStatusCode: 400 },
  });

export const fail = (err: Error) => Promise.reject(err);
