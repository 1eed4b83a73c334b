export * from './backoff';
export * from './clock';
export * from './concurrency';
export * from './event-loop-slices';
