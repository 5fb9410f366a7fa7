// A static file server on 127.0.0.1 for the end-to-end tests. Serves tests/fixtures/pages/ and
// the fixture bundles in tests/fixtures/build/. Pages under /csp/ get a strict
// Content-Security-Policy header, like many real sites send. A page may report its state with
// `POST /state/<key>` (JSON); the test reads it with `server.state(key)` without touching the tab.
// The other way, the test's `server.setState(key, value)` is what `GET /state/<key>` answers.

import http from 'node:http';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const FIXTURES = path.resolve(here, '../../fixtures');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
};

/** The strict policy used by the CSP pages: no eval, no wasm-unsafe-eval, no inline script. */
export const STRICT_CSP = "script-src 'self'; object-src 'none'";

function resolveRequest(urlPath) {
  const clean = path.posix.normalize(decodeURIComponent(urlPath.split('?')[0]));
  if (clean.startsWith('/build/')) return path.join(FIXTURES, clean);
  // Like ChatGPT's /c/<conversation id>: every such path is the chat page, and the extension
  // keeps one state per path.
  if (clean.startsWith('/chat/c/')) return path.join(FIXTURES, 'pages', 'chat', 'index.html');
  // The same chat page behind the strict CSP (every /csp/ path gets the header): only its
  // same-origin script, /build/chat-page.js, may run; inline <style> is allowed.
  if (clean === '/csp/chat/' || clean.startsWith('/csp/chat/')) return path.join(FIXTURES, 'pages', 'chat', 'index.html');
  return path.join(FIXTURES, 'pages', clean.endsWith('/') ? `${clean}index.html` : clean);
}

/**
 * Starts the server on a free port; resolves to { origin, close }. `host`: the loopback address
 * to listen on; 127.0.0.2 (any 127/8 address answers on Linux) is a site the extension's
 * manifest does not grant, for the tests of sites the user adds. `route(request, response)`:
 * answers a request itself when it returns true.
 */
export async function startServer({ host = '127.0.0.1', route } = {}) {
  const states = new Map();
  const server = http.createServer(async (request, response) => {
    // A test's own dynamic answers (redirects, recorded requests) come first.
    if (route && (await route(request, response))) return;
    if (request.method === 'POST' && request.url.startsWith('/state/')) {
      let body = '';
      for await (const chunk of request) body += chunk;
      try {
        states.set(decodeURIComponent(request.url.slice('/state/'.length)), JSON.parse(body));
        response.writeHead(204).end();
      } catch {
        response.writeHead(400).end();
      }
      return;
    }
    // What the test set with `setState` (a page waits for a signal from the test by polling).
    if (request.method === 'GET' && request.url.startsWith('/state/')) {
      const key = decodeURIComponent(request.url.slice('/state/'.length).split('?')[0]);
      if (!states.has(key)) {
        response.writeHead(404, { 'cache-control': 'no-store' }).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(states.get(key)));
      return;
    }
    const file = resolveRequest(request.url);
    if (!file.startsWith(FIXTURES)) {
      response.writeHead(403).end();
      return;
    }
    try {
      const body = await fs.readFile(file);
      const headers = { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' };
      if (request.url.startsWith('/csp/')) headers['content-security-policy'] = STRICT_CSP;
      // `?isolated`: a cross-origin-isolated document, whose clock (`performance.now()`) reads
      // in 5 µs steps instead of 100 µs (Chromium), so the benchmarks can time sub-millisecond
      // work. Same-origin subresources need nothing more.
      if (/[?&]isolated(=|&|$)/.test(request.url)) {
        headers['cross-origin-opener-policy'] = 'same-origin';
        headers['cross-origin-embedder-policy'] = 'require-corp';
      }
      response.writeHead(200, headers).end(body);
    } catch {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, host, resolve));
  const { port } = server.address();
  return {
    origin: `http://${host}:${port}`,
    /** The last state the page reported under `key`, or undefined. */
    state: (key) => states.get(key),
    /** Sets the state under `key`, which pages read with `GET /state/<key>`. */
    setState: (key, value) => states.set(key, value),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
