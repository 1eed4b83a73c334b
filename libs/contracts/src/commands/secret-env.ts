/**
 * Environment from Kubernetes Secrets, by reference (docs/design.md §4, "Secrets never on
 * Kafka"): a process names a Secret of its session's namespace, and a key of it, and the kubelet
 * puts the value in the container's environment when it starts it. kpm writes only the names —
 * into the pod spec's `valueFrom.secretKeyRef` / `envFrom.secretRef` — and never reads the
 * Secret, so the value is on no topic, in no fact, annotation or HTTP answer.
 */
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { Matches, MaxLength, ValidateBy, ValidateNested } from 'class-validator';
import { DNS_SUBDOMAIN, ENV_NAME } from '../validation/rules';

/** A Secret's name: a DNS-1123 subdomain of at most 253 characters. */
const SECRET_NAME_MAX = 253;
const SECRET_NAME_MESSAGE =
  'must be the name of a Kubernetes Secret (a DNS-1123 subdomain: lower-case letters, digits, "-" and ".")';
/** A key of a Secret's data. */
const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;
/** At most this many variables from Secrets, and Secrets taken whole, per process. */
export const MAX_SECRET_ENV = 100;
export const MAX_ENV_FROM = 16;

function IsSecretName(): PropertyDecorator {
  return (target, key) => {
    MaxLength(SECRET_NAME_MAX, { message: `must be at most ${SECRET_NAME_MAX} characters` })(
      target,
      key,
    );
    Matches(DNS_SUBDOMAIN, { message: SECRET_NAME_MESSAGE })(target, key);
  };
}

/** One key of one Secret (Kubernetes' SecretKeySelector). */
export class SecretKeyRef {
  @IsSecretName()
  name!: string;

  @MaxLength(SECRET_NAME_MAX)
  @Matches(SECRET_KEY, { message: 'must be a key of a Secret (letters, digits, "-", "_", ".")' })
  key!: string;
}

/** `{name: DB_PASSWORD, secretKeyRef: {name: daq-db, key: password}}`, as in a pod spec. */
export class SecretEnvVar {
  @MaxLength(256)
  @Matches(ENV_NAME, {
    message:
      'is not a valid environment variable name (letters, digits and "_", not starting with a digit)',
  })
  name!: string;

  @ValidateNested()
  @Type(() => SecretKeyRef)
  secretKeyRef!: SecretKeyRef;
}

/** A whole Secret, by name (Kubernetes' SecretEnvSource). */
export class SecretRef {
  @IsSecretName()
  name!: string;
}

/** `{secretRef: {name: daq-credentials}}`: every key of the Secret becomes a variable. */
export class EnvFromSecret {
  @ValidateNested()
  @Type(() => SecretRef)
  secretRef!: SecretRef;
}

/**
 * Why a process's `secretEnv` cannot be: a variable named twice, or also given a value in
 * `env` (the value would leave it on Kafka after all), or USER (kpm sets it to the command's user).
 */
function secretEnvReason(
  secretEnv: unknown,
  env: Record<string, string> | undefined,
): string | undefined {
  if (!Array.isArray(secretEnv)) return undefined;
  const seen = new Set<string>();
  for (const entry of secretEnv as Array<Partial<SecretEnvVar>>) {
    const name = entry?.name;
    if (typeof name !== 'string') continue;
    if (name === 'USER')
      return "USER is set by kpm to the command's user; it cannot come from a Secret";
    if (seen.has(name)) return `${name} is named twice`;
    if (env && name in env) return `${name} is also in env: give it one source`;
    seen.add(name);
  }
  return undefined;
}

/** `secretEnv`'s own rules beside the entries' (see `secretEnvReason`). */
export function IsSecretEnvList(): PropertyDecorator {
  return ValidateBy({
    name: 'isSecretEnvList',
    validator: {
      validate: (value, args) =>
        secretEnvReason(value, (args?.object as { env?: Record<string, string> }).env) ===
        undefined,
      defaultMessage: (args) =>
        secretEnvReason(args?.value, (args?.object as { env?: Record<string, string> }).env) ??
        'is invalid',
    },
  });
}
