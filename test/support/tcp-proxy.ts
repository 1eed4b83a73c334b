import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of the API server (TLS passes through untouched) that a test can cut,
 * stall or point elsewhere, to break the watcher's watch stream the way a network does.
 */
export class TcpProxy {
  private server?: Server;
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();
  private readonly frozen = new Set<{ client: Socket; upstream: Socket }>();
  private refusing = false;

  constructor(private target: { host: string; port: number }) {}

  async start(): Promise<this> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `https://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** Connections accepted so far (a reconnecting client opens new ones). */
  connections = 0;

  /** Destroys every open connection and refuses new ones until `restore()`. */
  cut(): void {
    this.refusing = true;
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
  }

  /** Keeps the open connections but forwards nothing on them: a silent, half-dead stream. */
  stall(): void {
    for (const pair of this.pairs) {
      pair.client.unpipe(pair.upstream);
      pair.upstream.unpipe(pair.client);
      pair.client.pause();
      pair.upstream.pause();
      this.frozen.add(pair);
    }
    this.pairs.clear();
  }

  /** Accepts and forwards again, optionally to another upstream. */
  restore(target?: { host: string; port: number }): void {
    if (target) this.target = target;
    this.refusing = false;
  }

  async stop(): Promise<void> {
    this.cut();
    for (const { client, upstream } of this.frozen) {
      client.destroy();
      upstream.destroy();
    }
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private accept(client: Socket): void {
    if (this.refusing) {
      client.destroy();
      return;
    }
    this.connections++;
    const upstream = connect(this.target.port, this.target.host);
    const pair = { client, upstream };
    this.pairs.add(pair);
    const drop = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
