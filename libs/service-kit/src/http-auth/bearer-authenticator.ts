/**
 * Who a request acts as, from its `Authorization: Bearer <token>` header (RFC 6750): a static
 * token of `http.auth.tokenFile`, else a JWT of the configured provider. Pure of Nest; the guard
 * (http-auth.guard.ts) turns a refusal into a 401.
 */
import type { HttpAuthConfig } from '@kpm/config';
import { readTokenFile, tokenDigest } from './token-file';
import { jwtVerifierFor, type JwtVerifier, type Verdict } from './jwt-verifier';

/** `missing`: no credentials (RFC 6750 §3.1: no error code); `invalid_token`: bad ones. */
export type Refusal = { ok: false; error: 'missing' | 'invalid_token'; reason: string };
type Authentication = { ok: true; user: string } | Refusal;

/** A bearer token has at most this many characters (JWTs of real providers are ~1–2 KiB). */
const MAX_TOKEN_LENGTH = 8192;

export class BearerAuthenticator {
  constructor(
    private readonly tokens: ReadonlyMap<string, string> = new Map(),
    private readonly jwt?: JwtVerifier,
  ) {}

  static fromSettings(auth: HttpAuthConfig): BearerAuthenticator {
    const tokens = auth.tokenFile ? readTokenFile(auth.tokenFile) : new Map<string, string>();
    return new BearerAuthenticator(tokens, jwtVerifierFor(auth));
  }

  async authenticate(header: string | undefined): Promise<Authentication> {
    if (header === undefined || header.trim() === '')
      return { ok: false, error: 'missing', reason: 'a bearer token is required' };
    if (!/^Bearer /i.test(header))
      return { ok: false, error: 'missing', reason: 'the Authorization scheme must be Bearer' };
    // RFC 6750 §2.1's b64token.
    const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
    if (!match)
      return { ok: false, error: 'invalid_token', reason: 'the bearer token is malformed' };
    const token = match[1];
    if (token.length > MAX_TOKEN_LENGTH)
      return { ok: false, error: 'invalid_token', reason: 'the token is too long' };
    return refusedOr(await this.verify(token));
  }

  private async verify(token: string): Promise<Verdict> {
    const user = this.tokens.get(tokenDigest(token));
    if (user !== undefined) return { ok: true, user };
    if (this.jwt && token.split('.').length === 3) return this.jwt(token);
    return { ok: false, reason: 'the token is not known here' };
  }
}

function refusedOr(verdict: Verdict): Authentication {
  return verdict.ok ? verdict : { ok: false, error: 'invalid_token', reason: verdict.reason };
}
