/** The token endpoint's answer (RFC 6749 §5.1; RFC 8693 §2.2.1 adds `issued_token_type` to exchanges). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  issued_token_type?: string;
}

export function tokenResponse(
  accessToken: string,
  lifetimeSeconds: number,
  scopes: readonly string[],
  issuedTokenType?: string,
): TokenResponse {
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: lifetimeSeconds,
    scope: scopes.join(' '),
    ...(issuedTokenType !== undefined ? { issued_token_type: issuedTokenType } : {}),
  };
}
