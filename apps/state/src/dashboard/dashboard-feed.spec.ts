import { Subject } from 'rxjs';
import type { RowChange, StateView, ViewEvent } from '../view/state-view';
import { DashboardFeed, KEPT_FOR_MS } from './dashboard-feed';

describe('DashboardFeed', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('gives back entries past their two minutes while nothing new comes (an idle service)', () => {
    let now = 0;
    const view = { rowChanges: new Subject<RowChange>(), events: new Subject<ViewEvent>() };
    const feed = new DashboardFeed(view as unknown as StateView, () => now);
    feed.onModuleInit();
    view.rowChanges.next({ kind: 'gone', uuid: 'u1' });
    const fromStart = `${feed.log.epoch}.0`;
    expect(feed.log.since(fromStart)).toMatchObject({ ok: true, entries: [{ kind: 'gone' }] });

    now = KEPT_FOR_MS - 1; // not yet past: kept through the trimmer's rounds
    jest.advanceTimersByTime(KEPT_FOR_MS / 2);
    expect(feed.log.since(fromStart).ok).toBe(true);

    now = KEPT_FOR_MS + 1; // past: the next round drops it, nothing appended since
    jest.advanceTimersByTime(KEPT_FOR_MS / 4);
    expect(feed.log.since(fromStart)).toMatchObject({ ok: false });
    expect(feed.log.since(feed.log.cursor)).toMatchObject({ ok: true, entries: [] });
    feed.onModuleDestroy();
    expect(jest.getTimerCount()).toBe(0);
  });
});
