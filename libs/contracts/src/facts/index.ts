export * from './process-events';
export * from './process-instance';
export * from './termination';
export * from './automatic-action';
