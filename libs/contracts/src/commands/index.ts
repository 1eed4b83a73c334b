export * from './commands';
export * from './limits';
export * from './process-query';
export * from './process-query-match';
export * from './process-spec';
export * from './command-ownership';
export * from './secret-env';
export * from './exit-policy';
