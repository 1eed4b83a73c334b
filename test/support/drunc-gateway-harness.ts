/**
 * kpm's drunc gateway on the local stack, as the drunc suites and the gateway's latency bench run
 * it: the three services in-process (KpmTrio), the gateway as its own process on a free port,
 * the stack's kwok nodes as drunc's allowed hosts, drunc's Python suites run with pytest and
 * counted, and a unary call through a client loaded from one era's `.proto`.
 */
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { KpmTrio } from './kpm-trio';
import { projectPython, runPythonModule } from './python';
import { freePort, ServiceProcess } from './service-process';
import { stackEnv } from './stack-env';

/** The gateway's `.proto` root: 1.1.0's here, the enveloped era's under `enveloped/`. */
export const GATEWAY_PROTO = join(__dirname, '..', '..', 'apps', 'drunc-gateway', 'proto');

/** The stack's kwok nodes, sorted: drunc's allowed_hosts of a simulated session. */
export async function kwokNodeNames(): Promise<string[]> {
  const config = new KubeConfig();
  config.loadFromFile(stackEnv().kubeconfig!);
  const list = await config.makeApiClient(CoreV1Api).listNode();
  return list.items
    .filter((n) => n.status?.nodeInfo?.kubeletVersion?.startsWith('kwok'))
    .map((n) => n.metadata!.name!)
    .sort();
}

export class GatewayHarness {
  private gateway!: ServiceProcess;

  private constructor(
    readonly trio: KpmTrio,
    /** `grpc://127.0.0.1:<port>`, as drunc's shells take it. */
    readonly address: string,
    private readonly env: Record<string, string>,
  ) {}

  /**
   * The trio under `name` (its boot-worker given `bootEnv`) and a gateway before it, its
   * instance `instance` and `gatewayEnv` beside the stack's settings.
   */
  static async start(
    name: string,
    options: {
      instance: string;
      bootEnv?: Record<string, string>;
      gatewayEnv?: Record<string, string>;
    },
  ): Promise<GatewayHarness> {
    const trio = await KpmTrio.start(name, options.bootEnv);
    const address = `grpc://127.0.0.1:${await freePort()}`;
    const { brokers, kubeconfig, topicReplication } = stackEnv();
    const harness = new GatewayHarness(trio, address, {
      KPM_KAFKA_BROKERS: brokers.join(','),
      ...topicReplication,
      KPM_TOPIC_PREFIX: trio.prefix,
      KPM_INSTANCE: options.instance,
      KPM_STATE_URL: await trio.stateUrl(),
      KPM_DRUNC_GATEWAY_PORT: address.split(':').pop()!,
      ...(kubeconfig ? { KUBECONFIG: kubeconfig } : {}),
      ...options.gatewayEnv,
    });
    await harness.startGateway();
    return harness;
  }

  /** Starts the gateway (again, after `kill`), on the same port. */
  async startGateway(): Promise<void> {
    this.gateway = new ServiceProcess('drunc-gateway', this.env);
    await this.gateway.start();
  }

  kill(signal: NodeJS.Signals): Promise<void> {
    return this.gateway.kill(signal);
  }

  async close(): Promise<void> {
    await this.gateway?.kill('SIGTERM');
    await this.trio.close();
  }
}

export interface SuiteRun {
  /** The exit code and, when it failed, the end of its output: `{code: 0, output: ''}` passes. */
  outcome: { code: number; output: string };
  /** How many tests pytest says passed. */
  passed: number;
  stdout: string;
}

/** pytest over `files` of one drunc suite (`test/support/python/<suite>`), with `env`. */
export async function runDruncSuite(
  suite: string,
  files: readonly string[],
  env: Record<string, string>,
  timeoutMs = 600_000,
): Promise<SuiteRun> {
  const dir = join('test', 'support', 'python', suite);
  const { code, stdout, stderr } = await runPythonModule(
    await projectPython(),
    'pytest',
    ['-q', '-p', 'no:cacheprovider', ...files.map((f) => join(dir, f))],
    timeoutMs,
    env,
  );
  return {
    outcome: { code, output: code === 0 ? '' : `${stdout}\n${stderr}`.slice(-12_000) },
    passed: Number(/(\d+) passed/.exec(stdout)?.[1] ?? 0),
    stdout,
  };
}

/**
 * One unary call of `service` (its full name) at `address`, through a client loaded from
 * `druncschema/process_manager.proto` under `protoDir`, with a deadline.
 */
export function unaryCall<T>(
  protoDir: string,
  service: string,
  address: string,
  method: string,
  request: unknown,
  timeoutSeconds: number,
): Promise<T> {
  const definition = protoLoader.loadSync('druncschema/process_manager.proto', {
    keepCase: true,
    defaults: true,
    oneofs: true,
    includeDirs: [protoDir],
  });
  const Client = grpc.makeGenericClientConstructor(
    definition[service] as grpc.ServiceDefinition,
    service,
  );
  const client = new Client(
    address.replace('grpc://', ''),
    grpc.credentials.createInsecure(),
  ) as unknown as grpc.Client &
    Record<
      string,
      (r: unknown, o: grpc.CallOptions, cb: (e: grpc.ServiceError | null, v: T) => void) => void
    >;
  return new Promise<T>((resolve, reject) =>
    client[method](request, { deadline: Date.now() + timeoutSeconds * 1000 }, (error, value) => {
      client.close();
      return error ? reject(error) : resolve(value);
    }),
  );
}
