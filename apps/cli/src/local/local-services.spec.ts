import { gatewayImageEnv } from './local-services';

describe("the drunc gateway's image on the local stack", () => {
  it.each<[string, Record<string, string>, Record<string, string>, string | undefined]>([
    [
      "the stack's DAQ image, which its real node has",
      { KPM_REAL_IMAGE: 'kpm-daq:1' },
      {},
      'kpm-daq:1',
    ],
    [
      'the operator’s choice first',
      { KPM_REAL_IMAGE: 'kpm-daq:1' },
      { KPM_DRUNC_GATEWAY_DEFAULT_IMAGE: 'site/daq:2' },
      'site/daq:2',
    ],
    [
      "an empty choice: the boot-worker's default",
      { KPM_REAL_IMAGE: 'kpm-daq:1' },
      { KPM_DRUNC_GATEWAY_DEFAULT_IMAGE: '' },
      undefined,
    ],
    ["no real node: the boot-worker's default", {}, {}, undefined],
  ])('%s', (_, stackEnv, env, image) => {
    expect(gatewayImageEnv(stackEnv, env).KPM_DRUNC_GATEWAY_DEFAULT_IMAGE).toBe(image);
  });
});
