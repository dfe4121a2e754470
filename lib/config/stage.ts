/**
 * The words of the configuration that the domain may use too (a rule that differs in prod takes the stage as a
 * value): types only, nothing here reads anything (lib/config/env.ts reads the configuration, once).
 */
export type Stage = 'local' | 'dev' | 'prod';
/** An environment: the process's, or one that a test, the stack's checks or the local platform builds. */
export type Env = Readonly<Record<string, string | undefined>>;
