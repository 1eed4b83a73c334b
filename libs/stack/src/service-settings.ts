/**
 * What kpm's services are told on the local stack beyond its addresses. Its DAQ processes are
 * booted by whoever runs a test, the demo or an example (any login name), so the stack maps
 * every user no `podManagement.runAsUsers` entry names to one non-root uid and gid
 * (`podManagement.defaultRunAs`): kpm refuses to run a process of an unmapped user otherwise,
 * never falling back to its image's user (docs/design.md §6.3, "Pod security"). A variable of
 * the caller's own environment overrides it.
 */
export const LOCAL_SERVICE_SETTINGS: Readonly<Record<string, string>> = {
  KPM_DEFAULT_RUN_AS: '1000:1000',
};
