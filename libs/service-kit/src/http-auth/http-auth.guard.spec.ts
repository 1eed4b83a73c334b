import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller, Get, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { HttpAuthConfig } from '@kpm/config';
import { BearerAuthenticator } from './bearer-authenticator';
import { AuthenticatedUser, HttpAuthGuard } from './http-auth.guard';
import { PublicRoute } from './public-route';

const GOOD_TOKEN = 'shift-token-0123456789abcdef';

@Controller()
class ProbeController {
  @Get('whoami')
  whoami(@AuthenticatedUser() user: string | undefined): { user: string | null } {
    return { user: user ?? null };
  }

  @PublicRoute()
  @Get('open')
  open(): { open: true } {
    return { open: true };
  }
}

async function appWith(authenticator?: BearerAuthenticator): Promise<INestApplication> {
  const module = await Test.createTestingModule({
    controllers: [ProbeController],
    providers: [
      { provide: APP_GUARD, useClass: HttpAuthGuard },
      ...(authenticator ? [{ provide: BearerAuthenticator, useValue: authenticator }] : []),
    ],
  }).compile();
  const app = module.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  return app;
}

type Keys = { privateKey: CryptoKey; publicKey: CryptoKey };

function jwt(keys: Keys, claims: { sub?: string; aud?: string; iss?: string; exp?: number }) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setSubject(claims.sub ?? 'alice')
    .setIssuer(claims.iss ?? 'https://sso.example.org')
    .setAudience(claims.aud ?? 'kpm')
    .setIssuedAt(now - 600)
    .setExpirationTime(claims.exp ?? now + 600)
    .sign(keys.privateKey);
}

describe('HttpAuthGuard', () => {
  let app: INestApplication;
  let url: string;
  let keys: Keys;
  let otherKeys: Keys;

  beforeAll(async () => {
    keys = await generateKeyPair('ES256');
    otherKeys = await generateKeyPair('ES256');
    const dir = mkdtempSync(join(tmpdir(), 'kpm-auth-'));
    const tokenFile = join(dir, 'tokens');
    writeFileSync(tokenFile, `# shift crew\n${GOOD_TOKEN} shifter\n`);
    const jwksFile = join(dir, 'jwks.json');
    const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'ES256' };
    writeFileSync(jwksFile, JSON.stringify({ keys: [jwk] }));
    const auth = Object.assign(new HttpAuthConfig(), {
      tokenFile,
      jwksFile,
      issuer: 'https://sso.example.org',
      audience: 'kpm',
    });
    app = await appWith(BearerAuthenticator.fromSettings(auth));
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });

  afterAll(() => app.close());

  const now = () => Math.floor(Date.now() / 1000);
  it.each<{
    name: string;
    header: () => string | undefined | Promise<string>;
    user?: string;
    challenge?: RegExp;
  }>([
    { name: 'no header', header: () => undefined, challenge: /^Bearer realm="kpm"$/ },
    {
      name: 'another scheme',
      header: () => `Basic ${Buffer.from('shifter:pw').toString('base64')}`,
      challenge: /^Bearer realm="kpm"$/,
    },
    {
      name: 'a malformed token',
      header: () => 'Bearer two words',
      challenge: /error="invalid_token", error_description="the bearer token is malformed"/,
    },
    {
      name: 'an unknown token',
      header: () => 'Bearer not-a-token-of-this-service',
      challenge: /error="invalid_token", error_description="the token is not known here"/,
    },
    { name: 'a good static token', header: () => `Bearer ${GOOD_TOKEN}`, user: 'shifter' },
    {
      name: 'a good static token, scheme in lower case',
      header: () => `bearer ${GOOD_TOKEN}`,
      user: 'shifter',
    },
    {
      name: 'an expired JWT',
      header: async () => `Bearer ${await jwt(keys, { exp: now() - 120 })}`,
      challenge: /error_description="the token expired"/,
    },
    {
      name: 'a JWT for another audience',
      header: async () => `Bearer ${await jwt(keys, { aud: 'grafana' })}`,
      challenge: /error_description="the token's aud claim is not accepted here"/,
    },
    {
      name: 'a JWT of another issuer',
      header: async () => `Bearer ${await jwt(keys, { iss: 'https://evil.example.org' })}`,
      challenge: /error_description="the token's iss claim is not accepted here"/,
    },
    {
      name: 'a JWT signed by another key',
      header: async () => `Bearer ${await jwt(otherKeys, {})}`,
      challenge: /error_description="the token signature does not verify"/,
    },
    {
      name: 'a JWT whose user claim is no user name',
      header: async () => `Bearer ${await jwt(keys, { sub: 'alice;rm -rf' })}`,
      challenge: /error_description="the token's sub claim is not a kpm user name"/,
    },
    { name: 'a good JWT', header: async () => `Bearer ${await jwt(keys, {})}`, user: 'alice' },
  ])('$name', async ({ header, user, challenge }) => {
    const value = await header();
    const answer = await fetch(`${url}/whoami`, {
      headers: value === undefined ? {} : { authorization: value },
    });
    if (user) {
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ user });
      expect(answer.headers.get('www-authenticate')).toBeNull();
      return;
    }
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(challenge!);
    const body = (await answer.json()) as { message: string };
    expect(body.message).not.toContain(GOOD_TOKEN);
  });

  it("verifies JWTs against the provider's JWKS fetched from jwksUrl", async () => {
    const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'ES256' };
    const provider = createServer((_, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = provider.address() as AddressInfo;
      const auth = Object.assign(new HttpAuthConfig(), {
        jwksUrl: `http://127.0.0.1:${port}/jwks`,
        issuer: 'https://sso.example.org',
        audience: 'kpm',
      });
      const remote = BearerAuthenticator.fromSettings(auth);
      expect(await remote.authenticate(`Bearer ${await jwt(keys, { sub: 'bob' })}`)).toEqual({
        ok: true,
        user: 'bob',
      });
      expect(await remote.authenticate(`Bearer ${await jwt(otherKeys, {})}`)).toMatchObject({
        ok: false,
        error: 'invalid_token',
      });
    } finally {
      provider.close();
    }
  });

  it('lets a public route through without a token', async () => {
    const answer = await fetch(`${url}/open`);
    expect(answer.status).toBe(200);
  });

  it('lets everything through, as nobody, when http.auth is off', async () => {
    const open = await appWith();
    try {
      const base = (await open.getUrl()).replace('[::1]', '127.0.0.1');
      const answer = await fetch(`${base}/whoami`);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ user: null });
    } finally {
      await open.close();
    }
  });
});
