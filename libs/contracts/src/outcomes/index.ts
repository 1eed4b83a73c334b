export * from './broadcast';
export * from './completion';
export * from './dead-letter';
