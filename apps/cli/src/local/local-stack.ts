/** The embedded stack, behind a relative module so commands can load it only when they run. */
export { defaultStack, stackRealNode } from '@kpm/stack';
