/**
 * Starts the gateway: HTTP (health, readiness, metrics) like every kpm service, and drunc's
 * ProcessManager (both wire eras) and the enveloped era's SessionManager on Nest's gRPC transport at `grpc://<gateway.host>:<gateway.port>`, with the
 * keepalive pings of drunc's driver (one every 60 s during a call) accepted.
 */
import { logEvent } from '@kpm/common';
import { createServer } from 'node:net';
import { Logger, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Transport, type GrpcOptions } from '@nestjs/microservices';
import type { Server } from '@grpc/grpc-js';
import type { KpmSettings } from '@kpm/config';
import { KafkaLifecycle, Readiness, serviceLogger } from '@kpm/service-kit';
import { answerBy } from './calls/answer-by';
import { DruncGatewayModule } from './drunc-gateway.module';
import { DruncProcessManager } from './drunc-process-manager';
import { addEnvelopedServices } from './enveloped/enveloped-services';
import { DRUNC_PACKAGE, DRUNC_PROTO, LOADER_OPTIONS, protoDir } from './wire/proto-files';

export interface RunningGateway {
  app: INestApplication;
  /** `grpc://host:port`, as drunc's shells take it. */
  address: string;
}

export async function runGateway(settings: KpmSettings): Promise<RunningGateway> {
  const port = settings.gateway.port || (await freePort(settings.gateway.host));
  const address = `grpc://${settings.gateway.host}:${port}`;
  const app = await NestFactory.create(DruncGatewayModule.register(settings, address), {
    logger: serviceLogger(settings.logFormat),
  });
  app.enableShutdownHooks();
  const readiness = app.get(Readiness);
  readiness.expect('grpc');
  const enveloped = (server: Server) =>
    addEnvelopedServices(server, app.get(DruncProcessManager), {
      name: settings.gateway.name,
      configurations: settings.gateway.configurations,
      answerBy: (call) => answerBy(call, settings.gateway),
    });
  app.connectMicroservice<GrpcOptions>(grpcOptions(settings, port, enveloped), {
    inheritAppConfig: true,
  });
  await app.init();
  await app.startAllMicroservices();
  readiness.set('grpc', true, address);
  await app.listen(settings.http.port, settings.http.host);
  const url = await app.getUrl();
  await app.get(KafkaLifecycle).announceReady(`${url} (drunc: ${address})`);
  new Logger(settings.service).log(logEvent('service.listening', { grpc: address, http: url }));
  return { app, address };
}

/** drunc's current services through Nest; the enveloped era beside them. */
function grpcOptions(
  settings: KpmSettings,
  port: number,
  enveloped: (server: Server) => void,
): GrpcOptions {
  return {
    transport: Transport.GRPC,
    options: {
      package: DRUNC_PACKAGE,
      protoPath: DRUNC_PROTO,
      url: `${settings.gateway.host}:${port}`,
      loader: { ...LOADER_OPTIONS, includeDirs: [protoDir()] },
      // drunc's driver pings every 60 s during a call; its newer servers allow pings without
      // calls. Accept both, and a ping as often as every 10 s, so no client is sent GOAWAY.
      keepalive: {
        keepalivePermitWithoutCalls: 1,
        http2MinPingIntervalWithoutDataMs: 10_000,
      },
      onLoadPackageDefinition: (_definition: unknown, server: Server) => {
        enveloped(server);
      },
    },
  };
}

/** A port free now on `host` (the gRPC server binds it right after). */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
