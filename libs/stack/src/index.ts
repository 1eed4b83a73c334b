export * from './component';
export * from './daemon';
export * from './local-stack';
export * from './paths';
export * from './wait';
export * from './default-stack';
export * from './kube';
export * from './service-build';
