/**
 * The words of the configuration that other folders use too (a domain rule that differs in prod takes the stage
 * as a value; the logger its level and format): types and defaults only, nothing here reads anything
 * (lib/config/env.ts reads the configuration, once).
 */
export type Stage = 'local' | 'dev' | 'prod';
/**
 * Variables a function reads its configuration from: the process's (`process.env`), or a set that a test, the
 * stack's checks or the local platform builds. ("Environment" means the tenant in this project.)
 */
export type Variables = Readonly<Record<string, string | undefined>>;
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
/** `json`: one object per line (CloudWatch, log tools); `pretty`: one readable line per entry (a person at `npm start`). */
export type LogFormat = 'json' | 'pretty';

/** The default namespace of a stage's metrics (METRICS_NAMESPACE overrides it). */
export function defaultMetricsNamespace(stage: string): string {
  return `Platform/${stage}`;
}
