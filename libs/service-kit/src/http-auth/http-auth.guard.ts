/**
 * The HTTP API's one gate: with `http.auth` on, every route that is not a `@PublicRoute()` needs
 * `Authorization: Bearer <token>`; without it, or with a bad one, the answer is 401 with
 * `WWW-Authenticate: Bearer` (RFC 6750 §3). The user the token names is kept on the request
 * (`authenticatedUser`). With `http.auth` off every request passes, as before.
 */
import {
  type CanActivate,
  createParamDecorator,
  type ExecutionContext,
  Inject,
  Injectable,
  Optional,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { BearerAuthenticator, type Refusal } from './bearer-authenticator';
import { PUBLIC_ROUTE } from './public-route';

const USER = Symbol('kpm:authenticated-user');
type AuthenticatedRequest = Request & { [USER]?: string };

/** Realm named in every challenge. */
const REALM = 'kpm';

@Injectable()
export class HttpAuthGuard implements CanActivate {
  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    @Optional() @Inject(BearerAuthenticator) private readonly authenticator?: BearerAuthenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.authenticator || context.getType() !== 'http') return true;
    const isPublic = this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) return true;
    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest>();
    const outcome = await this.authenticator.authenticate(request.header('authorization'));
    if (!outcome.ok) refuse(http.getResponse<Response>(), outcome);
    request[USER] = outcome.user;
    return true;
  }
}

function refuse(response: Response, refusal: Refusal): never {
  const challenge =
    refusal.error === 'missing'
      ? `Bearer realm="${REALM}"`
      : `Bearer realm="${REALM}", error="invalid_token", error_description="${refusal.reason}"`;
  response.setHeader('WWW-Authenticate', challenge);
  throw new UnauthorizedException({
    statusCode: 401,
    error: 'Unauthorized',
    message: refusal.reason,
  });
}

/** The user the request's token names, or undefined when `http.auth` is off. */
function authenticatedUser(request: Request): string | undefined {
  return (request as AuthenticatedRequest)[USER];
}

/** `@AuthenticatedUser() user: string | undefined` in a handler. */
export const AuthenticatedUser = createParamDecorator((_: unknown, context: ExecutionContext) =>
  authenticatedUser(context.switchToHttp().getRequest<Request>()),
);
