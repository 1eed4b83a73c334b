/**
 * OIDC access tokens (JWTs) verified with `jose`: signed by a key of the provider's JWKS (fetched
 * from `jwksUrl` and cached, or read from `jwksFile`), issued by `issuer` for `audience`, not
 * expired; the user is the `userClaim` claim.
 */
import { readFileSync } from 'node:fs';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
} from 'jose';
import type { HttpAuthConfig } from '@kpm/config';
import { USER_NAME } from '@kpm/contracts/validation/rules';

/** Clocks of the provider and of kpm may differ this much. */
const CLOCK_TOLERANCE_SECONDS = 30;

export type Verdict = { ok: true; user: string } | { ok: false; reason: string };

export type JwtVerifier = (token: string) => Promise<Verdict>;

/** A verifier for `auth`'s JWKS, or undefined when only static tokens are configured. */
export function jwtVerifierFor(auth: HttpAuthConfig): JwtVerifier | undefined {
  const keys = jwksOf(auth);
  if (!keys) return undefined;
  const options = {
    issuer: auth.issuer,
    audience: auth.audience,
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
  };
  return async (token) => {
    try {
      const { payload } = await jwtVerify(token, keys, options);
      return userOf(payload[auth.userClaim], auth.userClaim);
    } catch (error) {
      return { ok: false, reason: jwtProblem(error) };
    }
  };
}

function jwksOf(auth: HttpAuthConfig): JWTVerifyGetKey | undefined {
  if (auth.jwksUrl) return createRemoteJWKSet(new URL(auth.jwksUrl));
  if (!auth.jwksFile) return undefined;
  const jwks = JSON.parse(readFileSync(auth.jwksFile, 'utf8')) as JSONWebKeySet;
  return createLocalJWKSet(jwks);
}

function userOf(claim: unknown, name: string): Verdict {
  if (typeof claim === 'string' && USER_NAME.test(claim)) return { ok: true, user: claim };
  return { ok: false, reason: `the token's ${name} claim is not a kpm user name` };
}

/** What was wrong, in words a client can act on; never the token itself. */
function jwtProblem(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the token expired';
  if (error instanceof errors.JWTClaimValidationFailed)
    return `the token's ${error.claim} claim is not accepted here`;
  if (error instanceof errors.JWKSNoMatchingKey) return 'the token is signed by an unknown key';
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return 'the token signature does not verify';
  if (error instanceof errors.JWKSTimeout)
    return "the identity provider's keys could not be fetched in time";
  if (error instanceof errors.JOSEError) return 'the token is not a valid JWT';
  return 'the token could not be verified';
}
