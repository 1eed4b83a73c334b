export * from './kafka-api-versions';
export * from './kafka-broker';
export * from './kafka-cluster';
export * from './kafka-install';
export { describeCluster, warmCoordinators, type ClusterFacts } from '@kpm/kafka';
export * from './kafka-settings';
export * from './kafka-storage';
