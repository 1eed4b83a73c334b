/** How a service reaches Kafka; filled from configuration (KPM_KAFKA_BROKERS, …). */
export interface KafkaSettings {
  brokers: string[];
  clientId: string;
  /** Topic name prefix, `kpm` by default (KPM_TOPIC_PREFIX). */
  topicPrefix: string;
  /** Partitions of every keyed topic; the same everywhere so a session meets itself on one number. */
  partitions: number;
  /** Largest record value a consumer accepts before treating it as oversize (bytes). */
  maxRecordBytes: number;
  /** Replicas of each topic kpm creates (KPM_TOPIC_REPLICATION_FACTOR; 3 in production). */
  replicationFactor?: number;
  /** `min.insync.replicas` of each topic kpm creates (KPM_TOPIC_MIN_INSYNC_REPLICAS; 2). */
  minInsyncReplicas?: number;
}
