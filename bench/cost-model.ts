/**
 * Dollars per million single-posting ledger transactions at on-demand prices, from the measured units of
 * operation-cost.ts. Prices and the Lambda assumptions are written out here and in the report: they are
 * assumptions to re-check against the live AWS pricing pages, not facts this benchmark measured.
 */
import type { OperationCost } from './operation-cost.js';
import { round } from './stats.js';

export const PRICES = {
  asOf: '2026-11 (figures as used; re-check against the live AWS pricing pages)',
  region: 'us-east-1',
  dynamoWriteRequestUnitPerMillion: 0.625,
  dynamoReadRequestUnitPerMillion: 0.125,
  lambdaArmPerGbSecond: 0.0000133334,
  lambdaPerMillionRequests: 0.2,
  httpApiPerMillionRequests: 1.0,
  sqsPerMillionRequests: 0.4,
  notes: [
    'DynamoDB on-demand: $0.625 per million write request units and $0.125 per million read request units (since the November 2024 price cut).',
    'Lambda arm64: $0.0000133334 per GB-s and $0.20 per million requests.',
    'API Gateway HTTP API: $1.00 per million requests (first 300 million a month).',
    'SQS standard: $0.40 per million requests (not in the issue; the commonly quoted price, also an assumption).',
    'Not modelled: CloudWatch Logs, storage, point-in-time recovery, data transfer, free tiers.',
  ],
};

export const ASSUMPTIONS = {
  ledgerLambdaMemoryGb: 1,
  dispatchLambdaMemoryGb: 0.25,
  dispatchEventsPerInvocation: 10,
  dispatchMsPerInvocation: 50,
  deliverLambdaMemoryGb: 0.25,
  deliverMessagesPerInvocation: 10,
  deliverMsPerInvocation: 150,
  /** ReceiveMessage + DeleteMessageBatch made by the SQS event source mapping, per batch of 10 messages. */
  sqsPollRequestsPerMessage: 0.2,
};

export interface CostLine {
  component: string;
  units: string;
  dollarsPerMillion: number;
  basis: 'measured units × price' | 'assumption × price';
}

export interface CostModel {
  prices: typeof PRICES;
  assumptions: typeof ASSUMPTIONS & { ledgerLambdaMs: number; ledgerLambdaMsBasis: string };
  ledgerOnly: { lines: CostLine[]; total: number };
  withOneWebhook: { lines: CostLine[]; total: number };
}

export function modelCost(
  ops: OperationCost[],
  ledgerLambdaMs: number,
  ledgerLambdaMsBasis: string,
): CostModel {
  const find = (prefix: string) => {
    const op = ops.find((o) => o.operation.startsWith(prefix));
    if (!op) throw new Error(`no measured operation "${prefix}"`);
    return op;
  };
  const tx = find('create transaction, 1 posting, existing accounts');
  const dispatch = find('webhook dispatch of 1 event, 1 subscribed config (config cache warm)');
  const deliver = find('webhook delivery of 1 message');
  const P = PRICES;
  const A = ASSUMPTIONS;
  const ledgerLines: CostLine[] = [
    {
      component: 'API Gateway HTTP API',
      units: '1 request',
      dollarsPerMillion: P.httpApiPerMillionRequests,
      basis: 'assumption × price',
    },
    {
      component: 'Ledger Lambda',
      units: `1 request + ${A.ledgerLambdaMemoryGb} GB × ${ledgerLambdaMs} ms`,
      dollarsPerMillion:
        P.lambdaPerMillionRequests +
        A.ledgerLambdaMemoryGb * (ledgerLambdaMs / 1000) * P.lambdaArmPerGbSecond * 1e6,
      basis: 'assumption × price',
    },
    {
      component: 'DynamoDB writes (ledger commit)',
      units: `${tx.writeUnitsByRules} WRU`,
      dollarsPerMillion: tx.writeUnitsByRules * P.dynamoWriteRequestUnitPerMillion,
      basis: 'measured units × price',
    },
    {
      component: 'DynamoDB reads (ledger snapshot)',
      units: `${tx.readUnits} RRU`,
      dollarsPerMillion: tx.readUnits * P.dynamoReadRequestUnitPerMillion,
      basis: 'measured units × price',
    },
  ];
  const webhookLines: CostLine[] = [
    {
      component: 'DynamoDB writes (dispatch + deliver)',
      units: `${dispatch.writeUnitsByRules + deliver.writeUnitsByRules} WRU`,
      dollarsPerMillion:
        (dispatch.writeUnitsByRules + deliver.writeUnitsByRules) *
        P.dynamoWriteRequestUnitPerMillion,
      basis: 'measured units × price',
    },
    {
      component: 'DynamoDB reads (dispatch + deliver)',
      units: `${dispatch.readUnits + deliver.readUnits} RRU`,
      dollarsPerMillion:
        (dispatch.readUnits + deliver.readUnits) * P.dynamoReadRequestUnitPerMillion,
      basis: 'measured units × price',
    },
    {
      component: 'SQS',
      units: `${dispatch.sqsRequests ?? 0} send (measured, unbatched) + ${A.sqsPollRequestsPerMessage} receive/delete`,
      dollarsPerMillion:
        ((dispatch.sqsRequests ?? 0) + A.sqsPollRequestsPerMessage) * P.sqsPerMillionRequests,
      basis: 'measured units × price',
    },
    {
      component: 'Dispatch Lambda',
      units: `1/${A.dispatchEventsPerInvocation} request + ${A.dispatchLambdaMemoryGb} GB × ${A.dispatchMsPerInvocation} ms / ${A.dispatchEventsPerInvocation}`,
      dollarsPerMillion:
        (P.lambdaPerMillionRequests +
          A.dispatchLambdaMemoryGb *
            (A.dispatchMsPerInvocation / 1000) *
            P.lambdaArmPerGbSecond *
            1e6) /
        A.dispatchEventsPerInvocation,
      basis: 'assumption × price',
    },
    {
      component: 'Deliver Lambda',
      units: `1/${A.deliverMessagesPerInvocation} request + ${A.deliverLambdaMemoryGb} GB × ${A.deliverMsPerInvocation} ms / ${A.deliverMessagesPerInvocation}`,
      dollarsPerMillion:
        (P.lambdaPerMillionRequests +
          A.deliverLambdaMemoryGb *
            (A.deliverMsPerInvocation / 1000) *
            P.lambdaArmPerGbSecond *
            1e6) /
        A.deliverMessagesPerInvocation,
      basis: 'assumption × price',
    },
  ];
  const rounded = (lines: CostLine[]) =>
    lines.map((l) => ({ ...l, dollarsPerMillion: round(l.dollarsPerMillion, 3) }));
  const total = (lines: CostLine[]) =>
    round(
      lines.reduce((s, l) => s + l.dollarsPerMillion, 0),
      2,
    );
  return {
    prices: P,
    assumptions: { ...A, ledgerLambdaMs, ledgerLambdaMsBasis },
    ledgerOnly: { lines: rounded(ledgerLines), total: total(ledgerLines) },
    withOneWebhook: {
      lines: rounded([...ledgerLines, ...webhookLines]),
      total: total([...ledgerLines, ...webhookLines]),
    },
  };
}
