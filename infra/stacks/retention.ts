import { RetentionDays } from 'aws-cdk-lib/aws-logs';

/** CloudWatch Logs accepts only certain retention periods; a configured number must be one of them. */
export function retentionDays(days: number): RetentionDays {
  const allowed = Object.values(RetentionDays).filter(
    (v): v is RetentionDays => typeof v === 'number' && v > 0,
  );
  if (!allowed.includes(days as RetentionDays)) {
    throw new Error(
      `log retention of ${days} days is not one CloudWatch Logs accepts (${allowed.join(', ')})`,
    );
  }
  return days as RetentionDays;
}
