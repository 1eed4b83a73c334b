export * from './broadcaster';
export * from './health.controller';
export * from './kafka-lifecycle';
export * from './metrics';
export * from './readiness';
export * from './run-service';
export * from './service-kit.module';
export * from './tokens';
