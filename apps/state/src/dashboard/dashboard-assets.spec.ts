import { loadAssets, withoutSnapshotPreload } from './dashboard-assets';

describe('withoutSnapshotPreload', () => {
  it("takes only the snapshot's preload out of the page", () => {
    const assets = loadAssets();
    const page = assets.get('index.html')!.body.toString('utf8');
    const served = withoutSnapshotPreload(assets).get('index.html')!.body.toString('utf8');
    expect(page).toContain('<link rel="preload" href="/v1/dashboard/snapshot"');
    expect(served).not.toContain('/v1/dashboard/snapshot');
    expect(served).toContain('<script type="module" src="/dashboard/app.js"></script>');
    expect(page.length - served.length).toBeLessThan(120);
    expect(assets.get('index.html')!.body.toString('utf8')).toBe(page);
  });

  it('has no inline script or style the Content-Security-Policy would block', () => {
    const files = [...loadAssets()].filter(([name]) => /\.(html|js)$/.test(name));
    for (const [name, asset] of files) {
      const text = asset.body.toString('utf8');
      expect([name, /\son[a-z]+=["']/.test(text)]).toEqual([name, false]);
      expect([name, /style="/.test(text)]).toEqual([name, false]);
      if (name.endsWith('.html')) expect(/<script(?![^>]*\ssrc=)[^>]*>/.test(text)).toBe(false);
    }
  });
});
