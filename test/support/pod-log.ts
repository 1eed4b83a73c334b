import { Writable } from 'node:stream';
import { Log, type KubeConfig } from '@kubernetes/client-node';

/**
 * Follows a running container's log (the API server's `follow` stream, as `kubectl logs -f`)
 * until a line satisfies `wanted`; resolves with that line. Event-driven: a process's own output
 * says when it has done what a test then checks.
 */
export async function logLineOf(
  kubeconfig: KubeConfig,
  where: { namespace: string; pod: string; container?: string },
  wanted: (line: string) => boolean,
  timeoutMs = 60_000,
): Promise<string> {
  let found: (line: string) => void = () => undefined;
  const seen = new Promise<string>((resolve) => (found = resolve));
  let partial = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      const line = lines.find(wanted);
      if (line !== undefined) found(line);
      callback();
    },
  });
  const container = where.container ?? where.pod;
  const stream = await new Log(kubeconfig).log(where.namespace, where.pod, container, sink, {
    follow: true,
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new Error(`no such line in ${where.namespace}/${where.pod} within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([seen, timeout]);
  } finally {
    clearTimeout(timer);
    stream.abort();
  }
}
