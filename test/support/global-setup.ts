// globalSetup runs outside jest's module mapper: resolve @kpm/* through tsconfig's paths.
import 'tsconfig-paths/register';
import { defaultStack } from '../../libs/stack/src';

/** Integration tests run against the real local stack; bring it up once (idempotent, fast when warm). */
export default async function globalSetup(): Promise<void> {
  const env = await defaultStack().up((message) => process.stdout.write(`[stack] ${message}\n`));
  Object.assign(process.env, env);
}
