import { SetMetadata } from '@nestjs/common';

export const PUBLIC_ROUTE = 'kpm:public-route';

/**
 * A route answered without a token even when `http.auth` is on: health and metrics (probes and
 * Prometheus carry no token), and the dashboard's own files (they hold no data; the page asks
 * for a token before it reads any).
 */
export const PublicRoute = (): ClassDecorator & MethodDecorator => SetMetadata(PUBLIC_ROUTE, true);
