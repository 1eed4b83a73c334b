export * from './host-check';
export * from './host-state';
export * from './node-config';
export * from './node-layout';
export * from './real-node';
