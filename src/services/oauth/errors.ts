/**
 * The errors of the OAuth endpoints (RFC 6749 §5.2): `error` is the protocol's code (`invalid_grant`,
 * `invalid_client`, …) that OAuth client libraries read, `message` says why — the shape of the service's error body
 * (docs/api-guide.md › Errors), with the protocol's codes in place of the service's classes.
 */
export class OAuthError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: 400 | 401 | 403 = 400,
  ) {
    super(message);
  }
}
