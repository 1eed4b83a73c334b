export * from './backoff';
export * from './batcher';
export * from './clock';
export * from './error-text';
export * from './eventually';
export * from './retry';
export * from './concurrency';
export * from './event-loop-slices';
