import { connect } from 'node:net';

export interface ApiVersionRange {
  apiKey: number;
  minVersion: number;
  maxVersion: number;
}

/**
 * Asks a broker which protocol versions it serves (ApiVersions v0, the one request every broker
 * answers), over a plain socket so the answer does not depend on any client library.
 */
export function fetchApiVersions(
  host: string,
  port: number,
  timeoutMs = 5000,
): Promise<ApiVersionRange[]> {
  const clientId = Buffer.from('kpm-stack-api-versions');
  const request = Buffer.alloc(4 + 2 + 2 + 4 + 2 + clientId.length);
  request.writeInt32BE(request.length - 4, 0); // size
  request.writeInt16BE(18, 4); // ApiVersions
  request.writeInt16BE(0, 6); // version 0
  request.writeInt32BE(1, 8); // correlation id
  request.writeInt16BE(clientId.length, 12);
  clientId.copy(request, 14);

  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const chunks: Buffer[] = [];
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(timeoutMs, () =>
      fail(new Error(`kpm: no ApiVersions answer from ${host}:${port}`)),
    );
    socket.on('error', fail);
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const data = Buffer.concat(chunks);
      if (data.length < 4 || data.length < 4 + data.readInt32BE(0)) return;
      socket.end();
      try {
        resolve(parseApiVersionsV0(data));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

function parseApiVersionsV0(data: Buffer): ApiVersionRange[] {
  // size, correlation id, error code, [api key, min, max]
  const errorCode = data.readInt16BE(8);
  if (errorCode !== 0) throw new Error(`kpm: ApiVersions failed with error code ${errorCode}`);
  const count = data.readInt32BE(10);
  return Array.from({ length: count }, (_, i) => {
    const at = 14 + i * 6;
    return {
      apiKey: data.readInt16BE(at),
      minVersion: data.readInt16BE(at + 2),
      maxVersion: data.readInt16BE(at + 4),
    };
  });
}

export interface ClientApiGap {
  api: string;
  clientVersions: string;
  broker: string;
}

/**
 * The APIs kafkajs implements that this broker would refuse. kafkajs (frozen at 2.2.4) picks
 * min(its highest version, the broker's highest) and never looks at the broker's lowest, so a
 * broker that dropped old versions (KIP-896 in Kafka 4.0) fails only at the first such request.
 * Reads kafkajs's own request table, a plain data module of the frozen release.
 */
export function kafkajsApiGaps(broker: ApiVersionRange[]): ClientApiGap[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { requests } = require('kafkajs/src/protocol/requests') as {
    requests: Record<string, { versions: string[] }>;
  };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const apiKeys = require('kafkajs/src/protocol/requests/apiKeys') as Record<string, number>;
  const gaps: ClientApiGap[] = [];
  for (const [api, definition] of Object.entries(requests)) {
    const served = broker.find((range) => range.apiKey === apiKeys[api]);
    if (definition.versions.length === 0 || !served) continue;
    const versions = definition.versions.map(Number);
    const chosen = Math.min(Math.max(...versions), served.maxVersion);
    if (chosen < served.minVersion || !versions.includes(chosen)) {
      gaps.push({
        api,
        clientVersions: `${Math.min(...versions)}-${Math.max(...versions)}`,
        broker: `${served.minVersion}-${served.maxVersion}`,
      });
    }
  }
  return gaps;
}
