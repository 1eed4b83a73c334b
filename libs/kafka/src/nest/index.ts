/** The Nest transport over kpm's consumer: a separate entry, so `@kpm/kafka` loads without Nest. */
export * from './cloud-event-server';
export * from './kafka-event-context';
