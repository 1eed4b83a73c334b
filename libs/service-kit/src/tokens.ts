/** Injection token of the kafkajs client shared by a service's producer, consumer and admin. */
export const KAFKA_CLIENT = Symbol('KAFKA_CLIENT');
