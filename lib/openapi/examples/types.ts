/**
 * What the API reference shows, and "Test Request" sends, for an operation: its body (valid as written, so a
 * request sent unchanged is accepted) and the values of its parameters.
 */
export interface OperationExample {
  body?: unknown;
  parameters?: Record<string, string | number>;
}

/** By operation id. */
export type OperationExamples = Record<string, OperationExample>;
