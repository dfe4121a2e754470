/** RFC 6749 §5.2 (and RFC 8707 `invalid_target`) errors of the token endpoint, in OAuth's own body shape. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'temporarily_unavailable';

const STATUS: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  temporarily_unavailable: 503,
};

export class OAuthError extends Error {
  readonly status: number;
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    options: { status?: number; retryAfterSeconds?: number } = {},
  ) {
    super(description);
    this.name = 'OAuthError';
    this.status = options.status ?? STATUS[error];
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
  readonly retryAfterSeconds: number | undefined;
}

/** One description for every client-authentication failure: no hint whether the id or the secret was wrong. */
export const invalidClient = () => new OAuthError('invalid_client', 'client authentication failed');

/**
 * A refused subject token, assertion or person (RFC 6749 §5.2 `invalid_grant`): the description says which check
 * failed, never what the token held.
 */
export const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);
