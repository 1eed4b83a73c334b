import type { VolumeConfig } from '@kpm/config';
import { configuredVolumes, coveredBy } from './configured-volumes';

const volume = (name: string, mountPath: string, readOnly?: boolean): VolumeConfig => ({
  name,
  mountPath,
  hostPath: mountPath,
  ...(readOnly === undefined ? {} : { readOnly }),
});
// The volumes DUNE's CERN configuration mounts.
const CERN = [
  volume('nfs', '/nfs', false),
  volume('cvmfs', '/cvmfs', true),
  volume('hugepages', '/dev/hugepages', false),
  volume('vfio', '/dev/vfio', false),
  volume('intel-firmware', '/lib/firmware/intel/ice', true),
];

describe('configuredVolumes: drunc’s configured volumes', () => {
  it('keeps the readout hardware out of every other pod', () => {
    const { volumes, mounts } = configuredVolumes(CERN, false);
    expect(volumes).toEqual([
      { name: 'nfs', hostPath: { path: '/nfs', type: 'Directory' } },
      { name: 'cvmfs', hostPath: { path: '/cvmfs', type: 'Directory' } },
    ]);
    expect(mounts).toEqual([
      { name: 'nfs', mountPath: '/nfs' },
      { name: 'cvmfs', mountPath: '/cvmfs', readOnly: true },
    ]);
  });

  it('mounts it in a readout pod, but not over the pod’s own hugepages', () => {
    const taken = { names: ['kpm-hugepages'], paths: ['/dev/hugepages'] };
    const { mounts } = configuredVolumes(CERN, true, taken);
    expect(mounts.map((m) => m.name)).toEqual(['nfs', 'cvmfs', 'vfio', 'intel-firmware']);
  });

  it('mounts read-only unless a volume says otherwise', () => {
    expect(configuredVolumes([volume('data', '/data')], false).mounts).toEqual([
      { name: 'data', mountPath: '/data', readOnly: true },
    ]);
  });
});

describe('coveredBy: drunc mounts the home only when no configured mount covers it', () => {
  const mounts = [{ name: 'nfs', mountPath: '/nfs' }];
  it.each([
    ['/nfs/home/alice', true],
    ['/nfs', true],
    ['/nfsx/alice', false],
    ['/home/alice', false],
  ])('%s → %p', (path, covered) => {
    expect(coveredBy(path, mounts)).toBe(covered);
  });
});
