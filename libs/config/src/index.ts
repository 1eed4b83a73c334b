export * from './settings';
export * from './load-settings';
export * from './boot-worker-settings';
export * from './watcher-settings';
export * from './state-settings';
export * from './drunc-settings';
