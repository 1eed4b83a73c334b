export * from './kafka-api-versions';
export * from './kafka-broker';
export * from './kafka-install';
export * from './kafka-probe';
export * from './kafka-settings';
export * from './kafka-storage';
export * from './secure-kafka-broker';
export * from './secure-kafka-settings';
