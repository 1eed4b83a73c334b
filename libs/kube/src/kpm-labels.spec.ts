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
});
