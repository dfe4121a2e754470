/**
 * Structured JSON logs: one object per line, which Lambda ships to CloudWatch as-is. Backed by the Powertools
 * Logger (`level`, `message`, `timestamp`, `service`, then the fields; under Lambda the invocation's
 * `function_request_id`, `cold_start`, `function_name` and, when traced, `xray_trace_id`). Callers pass plain
 * fields; nothing here knows about secrets, so callers must never pass one.
 */
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { ConstructorOptions } from '@aws-lambda-powertools/logger/types';
import type { LogFormat, LogLevel } from '../config/stage.js';
import { prettyLogLine } from './pretty-log.js';

export type { LogFormat, LogLevel } from '../config/stage.js';

const LEVELS = {
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
  error: 'ERROR',
  silent: 'SILENT',
} as const;

export interface Logger {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
}

/** The part of Lambda's context object the log lines carry. */
export interface LambdaContextLike {
  awsRequestId?: string;
  functionName?: string;
  functionVersion?: string;
  invokedFunctionArn?: string;
  memoryLimitInMB?: string | number;
}

let invocation: { context: LambdaContextLike; coldStart: boolean } | undefined;

/** Called by the Lambda handler wrapper at the start of each invocation: every line then names it. */
export function enterLambdaInvocation(context: LambdaContextLike, coldStart: boolean): void {
  invocation = { context, coldStart };
}

/** Called when the invocation ends: a logger made afterwards (another handler in the same process) names none. */
export function leaveLambdaInvocation(): void {
  invocation = undefined;
}

/**
 * Powertools' Logger, printing through `write` when given (tests read the lines), and taking the current
 * invocation's context before each line (one process, one invocation at a time: a Lambda container).
 */
class PlatformLogger extends PowertoolsLogger {
  private seen: typeof invocation;

  constructor(
    options: ConstructorOptions,
    private readonly write?: (line: string) => void,
    private readonly format: LogFormat = 'json',
  ) {
    super(options);
  }

  /** Powertools' own test is per instance; the wrapper knows whether this invocation is the container's first. */
  override getColdStart(): boolean {
    return invocation?.coldStart ?? false;
  }

  protected override processLogItem(...args: Parameters<PowertoolsLogger['processLogItem']>): void {
    if (invocation !== this.seen) {
      this.seen = invocation;
      // biome-ignore lint/suspicious/noExplicitAny: Powertools types the whole Lambda Context; it reads these fields.
      if (invocation) this.addContext(invocation.context as any);
    }
    super.processLogItem(...args);
  }

  protected override printLog(...args: Parameters<PowertoolsLogger['printLog']>): void {
    if (!this.write && this.format === 'json') {
      super.printLog(...args);
      return;
    }
    const [, item] = args;
    item.prepareForPrint();
    const line =
      this.format === 'pretty'
        ? prettyLogLine(item.getAttributes())
        : JSON.stringify(item.getAttributes(), this.getJsonReplacer());
    if (this.write) this.write(line);
    else process.stdout.write(`${line}\n`);
  }

  protected override createLogger(options?: ConstructorOptions): PowertoolsLogger {
    return new PlatformLogger(options ?? {}, this.write, this.format);
  }
}

/** Services named in fields: a handful (the four services); past this, lines keep the default service. */
const MAX_SERVICES = 16;

/**
 * A logger at `level` (lines below it are dropped), writing to stdout (or `write`). A `service` field names the
 * line's service (Powertools reserves that key): each service gets its own child logger, so the request lines of
 * the services sharing the local platform's process say whose they are.
 */
export function createLogger(
  level: LogLevel | 'silent' = 'info',
  write?: (line: string) => void,
  format: LogFormat = 'json',
): Logger {
  const root = new PlatformLogger(
    { logLevel: LEVELS[level], serviceName: 'platform' },
    write,
    format,
  );
  const services = new Map<string, PowertoolsLogger>();
  const forService = (service: unknown): PowertoolsLogger => {
    if (typeof service !== 'string' || service === '') return root;
    let child = services.get(service);
    if (!child && services.size < MAX_SERVICES) {
      child = root.createChild({ serviceName: service });
      services.set(service, child);
    }
    return child ?? root;
  };
  return {
    log(lvl, message, fields = {}) {
      const { service, ...rest } = fields;
      forService(service)[lvl](message, rest);
    },
  };
}
