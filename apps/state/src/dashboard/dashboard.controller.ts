import { Controller, Get, Inject, NotFoundException, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { KpmSettings } from '@kpm/config';
import { PublicRoute } from '@kpm/service-kit';
import { loadAssets, withoutSnapshotPreload, type DashboardAsset } from './dashboard-assets';
import { DASHBOARD_SECURITY_HEADERS } from './security-headers';

/**
 * `GET /`: the operator dashboard; `GET /dashboard/:file` its modules; the tab's icon. Open with
 * `http.auth` on too: the files hold no data, and the page asks for a token before it reads any.
 */
@PublicRoute()
@Controller()
export class DashboardController {
  private readonly assets: Map<string, DashboardAsset>;

  constructor(@Inject(KpmSettings) settings: Pick<KpmSettings, 'http'>) {
    const assets = loadAssets();
    this.assets = settings.http.auth ? withoutSnapshotPreload(assets) : assets;
  }

  @Get()
  page(@Res() response: Response): void {
    this.send(response, 'index.html');
  }

  @Get('dashboard/:file')
  file(@Param('file') file: string, @Res() response: Response): void {
    this.send(response, file);
  }

  /** Browsers ask for it whatever the page says; answering keeps the console free of 404s. */
  @Get(['favicon.svg', 'favicon.ico'])
  icon(@Res() response: Response): void {
    this.send(response, 'favicon.svg');
  }

  private send(response: Response, name: string): void {
    const asset: DashboardAsset | undefined = this.assets.get(name);
    if (!asset) throw new NotFoundException(`the dashboard has no file ${JSON.stringify(name)}`);
    for (const [header, value] of Object.entries(DASHBOARD_SECURITY_HEADERS))
      response.setHeader(header, value);
    response.setHeader('Content-Type', asset.contentType);
    response.setHeader('Cache-Control', 'no-cache');
    response.end(asset.body);
  }
}
