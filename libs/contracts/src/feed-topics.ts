/**
 * The topics of DUNE's feeds (docs/design.md §5.7), named as DUNE names them rather than under
 * kpm's prefix: drunc's broadcasts on `control.<session>.<name>`, kafkaopmon's
 * `monitoring.<topic>`, erskafka's topic. The settings `feeds.*` choose the parts.
 */
export interface FeedTopicNaming {
  broadcast: { session: string; name: string };
  opmon: { topic: string };
  ers: { topic: string };
}

/** drunc's process manager name, DUNE's opmon and ERS streams; kpm's own session `kpm`. */
export const DEFAULT_FEED_NAMING: FeedTopicNaming = {
  broadcast: { session: 'kpm', name: 'process_manager' },
  opmon: { topic: 'opmon_stream' },
  ers: { topic: 'ers_stream' },
};

export function feedTopicNames(naming: FeedTopicNaming): {
  broadcast: string;
  opmon: string;
  ers: string;
} {
  return {
    broadcast: `control.${naming.broadcast.session}.${naming.broadcast.name}`,
    opmon: `monitoring.${naming.opmon.topic}`,
    ers: naming.ers.topic,
  };
}
