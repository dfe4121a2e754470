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
    errorMessage: string,
  ) {
    super(`${errorCode}: ${errorMessage} (HTTP ${status})`);
  }
}
