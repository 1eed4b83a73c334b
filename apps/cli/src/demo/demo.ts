/**
 * `npm run demo`: the whole system in one go on the local stack — boot a session, watch one of
 * its applications fail on its own, terminate the rest in drunc's shutdown order, and show
 * every exit code. Leaves the stack and services running for exploring.
 */
import { randomBytes } from 'node:crypto';
import { defaultStack } from '@kpm/stack';
import { invokingUser, withClient } from '../cli-context';
import { CliError } from '../exit-codes';
import { LocalServices } from '../local/local-services';
import { coloursFor, printJson, renderTable } from '../output';
import { formatProblem, readSessionFile } from '../session-file/session-file';
import { placeOnRealNode, realNodeOf } from './demo-placement';
import { playDemoSession } from './demo-session';

interface DemoOptions {
  file: string;
  session?: string;
  json?: boolean;
}

export async function runDemo(options: DemoOptions): Promise<void> {
  const colours = coloursFor(process.stdout);
  const step = (text: string) =>
    console.log(`\n${colours.bold(colours.cyan('▸'))} ${colours.bold(text)}`);

  // The file first: a mistake in it should not wait for the stack.
  const session = options.session ?? `demo-${randomBytes(2).toString('hex')}`;
  const parsed = readSessionFile(options.file, { session, defaultUser: invokingUser() });
  if (!parsed.ok) {
    const lines = parsed.problems.map((p) => `  ${formatProblem(options.file, p)}`);
    throw new CliError(`demo: ${options.file} is not a valid session file:\n${lines.join('\n')}`);
  }
  step('Local stack: Apache Kafka (KRaft), etcd, kube-apiserver, kwok nodes, the real node');
  const say = (message: string) => console.log(colours.dim(`  ${message}`));
  // The services compile while the stack builds and starts: a first run waits for both at once.
  const services = new LocalServices();
  const servicesBuilt = services.build((message) => say(`kpm services: ${message}`));
  servicesBuilt.catch(() => undefined); // awaited below, after the stack
  const env = await defaultStack().up(say);
  const target = realNodeOf(env);
  const boot = target ? placeOnRealNode(parsed.boot, target) : parsed.boot;
  console.log(
    target
      ? `  The session runs as real containers on ${target.node} (${target.image}).`
      : "  No real node here (kpm stack status says why): the session runs on kwok's simulated nodes.",
  );
  step('kpm services: boot-worker, watcher, state');
  await servicesBuilt;
  const status = await services.up();
  console.log(
    renderTable(
      status as unknown as Record<string, unknown>[],
      ['service', 'pid', 'port', 'ready'],
      colours,
    ),
  );

  const summary = await withClient((client) => playDemoSession(client, boot, colours, step));

  if (options.json) printJson(summary);
  const dashboard = `http://127.0.0.1:${services.port('state')}/`;
  console.log(`
${colours.bold('The stack and the services keep running.')} Explore:
  npx kpm ps --session ${session}                                the process table, exit codes
  npx kpm tail --session ${session} --from-beginning             what happened, in order
  npx kpm boot -f ${options.file} --session my-run --wait   boot the tree again
  ${dashboard}                                       the state service's dashboard
Stop everything with: ${colours.bold('npx kpm services down && npx kpm stack down')}`);
}
