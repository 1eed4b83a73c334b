import type { Command } from 'commander';
import { printJson } from '../output';
import { addDownCommand, addStatusCommand } from './local-group';

/** Loaded when a stack command runs: the other commands start faster without the stack. */
function stackModule() {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('../local/local-stack') as typeof import('../local/local-stack');
}

function defaultStack(options: { otel?: boolean; kueue?: boolean } = {}) {
  return stackModule().defaultStack(undefined, options);
}

export function registerStackCommands(program: Command): void {
  const stack = program
    .command('stack')
    .description(
      'the embedded local stack: Apache Kafka (KRaft), etcd, kube-apiserver and kwok on 127.0.0.1',
    );

  stack
    .command('up')
    .description('provision what is missing, start what is not running, write .kpm/stack.env')
    .option('--json', 'print the variables of .kpm/stack.env as JSON')
    .option(
      '--otel',
      'also the OpenTelemetry Collector: OTLP on 127.0.0.1, spans to .kpm/otel/spans.jsonl (or KPM_STACK_OTEL=1)',
    )
    .option(
      '--kueue',
      'also Kueue beside the API server, for all-or-nothing boots as Kueue pod groups (or KPM_STACK_KUEUE=1)',
    )
    .action(async (options: { json?: boolean; otel?: boolean; kueue?: boolean }) => {
      const started = Date.now();
      // Without --otel or --kueue, KPM_STACK_OTEL and KPM_STACK_KUEUE decide; a collector or a
      // Kueue that runs stays either way.
      const asked = { ...(options.otel && { otel: true }), ...(options.kueue && { kueue: true }) };
      const env = await defaultStack(asked).up((message) => console.error(`kpm stack: ${message}`));
      if (options.json) printJson(env);
      else for (const [name, value] of Object.entries(env)) console.log(`${name}=${value}`);
      console.error(`kpm stack: up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    });

  addDownCommand(stack, 'stop every component (data is kept for the next up)', () =>
    defaultStack().down(),
  );
  addStatusCommand(
    stack,
    {
      description: 'which components run, their pids and endpoints',
      json: 'print JSON',
      columns: ['name', 'running', 'pid', 'endpoint', 'detail'],
    },
    () => defaultStack().status(),
  );
  registerNodeFaults(stack);
}

/**
 * The real node's faults, for the fault tests: each acts only on the daemon `up` started (its
 * pid in the run directory), never on another kubelet or containerd of the host.
 */
function registerNodeFaults(stack: Command): void {
  const node = stack
    .command('node')
    .description("the real node's kubelet and containerd: faults for tests, and starting again");
  const faults: Array<[string, string, (n: RealNodeFaults) => Promise<number | void>]> = [
    ['kill-kubelet', 'SIGKILL the kubelet (a crash); its containers go on', (n) => n.killKubelet()],
    ['stop-kubelet', 'SIGTERM the kubelet and wait until it exited', (n) => n.stopKubelet()],
    [
      'stop-containerd',
      'SIGTERM containerd alone: its shims keep the containers running',
      (n) => n.stopContainerd(),
    ],
    [
      'restart-containerd',
      'stop containerd (its shims and containers go on), start it again, wait until the node is Ready',
      (n) => n.restartContainerd(),
    ],
    [
      'start',
      'start what of the node is stopped (containerd, the kubelet), wait until it is Ready',
      (n) => n.start(),
    ],
  ];
  for (const [name, description, act] of faults) {
    node
      .command(name)
      .description(description)
      .action(async () => {
        const started = Date.now();
        const pid = await act(stackModule().stackRealNode());
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        console.error(`kpm stack node: ${name}${pid ? ` (pid ${pid})` : ''} in ${seconds} s`);
      });
  }
}

type RealNodeFaults = ReturnType<ReturnType<typeof stackModule>['stackRealNode']>;
