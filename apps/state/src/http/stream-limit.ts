/**
 * Server-Sent Event streams hold a connection each for as long as the client stays; at most
 * `http.maxStreams` are open at once on a replica, so a page left open in every control-room tab
 * (or a client that reconnects in a loop) cannot exhaust the service's sockets. One more is
 * answered 503 with `Retry-After`; a slot is freed when its connection closes.
 */
import {
  type CallHandler,
  type ExecutionContext,
  HttpException,
  HttpStatus,
  Inject,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import type { Response } from 'express';
import type { Observable } from 'rxjs';
import type { KpmSettings } from '@kpm/config';

/** A refused client tries again after this long (the page's own reconnect waits as long). */
const STREAM_RETRY_AFTER_SECONDS = 5;

export class StreamSlots {
  private open = 0;

  constructor(private readonly settings: Pick<KpmSettings, 'http'>) {}

  get count(): number {
    return this.open;
  }

  /** Takes a slot until `response` closes, or refuses with 503. */
  admit(response: Response): void {
    const max = this.settings.http.maxStreams;
    if (this.open >= max) {
      response.setHeader('Retry-After', String(STREAM_RETRY_AFTER_SECONDS));
      throw new HttpException(
        {
          statusCode: HttpStatus.SERVICE_UNAVAILABLE,
          error: 'Service Unavailable',
          message: `${max} event streams are open on this replica (http.maxStreams); try again later`,
        },
        HttpStatus.SERVICE_UNAVAILABLE,
      );
    }
    this.open++;
    response.once('close', () => this.open--);
  }
}

/** `@UseInterceptors(StreamLimit)` on every SSE route. */
@Injectable()
export class StreamLimit implements NestInterceptor {
  constructor(@Inject(StreamSlots) private readonly slots: StreamSlots) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    this.slots.admit(context.switchToHttp().getResponse<Response>());
    return next.handle();
  }
}
