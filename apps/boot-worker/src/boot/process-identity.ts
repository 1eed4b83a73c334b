/**
 * Who a process runs as and the environment drunc gives it (docs/design.md §6.3): drunc runs
 * every pod as the user who booted it, sets `USER` to that user, always sets `HOME` to the home
 * base's directory of that user (a process's own `HOME` is overridden, as drunc does with a
 * warning) and `DOTDRUNC` (drunc's configuration file) unless the process sets it. kpm knows a
 * user by name only, so the uid and gid come from the process's own `uid`/`gid` (checked against
 * the configured ranges), else the operator's `runAsUsers`, else the operator's `defaultRunAs`;
 * with none of them a process runs only on the privileged path (as its image's user), and is
 * refused otherwise: kpm never runs a DAQ process as root by default. Pure.
 */
import type { ProcessSpec } from '@kpm/contracts';

export interface IdentitySettings {
  homePathBase?: string;
  runAsUsers: readonly { user: string; uid: number; gid: number }[];
  /** The ids of a user not in `runAsUsers`; unset: such a user's boot is refused. */
  defaultRunAs?: { uid: number; gid: number };
}

/** drunc's home: `home_path_base/<user>` (kpm: `/home/<user>` without a base). */
export function homeOf(user: string, homePathBase: string | undefined): string {
  return `${homePathBase ?? '/home'}/${user}`;
}

/**
 * The process's uid and gid, each on its own: the process's when it asks (the validator checked
 * the ranges), else its user's from `runAsUsers`, else `defaultRunAs`; an id none of them gives
 * is left out (the image's, which only the privileged path may run with: `runAsRefusal`).
 */
export function runAsOf(
  spec: Pick<ProcessSpec, 'uid' | 'gid'>,
  user: string,
  settings: Pick<IdentitySettings, 'runAsUsers' | 'defaultRunAs'>,
): Pick<ProcessSpec, 'uid' | 'gid'> {
  const mapped = settings.runAsUsers.find((entry) => entry.user === user);
  const uid = spec.uid ?? mapped?.uid ?? settings.defaultRunAs?.uid;
  const gid = spec.gid ?? mapped?.gid ?? settings.defaultRunAs?.gid;
  return { ...(uid !== undefined ? { uid } : {}), ...(gid !== undefined ? { gid } : {}) };
}

/**
 * Why the process may not run (its refusal's message), or undefined: off the privileged path
 * (`privileged` false) a process needs both a uid and a gid, since without them it would run as
 * its image's user, root in most images. The message names the user and each setting that
 * would fix it: a drunc shell shows only this text.
 */
export function runAsRefusal(
  spec: Pick<ProcessSpec, 'uid' | 'gid'>,
  user: string,
  settings: Pick<IdentitySettings, 'runAsUsers' | 'defaultRunAs'>,
  privileged: boolean,
): string | undefined {
  if (privileged) return undefined;
  const ids = runAsOf(spec, user, settings);
  const missing = (['uid', 'gid'] as const).filter((id) => ids[id] === undefined);
  if (missing.length === 0) return undefined;
  const what = missing.join(' or ');
  return (
    `user ${JSON.stringify(user)} has no ${what} to run the process as, and kpm runs no DAQ ` +
    `process as its image's user (root in most images): map the user in podManagement.runAsUsers ` +
    `(KPM_RUN_AS_USERS=${user}:<uid>:<gid>), set podManagement.defaultRunAs ` +
    `(KPM_DEFAULT_RUN_AS=<uid>:<gid>), or give the process its own uid and gid ` +
    `(within podManagement.runAsUidRange and runAsGidRange)`
  );
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
