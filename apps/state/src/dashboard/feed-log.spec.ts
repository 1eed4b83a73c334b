import { FeedLog, parseCursor } from './feed-log';

describe('FeedLog', () => {
  const filled = (count: number, capacity = 3) => {
    const log = new FeedLog<number>(capacity, 'ab12');
    for (let i = 1; i <= count; i++) log.append('row', i);
    return log;
  };

  it.each([
    ['nothing missed', 5, 'ab12.5', []],
    ['one missed', 5, 'ab12.4', [5]],
    ['every kept entry missed', 5, 'ab12.2', [3, 4, 5]],
    ['from the start, nothing dropped yet', 2, 'ab12.0', [1, 2]],
  ])('resumes when %s', (_case, count, cursor, expected) => {
    const resume = filled(count).since(cursor);
    expect(resume.ok && resume.entries.map((e) => e.data)).toEqual(expected);
  });

  it.each([
    ['an entry was dropped', 5, 'ab12.1', /no longer kept/],
    ['another life of the service', 5, 'ffff.5', /epoch ffff/],
    ['a cursor from the future', 5, 'ab12.9', /ahead/],
    ['not a cursor', 5, 'garbage', /not <epoch>.<sequence>/],
  ])('asks to start again when %s', (_case, count, cursor, reason) => {
    const resume = filled(count).since(cursor);
    expect(resume.ok).toBe(false);
    if (!resume.ok) expect(resume.reason).toMatch(reason);
  });

  it('numbers entries and reports the cursor of the latest', () => {
    const log = filled(2);
    expect(log.cursor).toBe('ab12.2');
    expect(log.append('row', 3)).toMatchObject({ id: 'ab12.3', sequence: 3, kind: 'row' });
  });

  it('keeps the entries of the last maxAgeMs only, trimming in bulk', () => {
    let now = 0;
    const log = new FeedLog<number>(1_000, 'ab12', { maxAgeMs: 10_000, now: () => now });
    for (let i = 1; i <= 20; i++) {
      now = i * 1_000; // one entry a second
      log.append('row', i);
    }
    // At 17 s the oldest (1 s) was past 1.5 × 10 s old: trimmed to what is 10 s old, 7 s on.
    const kept = log.since('ab12.6');
    expect(kept.ok && kept.entries.map((e) => e.data)).toEqual([
      7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
    ]);
    expect(log.since('ab12.5')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/no longer kept/),
    });
    // A page that left long ago starts again; one that left 5 s ago resumes.
    now = 60_000;
    log.append('row', 21);
    expect(log.since('ab12.20')).toMatchObject({ ok: true, entries: [{ data: 21 }] });
    expect(log.since('ab12.15').ok).toBe(false);
  });

  it('gives back what is past its age without a new entry (an idle service)', () => {
    let now = 0;
    const log = new FeedLog<number>(1_000, 'ab12', { maxAgeMs: 10_000, now: () => now });
    for (let i = 1; i <= 5; i++) {
      now = i * 1_000;
      log.append('row', i);
    }
    now = 13_500; // entries 1–3 are older than 10 s; nothing appended since
    log.trimExpired();
    expect(log.since('ab12.3')).toMatchObject({ ok: true, entries: [{ data: 4 }, { data: 5 }] });
    expect(log.since('ab12.2').ok).toBe(false);
    now = 60_000;
    log.trimExpired();
    expect(log.since('ab12.5')).toMatchObject({ ok: true, entries: [] });
    expect(log.since('ab12.4').ok).toBe(false);
    expect(log.cursor).toBe('ab12.5');
  });

  it('refuses a capacity that is not a positive whole number', () => {
    expect(() => new FeedLog(0)).toThrow(/capacity must be a positive whole number, got 0/);
  });

  it.each([
    ['ab12.7', { epoch: 'ab12', sequence: 7 }],
    ['AB12.7', undefined],
    ['ab12.', undefined],
    ['.7', undefined],
  ])('parses cursor %s', (cursor, expected) => {
    expect(parseCursor(cursor)).toEqual(expected);
  });
});
