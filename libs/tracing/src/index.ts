export * from './spans';
export * from './tracing';
