import { Controller, Get, HttpCode, HttpStatus, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Readiness } from './readiness';

@Controller()
export class HealthController {
  constructor(@Inject(Readiness) private readonly readiness: Readiness) {}

  /** Liveness: the process answers; Kubernetes restarts it otherwise. */
  @Get('healthz')
  @HttpCode(HttpStatus.OK)
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Readiness: every part (Kafka consumer, watch stream, …) is up. */
  @Get('readyz')
  readyz(@Res() response: Response): void {
    const ready = this.readiness.ready;
    response
      .status(ready ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE)
      .json({ ready, parts: this.readiness.report() });
  }
}
