/**
 * @kpm/client: kpm for other TypeScript DAQ components — commands with awaited completions and a
 * live stream of what happens to a session's processes.
 */
import 'reflect-metadata';

export * from './client-options';
export * from './command-records';
export * from './connect';
export * from './errors';
export * from './event-filter';
export * from './event-stream';
export * from './in-memory-transport';
export * from './kafka-transport';
export * from './process-manager-client';
export * from './transport';
