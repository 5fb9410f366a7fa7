// A minimal W3C WebDriver client (fetch over HTTP to geckodriver). Just what the tests use;
// written here so that nothing tries to download a driver or a browser.

import { spawn } from 'node:child_process';
import net from 'node:net';

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export class WebDriverError extends Error {}

export class WebDriverSession {
  static async start({ driverPath, capabilities, driverArgs = [] }) {
    const port = await freePort();
    const child = spawn(driverPath, ['--port', String(port), '--host', '127.0.0.1', ...driverArgs], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log = [];
    child.stdout.on('data', (d) => log.push(String(d)));
    child.stderr.on('data', (d) => log.push(String(d)));
    const base = `http://127.0.0.1:${port}`;
    // Wait for the driver to listen: poll its /status endpoint (it answers within ~100 ms).
    const deadline = Date.now() + 15000;
    for (;;) {
      try {
        const status = await fetch(`${base}/status`);
        if (status.ok) break;
      } catch {}
      if (Date.now() > deadline) throw new WebDriverError(`driver did not start: ${log.join('')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const session = new WebDriverSession(base, child, log);
    const created = await session.command('POST', '/session', { capabilities });
    session.id = created.sessionId;
    return session;
  }

  constructor(base, child, log) {
    this.base = base;
    this.child = child;
    this.log = log;
  }

  async command(method, path, body) {
    const url = path.startsWith('/session/') || path === '/session' ? `${this.base}${path}` : `${this.base}/session/${this.id}${path}`;
    const response = await fetch(url, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await response.json();
    if (!response.ok || json.value?.error) {
      throw new WebDriverError(`${method} ${path}: ${json.value?.error}: ${json.value?.message}`);
    }
    return json.value;
  }

  async quit() {
    try {
      await this.command('DELETE', `/session/${this.id}`);
    } catch {}
    this.child.kill();
  }
}

/** The W3C key for a web element reference in responses and arguments. */
export const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';

/** The W3C key for a shadow root reference. */
export const SHADOW_KEY = 'shadow-6066-11e4-a52e-4f735466cecf';
