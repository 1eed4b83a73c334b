import { Controller, Get, NotFoundException, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { loadAssets, type DashboardAsset } from './dashboard-assets';

/** `GET /`: the operator dashboard; `GET /dashboard/:file` its modules; the tab's icon. */
@Controller()
export class DashboardController {
  private readonly assets = loadAssets();

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
    response.setHeader('Content-Type', asset.contentType);
    response.setHeader('Cache-Control', 'no-cache');
    response.end(asset.body);
  }
}
