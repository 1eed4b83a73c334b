/**
 * `http.auth`: the bearer tokens the HTTP API asks for (libs/service-kit http-auth.guard.ts checks
 * them). Absent: the API answers anyone who reaches it. Tokens are named by file, never given as
 * values, so a printed or logged settings object holds none.
 */
import 'reflect-metadata';
import { IsOptional, IsString, IsUrl, Matches, MaxLength } from 'class-validator';
import { IsOptionalFile } from './kafka-security-settings';

/** A claim name such as `sub`, `preferred_username` or `email`. */
const CLAIM_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,99}$/;

export class HttpAuthConfig {
  /** Lines `<token> <user>`: whoever presents the token acts as the user. */
  @IsOptionalFile()
  tokenFile?: string;

  /** The identity provider's JWKS (OIDC `jwks_uri`): JWTs signed by one of its keys. */
  @IsOptional()
  @IsUrl(
    { protocols: ['https', 'http'], require_tld: false, require_protocol: true },
    { message: 'jwksUrl must be an http(s) URL' },
  )
  jwksUrl?: string;

  /** The same keys from a local file (a JWKS document), for a cluster without the provider. */
  @IsOptionalFile()
  jwksFile?: string;

  /** The JWT's `iss` must be this. */
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  issuer?: string;

  /** The JWT's `aud` must hold this. */
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  audience?: string;

  /** The claim naming the user a JWT acts as. */
  @Matches(CLAIM_NAME, { message: 'userClaim must be a claim name such as sub or email' })
  userClaim = 'sub';
}

export const HTTP_AUTH_ENV: ReadonlyArray<[string, string, (raw: string) => unknown]> = [
  ['KPM_HTTP_AUTH_TOKEN_FILE', 'http.auth.tokenFile', String],
  ['KPM_HTTP_AUTH_JWKS_URL', 'http.auth.jwksUrl', String],
  ['KPM_HTTP_AUTH_JWKS_FILE', 'http.auth.jwksFile', String],
  ['KPM_HTTP_AUTH_ISSUER', 'http.auth.issuer', String],
  ['KPM_HTTP_AUTH_AUDIENCE', 'http.auth.audience', String],
  ['KPM_HTTP_AUTH_USER_CLAIM', 'http.auth.userClaim', String],
  ['KPM_HTTP_MAX_STREAMS', 'http.maxStreams', Number],
];

/**
 * What the field checks cannot see: one way at least to verify a token, and a JWT bound to its
 * issuer and audience (a token the provider issued for another service must not pass).
 */
export function httpAuthProblems(auth: HttpAuthConfig | undefined): string[] {
  if (!auth) return [];
  const jwks = [auth.jwksUrl, auth.jwksFile].filter((v) => v !== undefined).length;
  if (jwks > 1) return ['http.auth: give jwksUrl or jwksFile, not both'];
  if (jwks === 0)
    return auth.tokenFile === undefined
      ? ['http.auth: give tokenFile, or jwksUrl or jwksFile (with issuer and audience), or both']
      : [];
  return (['issuer', 'audience'] as const)
    .filter((field) => !auth[field])
    .map((field) => `http.auth.${field}: ${field} is required with jwksUrl or jwksFile`);
}
