/**
 * Who a process runs as and the environment drunc gives it (docs/design.md §6.3): drunc runs
 * every pod as the user who booted it, sets `USER` to that user, always sets `HOME` to the home
 * base's directory of that user (a process's own `HOME` is overridden, as drunc does with a
 * warning) and `DOTDRUNC` (drunc's configuration file) unless the process sets it. kpm knows a
 * user by name only, so the uid and gid come from the operator's `runAsUsers`, or from the
 * process's own `uid`/`gid` (checked against the configured ranges). Pure.
 */
import type { ProcessSpec } from '@kpm/contracts';

export interface IdentitySettings {
  homePathBase?: string;
  runAsUsers: readonly { user: string; uid: number; gid: number }[];
}

/** drunc's home: `home_path_base/<user>` (kpm: `/home/<user>` without a base). */
export function homeOf(user: string, homePathBase: string | undefined): string {
  return `${homePathBase ?? '/home'}/${user}`;
}

/**
 * The process's uid and gid: its own when it asks (the validator checked the ranges), else its
 * user's from `runAsUsers`, else none (the image's user).
 */
export function runAsOf(
  spec: Pick<ProcessSpec, 'uid' | 'gid'>,
  user: string,
  settings: Pick<IdentitySettings, 'runAsUsers'>,
): Pick<ProcessSpec, 'uid' | 'gid'> {
  if (spec.uid !== undefined || spec.gid !== undefined) {
    return {
      ...(spec.uid !== undefined ? { uid: spec.uid } : {}),
      ...(spec.gid !== undefined ? { gid: spec.gid } : {}),
    };
  }
  const mapped = settings.runAsUsers.find((entry) => entry.user === user);
  return mapped ? { uid: mapped.uid, gid: mapped.gid } : {};
}

/** The process's environment: its own, then drunc's `USER`, `HOME` and (unless set) `DOTDRUNC`. */
export function processEnv(
  spec: Pick<ProcessSpec, 'env'>,
  user: string,
  settings: Pick<IdentitySettings, 'homePathBase'>,
): Record<string, string> {
  const home = homeOf(user, settings.homePathBase);
  const own = spec.env ?? {};
  return { ...own, USER: user, HOME: home, DOTDRUNC: own.DOTDRUNC ?? `${home}/.drunc.json` };
}
