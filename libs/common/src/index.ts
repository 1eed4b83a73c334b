export * from './backoff';
export * from './concurrency';
export * from './event-loop-slices';
