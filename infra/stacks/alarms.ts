import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { PlatformMetrics } from './platform-metrics.js';
import type { PlatformQueues } from './queues.js';

const FIVE_MINUTES = Duration.minutes(5);

/**
 * Age of the oldest record the dispatcher has not processed. Streams drop records after 24 h and the mapping
 * gives up at 6 h (`DISPATCH_STREAM.maxRecordAge`): one hour behind leaves five to act before records go to the
 * failure queue, and eighteen more before they are gone.
 */
export const ITERATOR_AGE_THRESHOLD = Duration.hours(1);

/**
 * Age of the oldest relayed ledger write waiting in the ingress queue. A relayed request carries an 8 s deadline
 * (lib/ledger/write/relay.ts): an intent older than about 5 s has little time left to be decided, and past
 * its deadline its requester is answered 503 "not committed". A backlog this old means the writer is behind.
 */
export const LEDGER_INGRESS_AGE_THRESHOLD = Duration.seconds(5);

/**
 * A log exported this long after its commit: a pipeline behind (a long backfill, or one catching up after its
 * destination came back). New commits are exported within seconds when a pipeline keeps up.
 */
export const PIPELINE_LAG_THRESHOLD = Duration.minutes(15);
/** A connector schedule or a scheduled initiation found this late means the worker is behind or not running. */
export const CONNECTOR_LAG_THRESHOLD = Duration.minutes(15);
/** Failed connector runs in five minutes: one provider down for a while fails a run a minute per task. */
export const CONNECTOR_FAILED_THRESHOLD = 5;
/** Batches refused by destinations per five minutes (each failing pipeline retries with a back-off of 1 s doubling to 5 min). */
export const PIPELINE_FAILED_THRESHOLD = 5;

/** API 5xx answers per five minutes above which someone should look (a few are normal: 503 on throttling). */
export const API_5XX_THRESHOLD = 10;

/** A service's own 5xx answers per five minutes (its `Requests` metric): the same bar, per service. */
export const SERVICE_5XX_THRESHOLD = 10;
/** A service's p99 latency over five minutes, measured inside the function (cold start excluded). */
export const LATENCY_P99_THRESHOLD_MS = 2000;
/** Deliveries ending `failed` (the retry schedule exhausted, or 410) per five minutes: many endpoints at once. */
export const WEBHOOK_FAILED_THRESHOLD = 10;
/** Delivery messages the deliverer could not handle (DynamoDB or SQS errors: they return to the queue). */
export const WEBHOOK_ERROR_THRESHOLD = 5;
/** Token requests with unknown credentials per five minutes: guessing, or a client left with a revoked secret. */
export const TOKEN_INVALID_CLIENT_THRESHOLD = 50;
/** Token requests refused because a client id's failure budget from one address is spent (lib/auth/domain/throttle.ts). */
export const TOKEN_THROTTLED_THRESHOLD = 10;

/**
 * The alarm topic (encrypted with a key of its own, since CloudWatch cannot publish to a topic under the AWS
 * managed SNS key) and every alarm of the platform. docs/operations.md says what each means and what to do.
 */
export class PlatformAlarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, options: { physicalPrefix: string; email?: string }) {
    super(scope, id);
    const key = new Key(this, 'topic-key', {
      description: `${options.physicalPrefix}alarms topic encryption`,
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    key.grant(
      new ServicePrincipal('cloudwatch.amazonaws.com'),
      'kms:Decrypt',
      'kms:GenerateDataKey*',
    );
    this.topic = new Topic(this, 'topic', {
      topicName: `${options.physicalPrefix}alarms`,
      masterKey: key,
      enforceSSL: true,
    });
    if (options.email) this.topic.addSubscription(new EmailSubscription(options.email));
    this.action = new SnsAction(this.topic);
  }

  /** Errors (unhandled failures, timeouts, crashes at start-up) and throttles of a function. */
  functionHealth(name: string, fn: IFunction): void {
    this.add(
      `${name}-errors`,
      `${name}: invocations failed (unhandled error, timeout or start-up failure)`,
      fn.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
      1,
    );
    this.add(
      `${name}-throttles`,
      `${name}: invocations throttled (account or reserved concurrency exhausted)`,
      fn.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' }),
      1,
    );
  }

  /** The dispatcher falls behind one of its streams: Lambda's IteratorAge of a function is the maximum over all its stream mappings. */
  iteratorAge(dispatch: IFunction): void {
    const metric = dispatch.metric('IteratorAge', { period: FIVE_MINUTES, statistic: 'Maximum' });
    this.add(
      'dispatch-iterator-age',
      `dispatch: oldest unprocessed record of the events or a ledger table's stream older than ${ITERATOR_AGE_THRESHOLD.toHumanString()}`,
      metric,
      ITERATOR_AGE_THRESHOLD.toMilliseconds(),
    );
  }

  /** Any message waiting in a queue that should stay empty (a dead-letter or failure queue). */
  queueNotEmpty(name: string, queue: IQueue, meaning: string): void {
    this.add(
      name,
      meaning,
      queue.metricApproximateNumberOfMessagesVisible({
        period: FIVE_MINUTES,
        statistic: 'Maximum',
      }),
      1,
    );
  }

  /** The oldest message of a queue that should be drained within seconds has waited `threshold` or longer. */
  queueAge(name: string, queue: IQueue, threshold: Duration, meaning: string): void {
    this.add(
      name,
      meaning,
      queue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: 'Maximum' }),
      threshold.toSeconds(),
    );
  }

  /** Alarms on the functions' own metrics (lib/observability/catalog.ts), for each service where it applies. */
  platformMetrics(metrics: PlatformMetrics, services: readonly string[]): void {
    for (const service of services) {
      this.add(
        `${service}-5xx`,
        `${service}: ${SERVICE_5XX_THRESHOLD} or more 5xx answers in five minutes (Requests, status_class 5xx)`,
        metrics.requests(service, '5xx'),
        SERVICE_5XX_THRESHOLD,
      );
      this.add(
        `${service}-latency-p99`,
        `${service}: p99 latency of ${LATENCY_P99_THRESHOLD_MS} ms or more over five minutes (Latency, every route)`,
        metrics.latency(service, 'p99'),
        LATENCY_P99_THRESHOLD_MS,
      );
    }
    this.add(
      'webhook-deliveries-failed',
      `webhooks: ${WEBHOOK_FAILED_THRESHOLD} or more deliveries ended failed in five minutes (retries exhausted or 410 Gone)`,
      metrics.of('WebhookDeliveries', { outcome: 'failed' }, 'Sum'),
      WEBHOOK_FAILED_THRESHOLD,
    );
    this.add(
      'webhook-delivery-errors',
      `webhooks: ${WEBHOOK_ERROR_THRESHOLD} or more delivery messages failed to be handled in five minutes (they return to the queue)`,
      metrics.of('WebhookDeliveries', { outcome: 'error' }, 'Sum'),
      WEBHOOK_ERROR_THRESHOLD,
    );
    this.add(
      'token-invalid-client',
      `auth: ${TOKEN_INVALID_CLIENT_THRESHOLD} or more token requests with unknown credentials in five minutes`,
      metrics.of('TokenFailures', { reason: 'invalid_client' }, 'Sum'),
      TOKEN_INVALID_CLIENT_THRESHOLD,
    );
    this.add(
      'token-throttled',
      `auth: ${TOKEN_THROTTLED_THRESHOLD} or more token requests refused by the failure budget (429) in five minutes`,
      metrics.of('TokenFailures', { reason: 'throttled' }, 'Sum'),
      TOKEN_THROTTLED_THRESHOLD,
    );
  }

  /**
   * The exporters' pipelines: the function behind its ledger streams, their failure queue, the wakes queue's
   * dead letters (a drain that kept failing: DynamoDB or SQS), exports lagging, batches refused by destinations.
   */
  pipelines(fn: IFunction, queues: PlatformQueues, metrics: PlatformMetrics): void {
    this.add(
      'pipelines-iterator-age',
      `pipelines: oldest unprocessed record of a ledger table's stream older than ${ITERATOR_AGE_THRESHOLD.toHumanString()}`,
      fn.metric('IteratorAge', { period: FIVE_MINUTES, statistic: 'Maximum' }),
      ITERATOR_AGE_THRESHOLD.toMilliseconds(),
    );
    this.queueNotEmpty(
      'pipeline-stream-failures-depth',
      queues.pipelineStreamFailures,
      'pipelines gave up on a batch of a ledger stream (its description is in the queue): some pipelines were not woken',
    );
    this.queueNotEmpty(
      'pipeline-wakes-dlq-depth',
      queues.pipelineWakes.deadLetters,
      'Pipeline wakes in the dead-letter queue (their drain failed 5 times: DynamoDB or SQS); those pipelines wait for their next commit',
    );
    this.add(
      'pipeline-lag',
      `pipelines: a log reached its exporter ${PIPELINE_LAG_THRESHOLD.toHumanString()} or more after its commit (PipelineLag, maximum over five minutes)`,
      metrics.of('PipelineLag', {}, 'Maximum'),
      PIPELINE_LAG_THRESHOLD.toMilliseconds(),
    );
    this.add(
      'pipeline-batches-refused',
      `pipelines: ${PIPELINE_FAILED_THRESHOLD} or more batches refused by exporters' destinations in five minutes (PipelineDrains, outcome failed; each pipeline's error says why)`,
      metrics.of('PipelineDrains', { outcome: 'failed' }, 'Sum'),
      PIPELINE_FAILED_THRESHOLD,
    );
    this.add(
      'pipeline-drain-errors',
      'pipelines: drains failed in the worker itself (PipelineDrains, outcome error: DynamoDB or SQS)',
      metrics.of('PipelineDrains', { outcome: 'error' }, 'Sum'),
      1,
    );
  }

  /**
   * The payments connectors' worker: runs failing (a provider down, or the store; each schedule's instances say
   * which and why) and work found late (the worker behind, or its schedule not starting it).
   */
  connectors(metrics: PlatformMetrics): void {
    this.add(
      'connector-runs-failed',
      `payments connectors: ${CONNECTOR_FAILED_THRESHOLD} or more schedule runs failed in five minutes (ConnectorRuns, outcome failed; the schedules' instances say why)`,
      metrics.of('ConnectorRuns', { outcome: 'failed' }, 'Sum'),
      CONNECTOR_FAILED_THRESHOLD,
    );
    this.add(
      'connector-lag',
      `payments connectors: work found ${CONNECTOR_LAG_THRESHOLD.toHumanString()} or more past due (ConnectorLag, maximum over five minutes)`,
      metrics.of('ConnectorLag', {}, 'Maximum'),
      CONNECTOR_LAG_THRESHOLD.toMilliseconds(),
    );
  }

  apiServerErrors(api: HttpApi): void {
    this.add(
      'api-5xx',
      `API: more than ${API_5XX_THRESHOLD - 1} 5xx answers in five minutes`,
      api.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum' }),
      API_5XX_THRESHOLD,
    );
  }

  private add(id: string, description: string, metric: IMetric, threshold: number): void {
    const alarm = new Alarm(this, id, {
      alarmDescription: description,
      metric,
      threshold,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // No data means no invocations, no messages, no traffic: nothing wrong.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    this.alarms.push(alarm);
  }
}
