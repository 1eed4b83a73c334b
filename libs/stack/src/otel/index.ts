export * from './otel-collector';
