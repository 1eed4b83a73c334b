export * from './kafka-api-versions';
export * from './kafka-broker';
export * from './kafka-cluster';
export * from './kafka-install';
export * from './kafka-probe';
export * from './kafka-settings';
export * from './kafka-storage';
