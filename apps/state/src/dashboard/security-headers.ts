/**
 * Headers of every dashboard file. The Content-Security-Policy lets the page run only its own
 * modules and styles and talk only to this service: no inline script or style, no other origin,
 * no framing, no plugins, no form posted elsewhere — an injected string cannot run, and a
 * leaked token cannot be sent away by the page.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const DASHBOARD_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};
