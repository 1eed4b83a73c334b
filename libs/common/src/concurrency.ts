/**
 * Runs `work` on every item with at most `limit` calls in flight and returns the results in
 * input order: a thousand pod creations proceed in parallel without a thousand open requests.
 * A failure stops new calls from starting; the first error is thrown once those in flight settle.
 */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index], index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane);
  await Promise.all(lanes);
  if (failure) throw failure.error;
  return results;
}
