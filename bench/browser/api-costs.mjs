// The cost of each browser API call an action's delivery makes in the background (issue 17,
// action → effect), timed from an extension page (same APIs, same process as the worker in
// Firefox; the extension's process in Chromium). Prints medians in ms per call.
// A diagnostic, not part of scripts/bench; Chromium only (Firefox refuses tabs.query by URL
// without the tabs permission).
//
//   node bench/browser/api-costs.mjs
import { BROWSERS, browserNames } from '../../tests/e2e/lib/browsers.mjs';
import { startServer } from '../../tests/e2e/lib/server.mjs';

const server = await startServer();
try {
  for (const name of browserNames().filter((n) => n === 'chromium')) {
    const browser = await BROWSERS[name].launch();
    try {
      const target = await browser.newTab(`${server.origin}/target/login.html`);
      await target.evaluate(() => new Promise((resolve) => setTimeout(resolve, 500)));
      const panel = await browser.openExtensionPage('extension/panel/panel.html');
      const url = `${server.origin}/target/login.html`;
      const costs = await panel.evaluate(async (url) => {
        const api = globalThis.browser ?? globalThis.chrome;
        const [tab] = await api.tabs.query({ url });
        const tabId = tab.id;
        const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
        const time = async (fn, n = 20) => {
          const out = [];
          for (let i = 0; i < n; i++) {
            const t = performance.now();
            await fn(i);
            out.push(performance.now() - t);
          }
          return +median(out).toFixed(2);
        };
        const rule = (id) => ({ id, priority: 1, action: { type: 'block' }, condition: { tabIds: [tabId], resourceTypes: ['main_frame'] } });
        return {
          'storage.session.get': await time(() => api.storage.session.get('x')),
          'storage.session.set': await time((i) => api.storage.session.set({ x: i })),
          'storage.local.get': await time(() => api.storage.local.get('bai:settings')),
          'storage.local.set': await time((i) => api.storage.local.set({ y: i })),
          'permissions.contains': await time(() => api.permissions.contains({ origins: [`${new URL(url).origin}/*`] })),
          'permissions.getAll': await time(() => api.permissions.getAll()),
          'tabs.get': await time(() => api.tabs.get(tabId)),
          'dnr add 6 + remove 6': await time(async (i) => {
            const ids = [1, 2, 3, 4, 5, 6].map((k) => 1000 + i * 10 + k);
            await api.declarativeNetRequest.updateSessionRules({ addRules: ids.map(rule) });
            await api.declarativeNetRequest.updateSessionRules({ removeRuleIds: ids });
          }),
          'dnr add 6': await time(async (i) => {
            const ids = [1, 2, 3, 4, 5, 6].map((k) => 5000 + i * 10 + k);
            await api.declarativeNetRequest.updateSessionRules({ addRules: ids.map(rule) });
          }),
          'scripting.executeScript (func)': await time(() => api.scripting.executeScript({ target: { tabId, frameIds: [0] }, func: () => 1 })),
          'tabs.sendMessage (ping)': await time(() => api.tabs.sendMessage(tabId, { type: 'ping' }, { frameId: 0 }).catch(() => null)),
          'runtime.sendMessage to worker': await time(() => api.runtime.sendMessage({ type: 'bai:nothing' }).catch(() => null)),
        };
      }, url);
      console.log(name, JSON.stringify(costs, null, 1));
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.close();
}
