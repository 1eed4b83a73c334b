import { FeedsConfig } from '@kpm/config';
import { decodeFeedMessage, FeedMessage } from '../../state/src/feeds/feed-protos';
import { broadcastListing, KAFKA_BROADCAST_CONFIGURATION } from './broadcast-listing';
import { describeKpm } from './describe';

function feeds(change: (f: FeedsConfig) => void = () => undefined): FeedsConfig {
  const f = new FeedsConfig();
  change(f);
  return f;
}

describe("describe's broadcast", () => {
  it.each<[string, FeedsConfig]>([
    ['no address a shell reaches is named: none (a shell would fail to connect)', feeds()],
    [
      'the broadcast feed is off: none',
      feeds((f) => {
        f.kafkaAddress = 'daq-kafka:9092';
        f.broadcast.enabled = false;
      }),
    ],
  ])('%s', (_, config) => {
    expect(broadcastListing(config)).toBeUndefined();
    expect(describeKpm({ name: 'kpm', endpoint: 'grpc://h:1' })).not.toHaveProperty('broadcast');
  });

  it("names drunc's KafkaBroadcastHandlerConfiguration, as druncschema encodes it", () => {
    const listing = broadcastListing(feeds((f) => (f.kafkaAddress = 'daq-kafka:9092')))!;
    expect(listing.type_url).toBe(KAFKA_BROADCAST_CONFIGURATION);
    expect(decodeFeedMessage(FeedMessage.kafkaBroadcastConfiguration, listing.value)).toEqual({
      kafka_address: 'daq-kafka:9092',
      topic: 'control.kpm.process_manager',
    });
    const described = describeKpm({ name: 'kpm', endpoint: 'grpc://h:1', broadcast: listing });
    expect(described.broadcast).toBe(listing);
  });
});
