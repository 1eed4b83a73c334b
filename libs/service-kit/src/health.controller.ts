import { Controller, Get, HttpStatus, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { PublicRoute } from './http-auth/public-route';
import { Readiness } from './readiness';

/** Open even with `http.auth` on: probes carry no token. */
@PublicRoute()
@Controller()
export class HealthController {
  constructor(@Inject(Readiness) private readonly readiness: Readiness) {}

  /**
   * Liveness: the process answers and no part has been failing past its liveness deadline;
   * Kubernetes restarts it otherwise.
   */
  @Get('healthz')
  healthz(@Res() response: Response): void {
    const overdue = this.readiness.overdue();
    if (Object.keys(overdue).length === 0) {
      response.status(HttpStatus.OK).json({ status: 'ok' });
      return;
    }
    response.status(HttpStatus.SERVICE_UNAVAILABLE).json({ status: 'failing', overdue });
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
