import { Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { loadSettings } from '@kpm/config';
import { DashboardFeed } from './dashboard/dashboard-feed';
import { FeedPublisher } from './feeds/feed-publisher';
import { StreamSlots } from './http/stream-limit';
import { StateCoordinator } from './kafka/state-coordinator';
import { StateParts } from './state.factory';
import { StateModule } from './state.module';
import { StateView } from './view/state-view';

/** Nest resolves the module (nothing connects until init) and injects createState's own parts. */
it('StateModule hands Nest the parts createState composed', async () => {
  Logger.overrideLogger(false);
  const settings = loadSettings('state', {});
  const module = await Test.createTestingModule({
    imports: [StateModule.register(settings)],
  }).compile();
  const parts = module.get(StateParts);
  expect(module.get(StateView)).toBe(parts.view);
  expect(module.get(StateCoordinator)).toBe(parts.coordinator);
  expect(module.get(FeedPublisher)).toBe(parts.feeds);
  expect(module.get(DashboardFeed)).toBe(parts.dashboard);
  expect(module.get(StreamSlots)).toBe(parts.streams);
  const app = module.createNestApplication({ logger: false });
  expect(StateModule.consumer(settings).transport(app, undefined as never)).toBe(parts.transport);
  await module.close();
});
