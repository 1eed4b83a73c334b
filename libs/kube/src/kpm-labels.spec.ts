import { KpmLabels } from './kpm-labels';

describe('KpmLabels', () => {
  const labels = new KpmLabels('drunc.daq');

  it('builds creator-scoped selectors', () => {
    expect(labels.sessionSelector('run-1')).toBe('creator.drunc.daq=kpm,session.drunc.daq=run-1');
    expect(labels.terminationFinalizer).toBe('drunc.daq/termination-record');
  });

  it('recognises only kpm-created objects', () => {
    expect(labels.isOurs({ 'creator.drunc.daq': 'kpm' })).toBe(true);
    expect(labels.isOurs({ 'creator.drunc.daq': 'someone' })).toBe(false);
    expect(labels.isOurs(undefined)).toBe(false);
  });

  it.each([
    { object: { metadata: { labels: { 'creator.drunc.daq': 'kpm' } } }, refused: false },
    { object: { metadata: { labels: { 'creator.drunc.daq': 'someone' } } }, refused: true },
    { object: { metadata: {} }, refused: true },
    { object: {}, refused: true },
  ])('writes only what it will recognise as its own: $object', ({ object, refused }) => {
    const write = () => labels.requireOurs('pods', object);
    if (refused) expect(write).toThrow('kpm creates only pods carrying its creator label');
    else expect(write).not.toThrow();
  });
});
