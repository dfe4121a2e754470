/**
 * The CLI's two kinds of failure, each printed as one line on stderr (`main.ts`): a `UsageError` (bad arguments:
 * exit 2, followed by the command's usage) and a `CliError` (the command could not do its work: exit 1).
 */
export class UsageError extends Error {}

export class CliError extends Error {}

/** The platform answered with an error in the contract's shape (`{errorCode, errorMessage}`), or another one. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    readonly errorMessage: string,
  ) {
    super(`${errorCode}: ${errorMessage} (HTTP ${status})`);
  }
}

/**
 * A failure as `--json` prints it on stderr: one line, `{"error": {"exitCode", "message"}}`, and for the API's
 * refusals its own fields beside (`status`, `errorCode`, `errorMessage`), so a script need not parse the text.
 */
export function jsonError(message: string, exitCode: number, cause?: unknown): string {
  const api =
    cause instanceof ApiError
      ? { status: cause.status, errorCode: cause.errorCode, errorMessage: cause.errorMessage }
      : {};
  return JSON.stringify({ error: { exitCode, message, ...api } });
}
