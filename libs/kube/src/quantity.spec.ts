import { formatQuantity, milliOf, parseQuantity } from './quantity';

it.each([
  ['500m', 0.5],
  ['2', 2],
  ['1.5', 1.5],
  ['1Gi', 2 ** 30],
  ['4G', 4e9],
  ['128Mi', 128 * 2 ** 20],
  ['512Mi', 2 ** 29],
  ['1G', 1e9],
  ['1e3', 1000],
  ['100k', 100_000],
  ['.5', 0.5],
])('%s is %d', (text, value) => {
  expect(parseQuantity(text)).toBeCloseTo(value, 9);
});

it.each(['', 'Gi', '1 Gi', '1GB', 'lots', '1.2.3'])('%j is no quantity', (text) => {
  expect(parseQuantity(text)).toBeUndefined();
});

it.each([
  ['cpu', 0.5, '500m'],
  ['cpu', 4, '4'],
  ['memory', 2 ** 31, '2Gi'],
  ['hugepages-1Gi', 3 * 2 ** 30, '3Gi'],
  ['memory', 512 * 2 ** 20, '512Mi'],
  ['pods', 110, '110'],
])('%s %d reads %s', (resource, value, text) => {
  expect(formatQuantity(resource, value * 1000)).toBe(text);
});

it('sums in whole thousandths: 3 cores less 100m and 200m leave exactly 2700m', () => {
  const left = milliOf('3')! - milliOf('100m')! - milliOf('200m')!;
  expect(left).toBe(milliOf('2700m'));
  expect(milliOf('1Gi')).toBe(2 ** 30 * 1000);
});
