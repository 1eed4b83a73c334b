export * from './settings';
export * from './load-settings';
