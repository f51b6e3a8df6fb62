/**
 * The admin page: one HTML file, one script module and one stylesheet, served as they are (no build
 * step) under a Content-Security-Policy that allows only our own script, style and API calls. The
 * page holds no data of its own; it asks for the admin token and talks to /admin/api.
 */
import { fileURLToPath } from 'node:url';
import express, { type Response, Router } from 'express';

const PUBLIC_DIR = fileURLToPath(new URL('./public/', import.meta.url));

export const ADMIN_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function secureHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', ADMIN_PAGE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  // The page and its script change with the service; a stale cached script would call routes that moved.
  res.setHeader('Cache-Control', 'no-cache');
}

/** Mount at `/admin`, after the admin API at `/admin/api`. */
export function adminPage(): Router {
  const router = Router({ strict: true });
  router.get('/', (req, res) => {
    // Relative asset URLs resolve against `/admin`; `/admin/` would resolve them one level too deep.
    // A relative redirect keeps working behind a proxy that serves the service under a path prefix.
    if (req.originalUrl.split('?')[0]!.endsWith('/')) {
      res.redirect(301, '../admin');
      return;
    }
    secureHeaders(res);
    res.sendFile('index.html', { root: PUBLIC_DIR });
  });
  router.use(
    '/assets',
    express.static(PUBLIC_DIR, {
      index: false,
      fallthrough: true,
      setHeaders: (res) => secureHeaders(res),
    }),
  );
  return router;
}
