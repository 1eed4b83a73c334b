export * from './bearer-authenticator';
export * from './http-auth.guard';
export * from './jwt-verifier';
export * from './public-route';
export * from './token-file';
