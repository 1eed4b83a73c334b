/**
 * Compacts the local stack's etcd through its HTTP JSON gateway, as kube-apiserver's periodic
 * compaction does: history before the current revision is gone, so a watch (served from etcd)
 * from an older resourceVersion gets 410 Gone.
 */
export async function compactEtcd(endpoint = 'http://127.0.0.1:12379'): Promise<number> {
  const range = await postJson(`${endpoint}/v3/kv/range`, {
    key: Buffer.from('\0').toString('base64'),
  });
  const revision = Number((range as { header: { revision: string } }).header.revision);
  await postJson(`${endpoint}/v3/kv/compaction`, { revision: String(revision), physical: true });
  return revision;
}

async function postJson(url: string, body: unknown): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`etcd ${url}: HTTP ${response.status}: ${text}`);
  return JSON.parse(text) as unknown;
}
