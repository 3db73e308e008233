import path from 'node:path';
import express from 'express';

/**
 * `/docs`: the API reference rendered from `/openapi.json` by Swagger UI, served from the
 * `swagger-ui-dist` package on disk (no CDN, nothing fetched at run time: the page works on a
 * machine without network). Unsigned, like `/openapi.json`: it only shows the document.
 */

/** The files of swagger-ui-dist the page loads; nothing else of the package is served. */
const ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png'];

/**
 * Scripts and styles only from this origin. Swagger UI sets `style` attributes on its
 * elements (the expanded sections, the syntax highlighter), so inline styles are allowed, and
 * it draws its icons from `data:` SVGs; no inline script, no eval, no other origin. "Try it
 * out" is switched off in the page (every request needs an HMAC signature the page cannot
 * make), so `connect-src` only needs the document itself.
 */
export const DOCS_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "font-src 'self'",
  "connect-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>SML API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

// In its own file rather than inline: the CSP allows no inline script.
const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  supportedSubmitMethods: [],
  validatorUrl: null,
  defaultModelsExpandDepth: 0,
});
`;

/** The directory of the installed swagger-ui-dist (its package.json resolves it). */
function swaggerUiDir(): string {
  return path.dirname(require.resolve('swagger-ui-dist/package.json'));
}

/** The `/docs` router: the page, its initializer and the Swagger UI assets, each with the CSP. */
export function docsRouter(): express.Router {
  const dir = swaggerUiDir();
  const router = express.Router();
  router.use((_req, res, next) => {
    res.setHeader('Content-Security-Policy', DOCS_CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });
  router.get('/', (_req, res) => void res.type('html').send(PAGE));
  router.get('/init.js', (_req, res) => void res.type('application/javascript').send(INIT));
  for (const asset of ASSETS) router.get(`/${asset}`, (_req, res) => res.sendFile(path.join(dir, asset), { maxAge: '1h' }));
  return router;
}
