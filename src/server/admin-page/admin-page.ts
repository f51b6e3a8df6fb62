/**
 * The admin page: one HTML file, one script module and one stylesheet, served as they are (no build
 * step) under a Content-Security-Policy that allows only our own script, style and API calls. The
 * page holds no data of its own; it asks for the admin token and talks to /admin/api.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Response, Router } from 'express';

const PUBLIC_DIR = fileURLToPath(new URL('./public/', import.meta.url));
/**
 * Chart.js's own build from node_modules (its package exports hide dist/, so resolve the package and look beside it).
 */
const CHART_DIR = dirname(createRequire(import.meta.url).resolve('chart.js'));
/** The only files served from CHART_DIR: the browser build the Stats view loads, and its source map. */
const VENDOR_FILES = new Set(['chart.umd.min.js', 'chart.umd.min.js.map']);
/** jsdiff's ES modules (the package's `import` build), which the mapping diff imports as they are. */
const DIFF_DIR = dirname(createRequire(import.meta.url).resolve('diff/package.json'));
const DIFF_MODULES = join(DIFF_DIR, 'libesm');

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
  // Served by the service itself: the page's policy allows scripts from here only, and a closed network has no CDN.
  router.get('/assets/vendor/:file', (req, res, next) => {
    const file = String(req.params.file);
    if (!VENDOR_FILES.has(file)) return next();
    secureHeaders(res);
    res.sendFile(file, { root: CHART_DIR });
  });
  // Only its modules: no type declarations, maps or package files.
  router.use(
    '/assets/vendor/diff',
    (req, _res, next) => (/^\/[\w/-]+\.js$/.test(req.path) ? next() : next('router')),
    express.static(DIFF_MODULES, { index: false, fallthrough: false, setHeaders: (res) => secureHeaders(res) }),
  );
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
