/** Injection token of the Kafka client (`KafkaClient`) shared by a service's producer, consumer and admin. */
export const KAFKA_CLIENT = Symbol('KAFKA_CLIENT');
