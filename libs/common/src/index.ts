export * from './backoff';
export * from './concurrency';
