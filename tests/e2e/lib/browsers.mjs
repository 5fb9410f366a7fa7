// Launches Debian's Chromium and Firefox ESR with the real unpacked extension (the repository
// root), and gives the tests one small interface over both: Playwright (playwright-core) for
// Chromium, W3C WebDriver (geckodriver) for Firefox.

import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { ELEMENT_KEY, SHADOW_KEY, WebDriverSession } from './webdriver.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const EXTENSION_DIR = path.resolve(here, '../../..');
export const SCREENSHOTS = path.resolve(EXTENSION_DIR, '.test-output/screenshots');

// Chromium's connections to Google's services are refused on a closed network; these flags stop
// it from trying (see README, "Tests").
const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  `--disable-extensions-except=${EXTENSION_DIR}`,
  `--load-extension=${EXTENSION_DIR}`,
];

/** The fixed moz-extension UUID the tests pin, so extension pages have a known URL. */
export const FIREFOX_EXTENSION_UUID = 'b0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a4b';
const FIREFOX_ADDON_ID = 'bai@bai.invalid';

const DEFAULT_TIMEOUT = 10000;

/** The extension page that shows BAI's questions; the background opens it in a popup window. */
const QUESTION_PAGE = 'extension/question/question.html';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A predicate waiter that runs inside the page: resolves when `predicate(...args)` is truthy,
// re-checking on every DOM mutation and animation frame (no fixed sleeps).
const WAIT_IN_PAGE = `
  const [src, args, timeout, done] = arguments;
  const predicate = new Function('return (' + src + ')')();
  const start = performance.now();
  let observer;
  const check = () => {
    let value;
    try { value = predicate(...args); } catch (e) { value = undefined; }
    if (value) { observer?.disconnect(); done({ ok: true, value }); return true; }
    if (performance.now() - start > timeout) { observer?.disconnect(); done({ ok: false }); return true; }
    return false;
  };
  if (!check()) {
    observer = new MutationObserver(check);
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    const tick = () => { if (!check()) setTimeout(tick, 50); };
    setTimeout(tick, 50);
  }
`;

/**
 * `fn(...args)` as an expression string. Playwright runs strings through the DevTools protocol,
 * which a page's or an extension page's CSP does not govern (unlike `new Function` in the page);
 * the leading `[` keeps Playwright from mistaking the string for a function to call.
 */
function asExpression(fn, args) {
  return `[(${fn.toString()})(...${JSON.stringify(args)})][0]`;
}

class ChromiumTab {
  constructor(browser, page) {
    this.browser = browser;
    this.page = page;
  }
  /** The user switches to this tab (before using it with mouse or keyboard). */
  async toFront() {
    if (this.browser.front !== this.page) {
      await this.page.bringToFront();
      this.browser.front = this.page;
    }
  }
  async goto(url) {
    await this.page.goto(url, { waitUntil: 'load' });
  }
  // Functions travel as source text and run through the DevTools protocol, which a page's (or
  // an extension page's) CSP does not govern; `new Function` inside the page would be.
  async evaluate(fn, ...args) {
    return this.page.evaluate(asExpression(fn, args));
  }
  // Polls the condition from here: Playwright's in-page polling re-evaluates the predicate
  // with the page's own eval, which an extension page's CSP forbids.
  async waitFor(fn, { timeout = DEFAULT_TIMEOUT, args = [], what } = {}) {
    const deadline = Date.now() + timeout;
    const expression = asExpression(fn, args);
    for (;;) {
      const value = await this.page.evaluate(expression).catch(() => undefined);
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`chromium: timed out after ${timeout} ms waiting for ${what ?? fn.toString()}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  async click(selector) {
    await this.toFront();
    await this.page.locator(selector).click();
  }
  /** A real click on an element inside an open shadow root. */
  async clickInShadow(hostSelector, innerSelector) {
    await this.toFront();
    await this.page.locator(hostSelector).locator(innerSelector).click();
  }
  async type(selector, text) {
    await this.toFront();
    await this.page.locator(selector).click();
    await this.page.keyboard.type(text);
  }
  async press(key) {
    await this.toFront();
    await this.page.keyboard.press(key);
  }
  /** A background tab is not painted: the user glances at it, then goes back to the tab they
   * were in. */
  async screenshot(name) {
    await fs.mkdir(SCREENSHOTS, { recursive: true });
    const file = path.join(SCREENSHOTS, `chromium-${name}.png`);
    const front = this.browser.front;
    await this.toFront();
    await this.page.screenshot({ path: file });
    if (front && front !== this.page && !front.isClosed()) {
      await front.bringToFront();
      this.browser.front = front;
    }
    return file;
  }
  async close() {
    await this.page.close();
  }
}

/**
 * TEST-ONLY: marks `patterns` as optional host permissions the user already allowed, in the
 * profile's Preferences (where Chromium records a grant after its permission dialog is
 * accepted). Chromium's dialog is browser UI that neither the DevTools protocol nor a
 * command-line switch can accept, and `permissions.request` waits on it forever in automation;
 * with the grant recorded, `permissions.request` resolves true at once, as for any site the user
 * allowed before, and `permissions.remove` takes it back as usual. The extension has no such
 * path: only the browser's dialog grants a site.
 */
async function recordChromiumGrants(profile, patterns) {
  const file = path.join(profile, 'Default', 'Preferences');
  const prefs = JSON.parse(await fs.readFile(file, 'utf8'));
  for (const settings of Object.values(prefs.extensions?.settings ?? {})) {
    if (settings.path !== EXTENSION_DIR) continue;
    for (const set of ['granted_permissions', 'active_permissions']) {
      for (const kind of ['explicit_host', 'scriptable_host']) {
        settings[set] ??= {};
        settings[set][kind] = [...new Set([...(settings[set][kind] ?? []), ...patterns])];
      }
    }
  }
  await fs.writeFile(file, JSON.stringify(prefs));
}

/**
 * Starts Chromium with a DevTools endpoint and connects Playwright to it without Playwright's
 * per-page defaults (`noDefaults`): no focus emulation, so a page is focused, visible and
 * painted only when it is the front tab of the focused window, as for a user. (Playwright's own
 * launch turns focus emulation on for every page, which makes a background tab behave as if
 * the user were in it and hides what BAI meets in real use.)
 */
async function startChromium(profile) {
  const child = spawn('/usr/bin/chromium', [...CHROMIUM_ARGS, '--remote-debugging-port=0', `--user-data-dir=${profile}`, '--window-size=1100,800', 'about:blank'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let output = '';
  const endpoint = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`chromium did not start: ${output.slice(-2000)}`)), 20000);
    // Keep draining stderr for the browser's whole life: a full pipe would block it.
    child.stderr.on('data', (chunk) => {
      if (output.length < 100000) output += chunk;
      const found = /DevTools listening on (ws:\/\/\S+)/.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`chromium exited (${code}): ${output.slice(-2000)}`)));
  });
  const browser = await chromium.connectOverCDP(endpoint, { noDefaults: true });
  const context = browser.contexts()[0];
  /** Closes the browser the way a user quits it (it writes its profile), and waits for it. */
  const quit = async () => {
    try {
      const session = await browser.newBrowserCDPSession();
      await session.send('Browser.close');
    } catch {
      child.kill();
    }
    await Promise.race([exited, sleep(10000).then(() => child.kill('SIGKILL'))]);
  };
  return { context, quit };
}

class ChromiumBrowser {
  name = 'chromium';
  /** `grantedHosts`: host permissions to record as already allowed (see recordChromiumGrants). */
  static async launch({ grantedHosts = [] } = {}) {
    const profile = await fs.mkdtemp(path.join(os.tmpdir(), 'bai-chromium-'));
    let started = await startChromium(profile);
    if (grantedHosts.length) {
      // The extension's entry in Preferences exists once it was loaded: load, close, record, reopen.
      if (!started.context.serviceWorkers().length) await started.context.waitForEvent('serviceworker', { timeout: DEFAULT_TIMEOUT });
      await started.quit();
      await recordChromiumGrants(profile, grantedHosts);
      started = await startChromium(profile);
    }
    const { context } = started;
    const browser = new ChromiumBrowser(context, profile, started.quit);
    const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: DEFAULT_TIMEOUT }));
    browser.worker = worker;
    browser.extensionId = new URL(worker.url()).host;
    return browser;
  }
  constructor(context, profile, quit) {
    this.context = context;
    this.profile = profile;
    this.quit = quit;
    /** The page in front (a new tab opens in front, as for a user). */
    this.front = null;
  }
  get extensionOrigin() {
    return `chrome-extension://${this.extensionId}`;
  }
  async newTab(url) {
    const page = await this.context.newPage();
    this.front = page;
    const tab = new ChromiumTab(this, page);
    if (url) await tab.goto(url);
    return tab;
  }
  /** Opens one of the extension's own pages (e.g. the panel) in a new tab. */
  async openExtensionPage(pathAndQuery) {
    return this.newTab(`${this.extensionOrigin}/${pathAndQuery}`);
  }
  /** Opens `url` in a new window of its own (its tab is the visible tab of that window), as a
   * user who drags a tab out; the window the tests use keeps its tabs. */
  async newWindow(url) {
    const opened = this.context.waitForEvent('page', { timeout: DEFAULT_TIMEOUT });
    await this.inBackground((address) => chrome.windows.create({ url: address, focused: false, width: 1000, height: 760 }).then(() => true), url);
    const page = await opened;
    await page.waitForLoadState('load');
    return new ChromiumTab(this, page);
  }
  /** The question window the background opened (a popup window of the extension's own page). */
  async questionWindow({ timeout = DEFAULT_TIMEOUT } = {}) {
    const url = `${this.extensionOrigin}/${QUESTION_PAGE}`;
    const deadline = Date.now() + timeout;
    for (;;) {
      // The newest such window: an older one may be closing.
      const page = this.context.pages().filter((p) => p.url().startsWith(url) && !p.isClosed()).pop();
      if (page) return new ChromiumTab(this, page);
      if (Date.now() > deadline) throw new Error('chromium: the question window did not open');
      await sleep(50);
    }
  }
  /** Runs a function in the extension's background worker. */
  async inBackground(fn, ...args) {
    return this.worker.evaluate(asExpression(fn, args));
  }
  async close() {
    await this.quit();
    await fs.rm(this.profile, { recursive: true, force: true });
  }
}

class FirefoxTab {
  constructor(browser, handle) {
    this.browser = browser;
    this.handle = handle;
  }
  async focus() {
    if (this.browser.current !== this.handle) {
      await this.browser.session.command('POST', '/window', { handle: this.handle });
      this.browser.current = this.handle;
    }
  }
  async goto(url) {
    await this.focus();
    await this.browser.session.command('POST', '/url', { url });
  }
  async evaluate(fn, ...args) {
    await this.focus();
    return this.browser.session.command('POST', '/execute/sync', {
      script: `return (${fn.toString()}).apply(null, arguments)`,
      args,
    });
  }
  async waitFor(fn, { timeout = DEFAULT_TIMEOUT, args = [], what } = {}) {
    await this.focus();
    await this.browser.session.command('POST', '/timeouts', { script: timeout + 5000 });
    const deadline = Date.now() + timeout;
    for (;;) {
      try {
        const result = await this.browser.session.command('POST', '/execute/async', {
          script: WAIT_IN_PAGE,
          args: [fn.toString(), args, Math.max(0, deadline - Date.now())],
        });
        if (result?.ok) return result.value;
        // The in-page waiter gave up before the deadline: it ran in a document that went away
        // under it (an extension page replacing the tab's first blank one answers so in
        // Firefox, seen in a full run). Wait again on what the tab shows now.
        if (Date.now() < deadline - 100) continue;
        break;
      } catch (error) {
        // The page navigated (or is still replacing about:blank) while waiting: wait on the
        // new document, within the same deadline.
        if (!/Document was unloaded|no such frame|discarded/i.test(String(error?.message)) || Date.now() > deadline) throw error;
      }
    }
    throw new Error(`firefox: timed out after ${timeout} ms waiting for ${what ?? fn.toString()}`);
  }
  async element(selector) {
    await this.focus();
    const found = await this.browser.session.command('POST', '/element', { using: 'css selector', value: selector });
    return found[ELEMENT_KEY];
  }
  async click(selector) {
    const id = await this.element(selector);
    await this.browser.session.command('POST', `/element/${id}/click`, {});
  }
  async clickInShadow(hostSelector, innerSelector) {
    const host = await this.element(hostSelector);
    const shadow = await this.browser.session.command('GET', `/element/${host}/shadow`);
    const shadowId = shadow[SHADOW_KEY];
    const found = await this.browser.session.command('POST', `/shadow/${shadowId}/element`, { using: 'css selector', value: innerSelector });
    await this.browser.session.command('POST', `/element/${found[ELEMENT_KEY]}/click`, {});
  }
  async type(selector, text) {
    const id = await this.element(selector);
    await this.browser.session.command('POST', `/element/${id}/click`, {});
    await this.browser.session.command('POST', `/element/${id}/value`, { text });
  }
  async press(key) {
    const KEYS = { Enter: '\uE007', Tab: '\uE004', Escape: '\uE00C' };
    await this.focus();
    const value = KEYS[key] ?? key;
    await this.browser.session.command('POST', '/actions', {
      actions: [{ type: 'key', id: 'keyboard', actions: [{ type: 'keyDown', value }, { type: 'keyUp', value }] }],
    });
  }
  async screenshot(name) {
    await this.focus();
    const base64 = await this.browser.session.command('GET', '/screenshot');
    await fs.mkdir(SCREENSHOTS, { recursive: true });
    const file = path.join(SCREENSHOTS, `firefox-${name}.png`);
    await fs.writeFile(file, Buffer.from(base64, 'base64'));
    return file;
  }
  async close() {
    await this.focus();
    const remaining = await this.browser.session.command('DELETE', '/window');
    // WebDriver has no current window after closing one: switch to a remaining tab.
    this.browser.current = null;
    if (remaining?.length) {
      await this.browser.session.command('POST', '/window', { handle: remaining[0] });
      this.browser.current = remaining[0];
    }
  }
}

class FirefoxBrowser {
  name = 'firefox';
  // Firefox grants optional host permissions through its real permissions.request path (the
  // prompt is turned off by the pref below), so `grantedHosts` needs nothing here.
  static async launch() {
    const driverPath = path.join(os.homedir(), '.cargo/bin/geckodriver');
    const session = await WebDriverSession.start({
      driverPath,
      // Lets the tests open the extension's own pages (the panel) through the browser's chrome
      // context: WebDriver refuses to navigate a tab to a moz-extension:// URL.
      driverArgs: ['--allow-system-access'],
      capabilities: {
        alwaysMatch: {
          browserName: 'firefox',
          'moz:firefoxOptions': {
            binary: '/usr/bin/firefox-esr',
            args: ['-headless', '-width=1100', '-height=800'],
            prefs: {
              // Pin the extension's internal UUID so its pages have a known URL.
              'extensions.webextensions.uuids': JSON.stringify({ [FIREFOX_ADDON_ID]: FIREFOX_EXTENSION_UUID }),
              // Optional host permissions requested by the extension are granted without the
              // doorhanger (a test cannot click browser chrome).
              'extensions.webextOptionalPermissionPrompts': false,
              'app.update.enabled': false,
              'browser.shell.checkDefaultBrowser': false,
              'datareporting.policy.dataSubmissionEnabled': false,
              'network.captive-portal-service.enabled': false,
              'extensions.getAddons.cache.enabled': false,
            },
          },
        },
      },
    });
    await session.command('POST', '/moz/addon/install', { path: EXTENSION_DIR, temporary: true });
    const browser = new FirefoxBrowser(session);
    browser.current = await session.command('GET', '/window');
    browser.firstHandle = browser.current;
    browser.testHandles.add(browser.current);
    return browser;
  }
  constructor(session) {
    this.session = session;
    /** Windows the tests opened themselves: never the question window. */
    this.testHandles = new Set();
  }
  /**
   * The question window the background opened (a popup window of the extension's own page):
   * the one window handle the tests did not open that shows the question page.
   */
  async questionWindow({ timeout = DEFAULT_TIMEOUT } = {}) {
    const url = `${this.extensionOrigin}/${QUESTION_PAGE}`;
    const deadline = Date.now() + timeout;
    for (;;) {
      const handles = await this.session.command('GET', '/window/handles');
      for (const handle of handles) {
        if (this.testHandles.has(handle)) continue;
        try {
          await this.session.command('POST', '/window', { handle });
          this.current = handle;
          if (String(await this.session.command('GET', '/url')).startsWith(url)) return new FirefoxTab(this, handle);
        } catch {
          // The window closed meanwhile.
        }
      }
      if (Date.now() > deadline) throw new Error('firefox: the question window did not open');
      await sleep(50);
    }
  }
  get extensionOrigin() {
    return `moz-extension://${FIREFOX_EXTENSION_UUID}`;
  }
  async newTab(url) {
    let handle;
    if (this.firstHandle) {
      // Reuse the window the session started with for the first tab.
      handle = this.firstHandle;
      this.firstHandle = null;
    } else {
      ({ handle } = await this.session.command('POST', '/window/new', { type: 'tab' }));
    }
    this.testHandles.add(handle);
    const tab = new FirefoxTab(this, handle);
    if (url) await tab.goto(url);
    return tab;
  }
  /**
   * Opens one of the extension's own pages in a new tab. WebDriver refuses to navigate to
   * moz-extension:// URLs, so the tab is opened from the browser's chrome context.
   */
  async openExtensionPage(pathAndQuery) {
    // Under load Firefox sometimes leaves a tab opened this way blank (seen about 1 in 30):
    // give each attempt a bounded time, then close it and open a fresh one.
    for (let attempt = 1; ; attempt++) {
      const before = new Set(await this.session.command('GET', '/window/handles'));
      // The session may still be on a question window, which closes once its question ends
      // (sooner or later after Stop or an answer, depending on the machine's load): the script
      // below runs from a window of the tests' own, which stays.
      const own = [...before].find((handle) => this.testHandles.has(handle));
      if (own && !this.testHandles.has(this.current)) {
        await this.session.command('POST', '/window', { handle: own });
        this.current = own;
      }
      await this.session.command('POST', '/moz/context', { context: 'chrome' });
      try {
        await this.session.command('POST', '/execute/sync', {
          // A normal browser window, never BAI's question window (a popup, whose chrome is
          // hidden): that one closes once its question is answered, with any tab added to it.
          script: `const windows = [...Services.wm.getEnumerator('navigator:browser')];
            const win = windows.find((w) => !w.document.documentElement.getAttribute('chromehidden')) ?? windows[0];
            win.gBrowser.selectedTab = win.gBrowser.addTab(arguments[0], {
              triggeringPrincipal: Services.scriptSecurityManager.getSystemPrincipal() });`,
          args: [`${this.extensionOrigin}/${pathAndQuery}`],
        });
      } finally {
        await this.session.command('POST', '/moz/context', { context: 'content' });
      }
      const handles = await this.session.command('GET', '/window/handles');
      const opened = handles.find((h) => !before.has(h));
      this.testHandles.add(opened);
      const tab = new FirefoxTab(this, opened);
      try {
        await tab.waitFor(() => document.readyState === 'complete' && location.protocol === 'moz-extension:', { timeout: 8000, what: 'the extension page to load' });
        return tab;
      } catch (error) {
        if (attempt >= 3) throw error;
        await tab.close().catch(() => {});
      }
    }
  }
  async close() {
    await this.session.quit();
  }
}

export const BROWSERS = { chromium: ChromiumBrowser, firefox: FirefoxBrowser };

/** The browsers to run: all of them, or the ones named in BAI_BROWSERS (comma-separated). */
export function browserNames() {
  const wanted = process.env.BAI_BROWSERS?.split(',').map((s) => s.trim()).filter(Boolean);
  return wanted?.length ? wanted : Object.keys(BROWSERS);
}
