import { kubePorts } from './ports';

describe('kubePorts', () => {
  it('defaults away from the usual Kubernetes ports', () => {
    expect(kubePorts({})).toEqual({
      etcdClient: 12379,
      etcdPeer: 12380,
      apiserver: 16443,
      controllerManager: 16457,
      scheduler: 16459,
    });
  });

  it('takes overrides from the environment and refuses non-ports', () => {
    expect(kubePorts({ KPM_APISERVER_PORT: '26443', KPM_ETCD_PORT: '' }).apiserver).toBe(26443);
    expect(() => kubePorts({ KPM_ETCD_PORT: '70000' })).toThrow(/KPM_ETCD_PORT=70000/);
  });
});
