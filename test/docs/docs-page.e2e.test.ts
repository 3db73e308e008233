import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { sharedSystem, type SharedSystem } from '@sml/testkit';

/** Debian's chromium (scripts/prereqs.sh --test installs it). */
const CHROMIUM = '/usr/bin/chromium';

// `/docs` (services/gateway/src/docs-page.ts): the API reference page works offline. It is
// unsigned like /openapi.json, sends a Content-Security-Policy that lets only this origin's
// scripts run, and everything it loads is served by the gateway itself.
describe('/docs, the API reference page', () => {
  let sys: SharedSystem;
  beforeAll(async () => {
    sys = await sharedSystem();
  });

  /** The URLs an HTML page or a script names: `src`/`href` attributes and a `url:` setting. */
  const referenced = (text: string): string[] => [
    ...[...text.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]),
    ...[...text.matchAll(/\burl: '([^']+)'/g)].map((m) => m[1]),
  ];

  it('answers unsigned with a strict CSP, and every asset it references is local and answers 200', async () => {
    const page = await fetch(`${sys.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = new Map((page.headers.get('content-security-policy') ?? '').split(';').map((d) => {
      const [name, ...sources] = d.trim().split(/\s+/);
      return [name, sources.join(' ')];
    }));
    expect(csp.get('default-src')).toBe("'none'");
    // Scripts from this origin only: no inline script, no eval; no directive names another origin.
    expect(csp.get('script-src')).toBe("'self'");
    expect([...csp.values()].filter((sources) => /https?:|\*|unsafe-eval/.test(sources))).toEqual([]);

    const seen = new Map<string, number>();
    const queue = referenced(await page.text());
    while (queue.length > 0) {
      const url = queue.shift()!;
      if (seen.has(url)) continue;
      // A local URL: a path of this origin, not `//host/…` nor `http(s)://…`.
      expect({ url, local: /^\/(?!\/)/.test(url) }).toEqual({ url, local: true });
      const r = await fetch(`${sys.url}${url}`);
      seen.set(url, r.status);
      if (url.endsWith('.js') && url.startsWith('/docs/init')) queue.push(...referenced(await r.text()));
      else await r.arrayBuffer();
    }
    expect([...seen.keys()]).toEqual(expect.arrayContaining(['/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css', '/docs/init.js', '/openapi.json']));
    expect([...seen].filter(([, status]) => status !== 200)).toEqual([]);
  });

  it('serves only the assets the page uses, not the whole package', async () => {
    expect((await fetch(`${sys.url}/docs/package.json`)).status).toBe(404);
    expect((await fetch(`${sys.url}/docs/swagger-ui-bundle.js.map`)).status).toBe(404);
  });

  // The page as a browser shows it: scripts run under the CSP and render every operation of
  // the document. Every request to another host goes to a proxy that is not there (the
  // loopback is never proxied), so the page renders as it would on a machine offline.
  it('renders every operation in a browser that cannot reach any other host', async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`no ${CHROMIUM}: scripts/prereqs.sh --test installs Debian's chromium`);
    const doc = (await (await fetch(`${sys.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string; tags: string[] }>> };
    const operations = Object.values(doc.paths).flatMap((p) => Object.values(p));
    const { stdout } = await promisify(execFile)(CHROMIUM, [
      '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--proxy-server=http://127.0.0.1:9',
      '--virtual-time-budget=15000', '--dump-dom', `${sys.url}/docs`,
    ], { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
    const rendered = new Set([...stdout.matchAll(/id="operations-([^"]+)"/g)].map((m) => m[1]));
    expect(operations.length).toBeGreaterThan(50);
    expect(operations.map((op) => `${op.tags[0]}-${op.operationId}`).filter((id) => !rendered.has(id))).toEqual([]);
  }, 90_000);
});
