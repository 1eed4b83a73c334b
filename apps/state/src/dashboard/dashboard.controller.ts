import { Controller, Get, Header } from '@nestjs/common';
import { DASHBOARD_PAGE } from './dashboard-page';

/** `GET /`: the operator dashboard. */
@Controller()
export class DashboardController {
  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Cache-Control', 'no-cache')
  page(): string {
    return DASHBOARD_PAGE;
  }
}
