import { Controller, Get, Header, Inject } from '@nestjs/common';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { PublicRoute } from './http-auth/public-route';

/** One Prometheus registry per service, labelled with the service name. */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry, prefix: 'kpm_' });
  return registry;
}

/** Open even with `http.auth` on: Prometheus scrapes carry no token; metrics hold no process data. */
@PublicRoute()
@Controller()
export class MetricsController {
  constructor(@Inject(Registry) private readonly registry: Registry) {}

  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4')
  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}
