import { loadSettings } from './load-settings';
import { yamlFile } from './yaml-file.spec-helper';

describe('http.auth and http.maxStreams', () => {
  it('are off and 100 by default: the API answers anyone', () => {
    const { http } = loadSettings('state', {});
    expect(http.auth).toBeUndefined();
    expect(http.maxStreams).toBe(100);
  });

  it('come from KPM_HTTP_AUTH_* variables, the user claim defaulting to sub', () => {
    const { http } = loadSettings('state', {
      KPM_HTTP_AUTH_TOKEN_FILE: '/etc/kpm/http-tokens',
      KPM_HTTP_AUTH_JWKS_URL: 'https://sso.example.org/jwks',
      KPM_HTTP_AUTH_ISSUER: 'https://sso.example.org',
      KPM_HTTP_AUTH_AUDIENCE: 'kpm',
      KPM_HTTP_MAX_STREAMS: '7',
    });
    expect({ ...http.auth }).toEqual({
      tokenFile: '/etc/kpm/http-tokens',
      jwksUrl: 'https://sso.example.org/jwks',
      issuer: 'https://sso.example.org',
      audience: 'kpm',
      userClaim: 'sub',
    });
    expect(http.maxStreams).toBe(7);
  });

  it('come from the YAML file', () => {
    const file = yamlFile(
      'http:\n  auth: { jwksFile: /etc/kpm/jwks.json, issuer: sso, audience: kpm, userClaim: preferred_username }\n',
    );
    expect(loadSettings('state', { KPM_CONFIG: file }).http.auth?.userClaim).toBe(
      'preferred_username',
    );
  });

  it.each<[string, Record<string, string>, RegExp]>([
    ['a relative token file', { KPM_HTTP_AUTH_TOKEN_FILE: 'tokens' }, /http\.auth\.tokenFile/],
    ['a JWKS URL that is not one', { KPM_HTTP_AUTH_JWKS_URL: 'sso' }, /jwksUrl must be an http/],
    [
      'JWKS without issuer',
      { KPM_HTTP_AUTH_JWKS_FILE: '/jwks.json', KPM_HTTP_AUTH_AUDIENCE: 'kpm' },
      /http\.auth\.issuer: issuer is required with jwksUrl or jwksFile/,
    ],
    [
      'JWKS without audience',
      { KPM_HTTP_AUTH_JWKS_FILE: '/jwks.json', KPM_HTTP_AUTH_ISSUER: 'sso' },
      /http\.auth\.audience: audience is required/,
    ],
    [
      'two JWKS',
      {
        KPM_HTTP_AUTH_JWKS_FILE: '/jwks.json',
        KPM_HTTP_AUTH_JWKS_URL: 'https://sso/jwks',
        KPM_HTTP_AUTH_ISSUER: 'sso',
        KPM_HTTP_AUTH_AUDIENCE: 'kpm',
      },
      /http\.auth: give jwksUrl or jwksFile, not both/,
    ],
    ['no way to verify', { KPM_HTTP_AUTH_USER_CLAIM: 'email' }, /http\.auth: give tokenFile/],
    ['a bad claim name', { KPM_HTTP_AUTH_USER_CLAIM: 'a b' }, /userClaim must be a claim name/],
    ['no stream at all', { KPM_HTTP_MAX_STREAMS: '0' }, /http\.maxStreams/],
  ])('refuses %s, naming the setting', (_, env, problem) => {
    expect(() => loadSettings('state', env)).toThrow(problem);
    expect(loadSettings('state', { KPM_HTTP_AUTH_TOKEN_FILE: '/t' }).http.auth?.tokenFile).toBe(
      '/t',
    );
  });
});
