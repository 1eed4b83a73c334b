import { DNS_1035_LABEL, podNameOf } from './pod-name';

describe('podNameOf', () => {
  it.each(['ru-01', 'root-controller', 'a', 'x'.repeat(63)])(
    'keeps a name that already is a DNS-1035 label: %s',
    (name) => expect(podNameOf(name)).toBe(name),
  );

  it.each([
    ['dummy_boot_0', /^dummy-boot-0-[0-9a-f]{8}$/],
    ['RU-01', /^ru-01-[0-9a-f]{8}$/],
    ['ru.01', /^ru-01-[0-9a-f]{8}$/],
    ['0', /^p-0-[0-9a-f]{8}$/],
    ['1.0_local-connection-server', /^p-1-0-local-connection-server-[0-9a-f]{8}$/],
    ['__', /^p-[0-9a-f]{8}$/],
    ['ru-', /^ru-[0-9a-f]{8}$/],
    ['été', /^t-[0-9a-f]{8}$/],
  ])('derives a label with a hash of the exact name: %s', (name, shape) => {
    expect(podNameOf(name)).toMatch(shape);
  });

  it('gives a valid label of at most 63 characters for any name', () => {
    for (const name of ['A'.repeat(253), `${'a_'.repeat(100)}z`, '9'.repeat(64), '-x-', '.']) {
      const pod = podNameOf(name);
      expect([pod, pod.length <= 63, DNS_1035_LABEL.test(pod)]).toEqual([pod, true, true]);
    }
  });

  it('is stable and tells apart names that only case or punctuation separate', () => {
    const names = ['RU-01', 'ru_01', 'ru.01', 'Ru-01', 'ru-01'];
    const pods = names.map(podNameOf);
    expect(new Set(pods).size).toBe(names.length);
    expect(names.map(podNameOf)).toEqual(pods);
  });

  it('hashes the exact name: the same prefix past 54 characters still differs', () => {
    const long = 'Segment_'.repeat(10);
    expect(podNameOf(`${long}a`)).not.toBe(podNameOf(`${long}b`));
  });
});
