import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderSecureProperties, secureKafkaSettings } from './secure-kafka-settings';

describe('renderSecureProperties', () => {
  const home = process.env.KPM_HOME;
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kpm-secure-props-'));
    process.env.KPM_HOME = dir;
  });

  afterEach(() => {
    if (home === undefined) delete process.env.KPM_HOME;
    else process.env.KPM_HOME = home;
    rmSync(dir, { recursive: true, force: true });
  });

  it('fills every placeholder of the shared template and keeps only the secured listeners', () => {
    const settings = secureKafkaSettings({ KPM_KAFKA_SECURE_PORT: '29192' });
    const text = readFileSync(
      renderSecureProperties(settings, '/k/broker.pem', '/k/ca.pem'),
      'utf8',
    );
    expect(text).not.toMatch(/\$\{\w+\}/);
    expect(text).toMatch(/^node\.id=1$/m);
    expect(text).toMatch(/^controller\.quorum\.voters=1@127\.0\.0\.1:29193$/m);
    expect(text.match(/^listeners=.*$/gm)).toEqual([
      'listeners=SASL_SSL://127.0.0.1:29192,CONTROLLER://127.0.0.1:29193',
    ]);
    expect(text).not.toContain('PLAINTEXT://');
  });
});
