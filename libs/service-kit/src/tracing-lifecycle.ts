/**
 * Every service's traces (`@kpm/tracing`): started with the service when the `OTEL_*`
 * variables ask for them, flushed and stopped as it shuts down.
 */
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { KpmSettings } from '@kpm/config';
import { startTracing, type Tracing } from '@kpm/tracing';

@Injectable()
export class TracingLifecycle implements OnApplicationShutdown {
  readonly tracing: Tracing;

  constructor(@Inject(KpmSettings) settings: Pick<KpmSettings, 'service' | 'instance'>) {
    this.tracing = startTracing(settings.service, { instance: settings.instance });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.tracing.shutdown();
  }
}
