export * from './kpm-labels';
export * from './kube-client';
export * from './kube-errors';
export * from './kube-retry';
export * from './pod-gateway';
