import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { imageSourceDir } from './go-static';
import { standinNames } from './node-images';

const run = promisify(execFile);

describe('kpm programs in images (stack/images, go test)', () => {
  it.each(['daq-standin', 'pause'])('%s passes its Go table tests', async (name) => {
    const { stdout } = await run(process.env.KPM_GO ?? 'go', ['test', '-count=1', './...'], {
      cwd: imageSourceDir(name),
      env: { ...process.env, CGO_ENABLED: '0' },
    });
    expect(stdout).toMatch(/^ok\s+kpm\.local\/stack\/images\//m);
  });

  it('installs the stand-in under drunc’s executables', () => {
    expect(standinNames()).toEqual([
      'daq-standin',
      'daq_application',
      'drunc-controller',
      'gunicorn',
    ]);
  });
});
