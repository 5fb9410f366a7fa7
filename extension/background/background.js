// The background worker (Chrome: service worker; Firefox: event page). It routes messages
// between the chat tab, the target tab and the panel, and keeps per-tab status. It loads the
// core's background module (the same crate as the content scripts' modules, built with the
// role-background feature), for the decisions that belong here.

import init, * as core from '../pkg/background.js';
import { ext, isFirefox } from '../shared/browser.js';
import { Msg } from '../shared/messages.js';
import { withPicture } from './vision.js';
import { CONVERSATION_PART_PREFIX, CONVERSATION_PREFIX, CONVERSATION_SAVED_AT_PREFIX, SETTINGS_KEY, SITES_KEY, applySettingsChange, isUserChatSite, settingsChangeError, loadSettings, loadSites, questionTimeoutMs } from '../shared/settings.js';
import { alwaysAllowRule, questionFingerprint } from '../shared/questions.js';
import { actionDeadlineMs } from '../shared/deadline.js';
import { ownedTabs } from './tabs.js';

// Service workers may not use top-level await: start the core now, await it where needed.
const coreReady = init({ module_or_path: ext.runtime.getURL('extension/pkg/background_bg.wasm') })
  .then(() => ({ version: core.version(), error: null }))
  .catch((error) => ({ version: null, error: String(error?.message ?? error) }));

// The toolbar button opens the panel (Chrome side panel / Firefox sidebar).
if (ext.sidePanel?.setPanelBehavior) {
  ext.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});
} else if (isFirefox && ext.sidebarAction?.toggle) {
  ext.action.onClicked.addListener(() => ext.sidebarAction.toggle());
}

/** Per-tab status, in session storage so it survives the worker being stopped and restarted. */
const tabKey = (tabId) => `tab:${tabId}`;

async function recordContentReady(tabId, message) {
  const status = {
    url: message.url,
    contentCore: message.coreVersion,
    startError: message.startError ?? null,
    startMs: message.startMs,
    startParts: message.startParts ?? null,
    coreFlavor: message.coreFlavor ?? null,
    coreRole: message.coreRole ?? null,
    chat: message.chat ?? null,
    at: Date.now(),
  };
  await ext.storage.session.set({ [tabKey(tabId)]: status });
  ext.runtime.sendMessage({ type: Msg.STATUS_CHANGED, tabId }).catch(() => {});
  return status;
}

/** The event log of a tab's chat session (most recent last, capped). */
const logKey = (tabId) => `log:${tabId}`;
const LOG_CAP = 500;
// Appends are serialized per tab: storage has no atomic append, and events arrive in bursts.
const logChains = new Map();

/**
 * The event as the log (and the audit export) keeps it: the core parses it and masks typed text
 * and secrets by structure (crate/src/bindings: redact_log_event). Without a core, only the kind
 * and time are kept.
 */
async function redactedEvent(event) {
  const background = await coreReady;
  if (background.error) return { kind: event?.kind ?? 'event', at: event?.at ?? Date.now(), redacted: true };
  return JSON.parse(core.redact_log_event(JSON.stringify(event)));
}

function appendLog(tabId, event) {
  const previous = logChains.get(tabId) ?? Promise.resolve();
  const next = previous.then(async () => {
    event = await redactedEvent(event);
    const stored = await ext.storage.session.get(logKey(tabId));
    const log = stored[logKey(tabId)] ?? [];
    log.push(event);
    if (log.length > LOG_CAP) log.splice(0, log.length - LOG_CAP);
    await ext.storage.session.set({ [logKey(tabId)]: log });
  });
  logChains.set(tabId, next.catch(() => {}));
  return next;
}

// ---- Target tabs -------------------------------------------------------------------------
// A workflow acts on one tab: the one bound when the user copied the protocol prompt (else the
// chat tab itself). Actions are delivered to that tab's content script, only while the tab still
// shows the bound origin; otherwise the action fails with a reason and nothing runs.

const bindKey = (workflowId) => `bind:${workflowId}`;
const originOf = (url) => {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

/** A failure the chat tab shows in its log (and, later, reports to the model). */
const failure = (code, message) => ({ error: { code, message } });

const notAllowed = (where) => failure('target_not_allowed', `BAI has no access to ${where} yet. With that page showing, click “Copy protocol prompt” in the BAI panel and allow access when the browser asks (or add it under Settings › Sites).`);

async function bindTarget({ workflowId, tabId }) {
  const tab = await ext.tabs.get(tabId);
  if (!tab.url) return notAllowed('this page');
  const origin = originOf(tab.url);
  if (!origin || !/^https?:/.test(origin)) return failure('target_not_web_page', 'BAI can act only on web pages (http or https).');
  if (!(await hasAccess(origin))) return notAllowed(new URL(origin).host);
  const binding = { tabId, origin, url: tab.url, title: tab.title ?? origin, at: Date.now() };
  await ext.storage.session.set({ [bindKey(workflowId)]: binding });
  return { binding };
}

async function targetFor(workflowId) {
  return (await ext.storage.session.get(bindKey(workflowId)))[bindKey(workflowId)] ?? null;
}

// ---- Sites the user allowed ------------------------------------------------------------------
// The manifest grants only the chat hosts and the local hosts. Any other site is allowed by the
// user through the browser's permission prompt (asked by the panel, inside the click), and then
// gets the content script through a registration of its own (scripting.registerContentScripts),
// so access stays one host at a time and goes away with the site.

const REGISTRATION_PREFIX = 'bai-site:';
const registrationId = (pattern) => `${REGISTRATION_PREFIX}${pattern}`;
const CONTENT_SCRIPT = { js: ['extension/content/loader.js'], runAt: 'document_idle', allFrames: false, persistAcrossSessions: true };

/** The site of an address (crate/src/sites.rs), or null when it is not one web site. */
async function siteOf(address) {
  await coreReady;
  try {
    return JSON.parse(core.site_for_address(address));
  } catch {
    return null;
  }
}

/** Whether BAI may touch pages of `origin` now: a built-in host, or a grant the user still holds. */
async function hasAccess(origin) {
  const site = await siteOf(origin);
  if (!site) return false;
  if (site.built_in) return true;
  // The permission for pictures (`<all_urls>`, see vision.js) covers every host: only a site
  // the user added (and still grants) counts.
  const listed = (await loadSites()).some((entry) => entry.pattern === site.pattern);
  return listed && ext.permissions.contains({ origins: [site.pattern] });
}

// Changes to the list and to the registrations run one at a time: a grant arriving while the
// start-up check runs would otherwise register the same script twice (an error).
let sitesChain = Promise.resolve();
function serialized(task) {
  const next = sitesChain.then(task);
  sitesChain = next.catch(() => {});
  return next;
}

/**
 * Makes the content-script registrations match the list of sites. Registrations persist across
 * sessions, but a browser update or a temporary reinstall can lose them; a site whose permission
 * the user took back in the browser's own settings is dropped from the list.
 */
async function syncRegistrations() {
  const sites = await loadSites();
  const held = [];
  for (const site of sites) {
    if (await ext.permissions.contains({ origins: [site.pattern] })) held.push(site);
  }
  if (held.length !== sites.length) await ext.storage.local.set({ [SITES_KEY]: held });
  const registered = await ext.scripting.getRegisteredContentScripts();
  const wanted = new Set(held.map((site) => registrationId(site.pattern)));
  const stale = registered.filter((r) => r.id.startsWith(REGISTRATION_PREFIX) && !wanted.has(r.id)).map((r) => r.id);
  if (stale.length) await ext.scripting.unregisterContentScripts({ ids: stale });
  const present = new Set(registered.map((r) => r.id));
  const missing = held.filter((site) => !present.has(registrationId(site.pattern)));
  if (missing.length) {
    await ext.scripting.registerContentScripts(missing.map((site) => ({ id: registrationId(site.pattern), matches: [site.pattern], ...CONTENT_SCRIPT })));
  }
}

/**
 * The panel got the user's grant for the site of `address` (a tab's URL or what the user typed):
 * remember it, register the content script there, and start it in the site's open tabs (a
 * registration only reaches pages loaded after it). `kind` 'chat' lets the site's pages run
 * the chat role; 'target' only the executor.
 */
function grantSite({ address, kind }) {
  return serialized(async () => {
    const site = await siteOf(address);
    if (!site) return failure('invalid_site', 'This is not a web address BAI can use.');
    if (site.built_in) return { site };
    if (!(await ext.permissions.contains({ origins: [site.pattern] }))) {
      return failure('site_permission_refused', `BAI was not allowed to access ${site.host}, so it will not act there.`);
    }
    const sites = await loadSites();
    const existing = sites.find((entry) => entry.pattern === site.pattern);
    if (!existing) {
      sites.push({ pattern: site.pattern, origin: site.origin, host: site.host, kind: kind === 'chat' ? 'chat' : 'target', addedAt: Date.now() });
    } else if (kind === 'chat' && existing.kind !== 'chat') {
      // A target site becomes a chat site; never the other way round by binding a tab.
      existing.kind = 'chat';
      existing.origin = site.origin;
    }
    await ext.storage.local.set({ [SITES_KEY]: sites });
    await syncRegistrations();
    const tabs = await ext.tabs.query({ url: site.pattern });
    // loader.js starts once per page (it checks a flag), so a page the registration already
    // reached is not started twice.
    await Promise.all(tabs.map((tab) => ext.scripting.executeScript({ target: { tabId: tab.id }, files: CONTENT_SCRIPT.js }).catch(() => {})));
    return { site, kind: existing?.kind ?? kind };
  });
}

/** The user removed a site: forget it, unregister its content script, give its permission back. */
function removeSite({ pattern }) {
  return serialized(async () => {
    const sites = await loadSites();
    await ext.storage.local.set({ [SITES_KEY]: sites.filter((site) => site.pattern !== pattern) });
    await ext.scripting.unregisterContentScripts({ ids: [registrationId(pattern)] }).catch(() => {});
    // From here on runOnTarget refuses this site (target_access_removed), even in tabs where the
    // content script still runs until they reload.
    const removed = await ext.permissions.remove({ origins: [pattern] }).catch(() => false);
    return { removed };
  });
}

ext.runtime.onStartup?.addListener(() => serialized(syncRegistrations).catch(() => {}));
ext.runtime.onInstalled?.addListener(() => serialized(syncRegistrations).catch(() => {}));
// The user can also take a grant back in the browser's own settings.
ext.permissions.onRemoved?.addListener(() => serialized(syncRegistrations).catch(() => {}));

/** Resolves when the tab has finished loading (after a navigation an action caused). */
function whenLoaded(tabId, timeoutMs) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      ext.tabs.onUpdated.removeListener(listener);
      reject(new Error('timeout'));
    }, timeoutMs);
    function listener(id, change, tab) {
      if (id === tabId && change.status === 'complete') {
        clearTimeout(timer);
        ext.tabs.onUpdated.removeListener(listener);
        resolve(tab);
      }
    }
    ext.tabs.onUpdated.addListener(listener);
    ext.tabs.get(tabId).then((tab) => {
      if (tab.status === 'complete') listener(tabId, { status: 'complete' }, tab);
    }, (error) => {
      clearTimeout(timer);
      ext.tabs.onUpdated.removeListener(listener);
      reject(error);
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves when the tab starts loading a new document (or after `timeoutMs` if it does not). */
function whenNavigating(tabId, timeoutMs) {
  return new Promise((resolve) => {
    const timer = setTimeout(done, timeoutMs);
    function done() {
      clearTimeout(timer);
      ext.tabs.onUpdated.removeListener(listener);
      resolve();
    }
    function listener(id, change) {
      if (id === tabId && change.status === 'loading') done();
    }
    ext.tabs.onUpdated.addListener(listener);
    ext.tabs.get(tabId).then((tab) => {
      if (tab.status === 'loading') done();
    }, done);
  });
}

// ---- The exactly-once ledger --------------------------------------------------------------
// One place decides whether an action (or a result line) may go out: the first claim of a key
// wins, every later one loses, in this or any tab showing the conversation. The claims live in
// this Map, loaded once from storage.session when the worker starts (so they survive the worker
// being stopped, and are gone when the browser closes); a claim checks and sets the Map with no
// `await` in between, so two claims racing cannot both win. Each key (`ran:<workflow>:<action>`,
// `#<attempt>` for retries, `result@<message>` for results) is one storage.session entry.

const LEDGER_PREFIX = 'ran:';
const ledgerKey = (workflowId, actionId) => `${LEDGER_PREFIX}${workflowId}:${actionId}`;
const ledger = new Map();
const ledgerLoaded = ext.storage.session.get(null).then((stored) => {
  for (const [key, at] of Object.entries(stored)) if (key.startsWith(LEDGER_PREFIX) && !ledger.has(key)) ledger.set(key, at);
}, () => {});

/** Claims `key` for the caller: true only for the first claim ever made of it. */
async function claimOnce(key) {
  await ledgerLoaded;
  // Check and set in one step: nothing may run between them.
  if (ledger.has(key)) return false;
  const at = Date.now();
  ledger.set(key, at);
  // Saved before the claimant acts, so a worker restart cannot forget the claim.
  await ext.storage.session.set({ [key]: at });
  return true;
}

/** Gives a claim back: the claimant proved nothing was delivered (or the user must approve
 * first, and the approved delivery claims again). */
async function releaseClaim(key) {
  await ledgerLoaded;
  ledger.delete(key);
  await ext.storage.session.remove(key);
}

/** Actions that only read the page: after a navigation cut one short, it may run again on the
 * new page without doing anything twice. */
const READ_ONLY_ACTIONS = new Set(['observe', 'wait_for', 'extract', 'assert', 'wait', 'screenshot']);

/** The next element ref number of a tab: refs stay unique across the pages a tab shows, so a
 * ref from an earlier page can never name an element of a later one. */
const refKey = (tabId) => `refs:${tabId}`;

/**
 * Delivers one action to the workflow's target tab, at most once per attempt. A ledger entry
 * (`ran:<workflow>:<action>`, plus `#<attempt>` for the retries a model asked for with
 * `on_error: retry`) is written before the first delivery and refuses any repeat; it is
 * removed only when the target answered that the action needs the user's approval (nothing ran),
 * or when nothing was delivered. The delivery itself finds out whether the tab's executor is
 * there (a page still loading has none): only that answer proves nothing was delivered, so only
 * then is it made again (after starting the content script if it never started). It is sent
 * again otherwise only when it is read-only and a navigation cut it short: after any other
 * failure it may have run, so it is reported, never re-sent.
 */
async function runOnTarget({ workflowId, actionId, action, timeoutMs, approval, attempt, secretNames }, ownedTab = null) {
  // `ownedTab`: another tab the workflow owns (capability `tabs`, see tabs.js), in the binding's
  // shape; the scope rules and the watch then cover that tab.
  const binding = ownedTab ?? (await targetFor(workflowId));
  if (!binding) return failure('no_target', 'This workflow has no target tab.');
  if (await isStopped(workflowId)) return stoppedFailure();
  const claim = ledgerKey(workflowId, `${actionId}${attempt ? `#${attempt}` : ''}`);
  if (!(await claimOnce(claim))) {
    return failure('already_run', `Action ${actionId} was already sent to the target tab; BAI does not send an action twice.`);
  }
  let injected = false;
  for (let delivery = 0; ; delivery++) {
    let tab;
    try {
      tab = await whenLoaded(binding.tabId, 15000);
    } catch (error) {
      await releaseClaim(claim);
      return String(error?.message) === 'timeout'
        ? failure('target_not_loaded', `The target tab (${binding.origin}) did not finish loading within 15 s.`)
        : failure('target_closed', `The target tab (${binding.title}) was closed. Open the page again and copy a new protocol prompt for it.`);
    }
    const origin = originOf(tab.url);
    if (origin !== binding.origin) {
      return failure('target_out_of_scope', `The target tab is now on ${origin ?? 'another page'}, outside this workflow's site ${binding.origin}. BAI did not act there.`);
    }
    if (!(await hasAccess(binding.origin))) {
      await releaseClaim(claim);
      return failure('target_access_removed', `BAI no longer has access to ${binding.origin} (the site was removed in Settings › Sites or in the browser's extension settings), so it did not act there. To go on, open the page, click “Copy protocol prompt” in the BAI panel and allow access again.`);
    }
    const refFloor = (await ext.storage.session.get(refKey(binding.tabId)))[refKey(binding.tabId)] ?? 1;
    const sentFrom = tab.url;
    // Stop pressed while this waited for the tab: nothing is delivered.
    if (await isStopped(workflowId)) return stoppedFailure();
    // Every top-level request the action causes stays on the bound origin (see "The bound
    // origin" below); what the tabs showed meanwhile decides whether it left.
    await scopeRulesCleared;
    await installScopeRules(workflowId, binding);
    const scope = watchScope(binding);
    const deliveredAt = Date.now();
    try {
      const reply = await deliverOnce({ workflowId, action, timeoutMs, approval, binding, refFloor, sentFrom, claim, secretNames });
      if (reply === NO_EXECUTOR) {
        // Nothing was delivered. A page whose content script never started (open before the
        // extension, or a registration that missed it) gets it now; one that is starting gets
        // a moment.
        if (delivery >= 50) {
          await releaseClaim(claim);
          return failure('target_not_ready', `BAI is not running in the target tab (${binding.origin}).`);
        }
        if (!injected) {
          injected = true;
          await ext.scripting.executeScript({ target: { tabId: binding.tabId, frameIds: [0] }, files: CONTENT_SCRIPT.js }).catch(() => {});
        }
        await sleep(100);
        continue;
      }
      if (reply === RETRY_DELIVERY) {
        if (delivery >= 50) return failure('target_reloaded', 'The target page kept navigating while the action ran; BAI stopped trying. Check the page before going on.');
        await sleep(100);
        continue;
      }
      // A screenshot's report becomes the masked picture (see vision.js).
      if (action.type === 'screenshot' && 'result' in reply && reply.result) return await withPicture(reply, { tabId: binding.tabId, origin: binding.origin });
      if (!('needs_approval' in reply && reply.needs_approval) && !READ_ONLY_ACTIONS.has(action.type)) {
        // A click handler's window.open or a target=_blank link opens its tab a moment after
        // the click reported back: give it that moment, then let what opened finish loading.
        await sleep(100);
        await scope.settle();
        const blocked = scope.left.length ? [] : await blockedByScope(workflowId, deliveredAt);
        if (scope.left.length || blocked.length) return await leftBoundSite(workflowId, binding, [...scope.left, ...blocked]);
      }
      return reply;
    } finally {
      scope.stop();
      await removeScopeRules(workflowId);
    }
  }
}

// ---- The bound origin, for every request an action causes -----------------------------------
// While an action of a workflow is delivered and until what it started has loaded, session
// rules of the browser's declarative request API keep every top-level request of the bound tab
// on the bound origin (redirect hops included: each hop is a request of its own), and block a
// top-level request to another site that the bound site starts in any tab (a target=_blank
// link or form, window.open, a script in a tab it opened). The rules exist only while an
// action is in flight: between actions the user's own clicks and address-bar navigations in
// that tab (and in other tabs of the same site) are not touched. A watch records every address
// the bound tab and the tabs it opened showed meanwhile; one off the origin makes the action
// fail with `left_bound_site` (never ok) and stops the workflow.
// Blocking needs the `declarativeNetRequest` permission: the variant "WithHostAccess" may only
// act on requests to hosts BAI holds, and the whole point is requests to sites it does not.

/** Rule ids of the actions in flight, per workflow (memory only: an action in flight does not
 * survive the worker, and the rules are removed when the worker starts). */
const scopeRules = new Map();
let nextScopeRuleId = 1;
/** Which of them block a navigation off the origin (the action then fails). */
const scopeBlockRules = new Set();

const hostOf = (origin) => new URL(origin).hostname;

/** Session rules: the bound tab's top-level requests and the bound site's top-level requests in
 * any tab stay on `origin` (an allow of higher priority lets the origin itself through). */
function scopeRulesFor(binding, firstId) {
  const sameOrigin = `|${binding.origin}/`;
  const initiatorDomains = [hostOf(binding.origin)];
  const resourceTypes = ['main_frame'];
  // In the bound tab, <a ping> and beacons the click sends go nowhere else either (blocked
  // quietly: a ping is no navigation, so it does not fail the action).
  const ping = ['ping'];
  return [
    { id: firstId, priority: 1, action: { type: 'block' }, condition: { tabIds: [binding.tabId], resourceTypes }, leaves: true },
    { id: firstId + 1, priority: 2, action: { type: 'allow' }, condition: { tabIds: [binding.tabId], resourceTypes, urlFilter: sameOrigin } },
    { id: firstId + 2, priority: 1, action: { type: 'block' }, condition: { initiatorDomains, resourceTypes }, leaves: true },
    { id: firstId + 3, priority: 2, action: { type: 'allow' }, condition: { initiatorDomains, resourceTypes, urlFilter: sameOrigin } },
    { id: firstId + 4, priority: 1, action: { type: 'block' }, condition: { tabIds: [binding.tabId], resourceTypes: ping } },
    { id: firstId + 5, priority: 2, action: { type: 'allow' }, condition: { tabIds: [binding.tabId], resourceTypes: ping, urlFilter: sameOrigin } },
  ];
}

/** How many rules an action installs. */
const SCOPE_RULE_COUNT = 6;

async function installScopeRules(workflowId, binding) {
  const dnr = ext.declarativeNetRequest;
  if (!dnr?.updateSessionRules) return;
  const firstId = nextScopeRuleId;
  nextScopeRuleId += SCOPE_RULE_COUNT;
  const marked = scopeRulesFor(binding, firstId);
  const rules = marked.map(({ leaves, ...rule }) => rule);
  await dnr.updateSessionRules({ addRules: rules });
  for (const rule of marked) if (rule.leaves) scopeBlockRules.add(rule.id);
  scopeRules.set(workflowId, [...(scopeRules.get(workflowId) ?? []), ...rules.map((rule) => rule.id)]);
}

async function removeScopeRules(workflowId) {
  const ids = scopeRules.get(workflowId);
  scopeRules.delete(workflowId);
  for (const id of ids ?? []) scopeBlockRules.delete(id);
  if (ids?.length) await ext.declarativeNetRequest.updateSessionRules({ removeRuleIds: ids }).catch(() => {});
}

/** Session rules outlive the worker; no action is in flight when it starts, so none is ours to
 * keep. */
async function removeAllScopeRules() {
  const dnr = ext.declarativeNetRequest;
  if (!dnr?.getSessionRules) return;
  const rules = await dnr.getSessionRules();
  nextScopeRuleId = Math.max(nextScopeRuleId, ...rules.map((rule) => rule.id + 1));
  if (rules.length) await dnr.updateSessionRules({ removeRuleIds: rules.map((rule) => rule.id) });
}
const scopeRulesCleared = removeAllScopeRules().catch(() => {});

/**
 * Requests the scope rules of `workflowId` blocked since `since`. Firefox keeps showing the
 * last address that was allowed when a later hop is blocked (a same-site redirector), so the
 * addresses alone do not tell there; Chromium shows the blocked address, and rate-limits this
 * call (a failed call counts as nothing blocked: the addresses decide).
 */
async function blockedByScope(workflowId, since) {
  const ids = new Set(scopeRules.get(workflowId) ?? []);
  if (!ids.size || !ext.declarativeNetRequest?.getMatchedRules) return [];
  try {
    const { rulesMatchedInfo } = await ext.declarativeNetRequest.getMatchedRules({ minTimeStamp: since });
    return rulesMatchedInfo
      .filter((info) => ids.has(info.rule.ruleId) && scopeBlockRules.has(info.rule.ruleId))
      .map((info) => ({ tabId: info.tabId, url: 'another site (blocked)', newTab: false }));
  } catch {
    return [];
  }
}


/** Whether an address a tab shows is off the bound origin (a new tab's first about:blank is not). */
const offOrigin = (url, origin) => Boolean(url) && url !== 'about:blank' && originOf(url) !== origin;

/**
 * Watches the bound tab and the tabs it opens while an action is in flight: every address they
 * show (a blocked navigation shows its address too), and the tabs opened.
 */
function watchScope(binding) {
  const opened = new Set();
  const left = [];
  const note = (tabId, url) => {
    const newTab = tabId !== binding.tabId;
    // A new tab counts once it shows a web address (not the browser's own new-tab page).
    if (newTab && !/^https?:/i.test(url ?? '')) return;
    if (offOrigin(url, binding.origin) && !left.some((entry) => entry.url === url)) left.push({ tabId, url, newTab });
  };
  const created = (tab) => {
    // Every tab created while the action runs counts: openerTabId cannot tell (a target=_blank
    // link opens its tab with no opener, and Chromium names the active tab as the opener of a
    // window.open from a tab in the background). A tab the user opens on a web page in that
    // moment makes the action fail too: failing is the safe side.
    opened.add(tab.id);
    note(tab.id, tab.pendingUrl);
    note(tab.id, tab.url);
  };
  let boundLoaded = false;
  const updated = (tabId, change, tab) => {
    if (tabId === binding.tabId && change.status === 'loading') boundLoaded = true;
    if (tabId !== binding.tabId && !opened.has(tabId)) return;
    note(tabId, change.url);
    if (tab?.pendingUrl) note(tabId, tab.pendingUrl);
  };
  // Every top-level navigation a tab starts, and every one that fails (a blocked one too), with
  // the address it went for. Firefox keeps showing the last allowed address when a rule blocks
  // a later hop (a same-site redirector, a form to another site), and has no getMatchedRules:
  // the blocked address reaches the extension only here. Kept until settle(), because a new
  // tab's first navigation can be reported before the tab itself.
  const navigations = [];
  const navigated = (details) => {
    if (details.frameId === 0) navigations.push({ tabId: details.tabId, url: details.url });
  };
  const webNavigation = ext.webNavigation;
  webNavigation?.onBeforeNavigate.addListener(navigated);
  webNavigation?.onErrorOccurred.addListener(navigated);
  const noteNavigations = () => {
    for (const { tabId, url } of navigations.splice(0)) if (tabId === binding.tabId || opened.has(tabId)) note(tabId, url);
  };
  ext.tabs.onCreated.addListener(created);
  ext.tabs.onUpdated.addListener(updated);
  return {
    opened,
    left,
    /** Lets the tabs opened finish their first navigation, then looks at every tab once more. */
    async settle() {
      noteNavigations();
      for (const tabId of opened) {
        await whenLoaded(tabId, 5000).catch(() => null);
      }
      for (const tabId of [binding.tabId, ...opened]) {
        const tab = await ext.tabs.get(tabId).catch(() => null);
        if (tab) note(tabId, tab.url);
        // Firefox shows a blocked new tab as about:blank, and a blocked hop of the bound tab
        // under the last address it allowed (a same-site redirector), as an error page where
        // no content script runs: both count as having tried to leave.
        if (tab && tabId !== binding.tabId && tab.url === 'about:blank') {
          left.push({ tabId, url: 'another site (blocked)', newTab: true });
        }
      }
      noteNavigations();
      if (boundLoaded && !left.some((entry) => !entry.newTab) && !(await answersWithin(binding.tabId, 3000))) {
        left.push({ tabId: binding.tabId, url: 'another site (blocked)', newTab: false });
      }
    },
    stop() {
      webNavigation?.onBeforeNavigate.removeListener(navigated);
      webNavigation?.onErrorOccurred.removeListener(navigated);
      ext.tabs.onCreated.removeListener(created);
      ext.tabs.onUpdated.removeListener(updated);
    },
  };
}

/** The failure of an action that took a tab off the bound origin; the workflow stops. */
async function leftBoundSite(workflowId, binding, left) {
  await ext.storage.session.set({ [stoppedKey(workflowId)]: Date.now() });
  const where = left.map((entry) => `${originOf(entry.url) ?? entry.url}${entry.newTab ? ' (in a new tab)' : ''}`).join(', ');
  return failure('left_bound_site', `The action led off this workflow's site ${binding.origin} to ${where}; BAI blocked what it could and stopped the workflow. Check the page before going on.`);
}

/** Marks a delivery a navigation cut short that may be made again (read-only actions only). */
const RETRY_DELIVERY = Symbol('retry delivery');
/** Marks a delivery that found no executor in the tab: nothing was delivered. */
const NO_EXECUTOR = Symbol('no executor');
/** Marks a delivery the tab did not answer in time. */
const NOT_RESPONDING = Symbol('not responding');
/** Marks a delivery whose document went away before it answered. */
const GONE = Symbol('gone');

/**
 * Runs in the target tab's top frame, in the content script's world (scripting.executeScript
 * runs there): hands the action to the executor, or answers that there is none yet. It is
 * serialized into the tab, so it uses nothing from this file.
 * @param {import('../shared/messages.js').ExecuteActionMsg} message
 */
function deliverInTab(message) {
  const executor = /** @type {any} */ (globalThis).baiExecutor;
  if (!executor?.alive()) return { noExecutor: true };
  return executor.execute(message);
}

/**
 * Runs in the target tab like deliverInTab: whether this document's executor still has the
 * delivery `id` (taken and not answered yet).
 * @param {string} id
 */
function holdsInTab(id) {
  return /** @type {any} */ (globalThis).baiExecutor?.holds(id) === true;
}

/**
 * Resolves GONE once the document a delivery went to is gone: the tab committed another document
 * or a navigation failed (an error page replaces the document in Chromium), and once it loaded,
 * the executor there does not have the delivery. An executeScript whose document went away is not
 * always answered (Chromium leaves it pending), so this is how the delivery learns it.
 */
function whenDeliveryGone(tabId, deliveryId) {
  let finish = () => {};
  const gone = new Promise((resolve) => {
    let checking = false;
    const check = async () => {
      if (checking) return;
      checking = true;
      await whenLoaded(tabId, 15000).catch(() => null);
      const held = await ext.scripting.executeScript({ target: { tabId, frameIds: [0] }, func: holdsInTab, args: [deliveryId] })
        .then((results) => results?.[0]?.result === true, () => false);
      checking = false;
      // An answer sent just before the check may still be on its way: give it a moment.
      if (!held) sleep(1000).then(() => resolve(GONE));
    };
    const navigated = (details) => {
      if (details.tabId === tabId && details.frameId === 0) check();
    };
    const removed = (id) => {
      if (id === tabId) resolve(GONE);
    };
    ext.webNavigation?.onCommitted.addListener(navigated);
    ext.webNavigation?.onErrorOccurred.addListener(navigated);
    ext.tabs.onRemoved.addListener(removed);
    finish = () => {
      ext.webNavigation?.onCommitted.removeListener(navigated);
      ext.webNavigation?.onErrorOccurred.removeListener(navigated);
      ext.tabs.onRemoved.removeListener(removed);
    };
  });
  return { gone, stop: () => finish() };
}

/** Ends what still runs of the workflow's action in the tab (not the workflow). */
const cancelInFlight = (tabId, workflowId) => ext.tabs.sendMessage(tabId, { type: Msg.CANCEL_ACTIONS, workflowIds: [workflowId], inFlightOnly: true }, { frameId: 0 }).catch(() => {});

/** Sends the action once and waits for what it started loading. */
async function deliverOnce({ workflowId, action, timeoutMs, approval, binding, refFloor, sentFrom, claim, secretNames }) {
  /** @type {import('../shared/messages.js').ExecuteActionMsg} */
  const message = { type: Msg.EXECUTE_ACTION, workflowId, action, timeoutMs, approval: typeof approval === 'string' ? approval : undefined, expectOrigin: binding.origin, refFloor, deliveryId: crypto.randomUUID(), secretNames };
  // The executor ends every action by this time (../shared/deadline.js); a tab that has not
  // answered a little after it never will (its page hangs, or its script died).
  const limitMs = actionDeadlineMs(action, timeoutMs) + 5000;
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve(NOT_RESPONDING), limitMs);
  });
  const away = whenDeliveryGone(binding.tabId, message.deliveryId);
  try {
    const delivered = ext.scripting.executeScript({ target: { tabId: binding.tabId, frameIds: [0] }, func: deliverInTab, args: [message] });
    const results = await Promise.race([delivered, late, away.gone]);
    // The page went away before the action answered (handled below).
    if (results === GONE) {
      delivered.catch(() => {});
      throw new Error('gone');
    }
    if (results === NOT_RESPONDING) {
      delivered.catch(() => {});
      await cancelInFlight(binding.tabId, workflowId);
      return failure('target_not_responding', `The target tab (${binding.origin}) did not answer within ${Math.round(limitMs / 1000)} s; BAI stopped waiting and did not send the action again. Check the page before going on.`);
    }
    const reply = results?.[0]?.result;
    // The claim stays: the same delivery is made again, and gives it back if it gives up.
    if (reply?.noExecutor) return NO_EXECUTOR;
    // No result: the page went away before the action answered (handled below).
    if (!reply) throw new Error('no answer');
    // Nothing ran: the user is asked, and the approved delivery claims again.
    if (reply.needs_approval) await releaseClaim(claim);
    if (reply.nextRef) await ext.storage.session.set({ [refKey(binding.tabId)]: Math.max(refFloor, reply.nextRef) });
    // The action started loading another page: wait for it, so the next action meets the new
    // page and not the one that is going away.
    if (reply.result?.effects?.some((effect) => effect.kind === 'navigation_started')) {
      await whenNavigating(binding.tabId, 3000);
      const loaded = await whenLoaded(binding.tabId, 15000).catch(() => null);
      if (loaded?.url) reply.result.url = loaded.url;
    }
    return reply;
  } catch {
    // A read-only action cut short by a navigation runs again on the new page.
    if (READ_ONLY_ACTIONS.has(action.type)) return RETRY_DELIVERY;
    // A click on a link can take the page away before the click's own report comes back.
    // When the tab is now loading or showing another address, that is what happened: say so.
    // Either way the action is not sent again.
    const now = await ext.tabs.get(binding.tabId).catch(() => null);
    if (now && (now.status === 'loading' || now.url !== sentFrom)) {
      const loaded = await whenLoaded(binding.tabId, 15000).catch(() => now);
      return { result: { action: action.type, effects: [{ kind: 'navigation_started', url: loaded.url }], url: loaded.url, note: 'the page navigated before the action reported back' } };
    }
    return failure('target_reloaded', 'The target page reloaded or navigated while the action ran; BAI did not repeat it. Check the page before going on.');
  } finally {
    clearTimeout(timer);
    away.stop();
  }
}

/** Whether the tab's content script answers within `ms` (a page just loaded starts it). */
async function answersWithin(tabId, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await contentScriptAnswers(tabId)) return true;
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
}

/** Whether a content script in the tab's top frame answers (it is loaded and listening). */
async function contentScriptAnswers(tabId) {
  try {
    return (await ext.tabs.sendMessage(tabId, { type: Msg.PING }, { frameId: 0 }))?.pong === true;
  } catch {
    return false;
  }
}

/** The target page's URL, title and (when asked) what changed since it was last observed. */
async function pageStateOf({ workflowId, changes, maxElements }) {
  const binding = await targetFor(workflowId);
  if (!binding) return failure('no_target', 'This workflow has no target tab.');
  try {
    const tab = await whenLoaded(binding.tabId, 15000);
    // The same scope as actions: nothing about a page on another site, or a site the user
    // removed, goes to the model.
    if (originOf(tab.url) !== binding.origin) return failure('target_out_of_scope', 'The target tab shows another site now.');
    if (!(await hasAccess(binding.origin))) return failure('target_access_removed', `BAI no longer has access to ${binding.origin}.`);
    // Describing changes can issue refs. A workflow with several tabs gets its floor from its
    // tab table, above every ref of all its tabs, and the refs are recorded as t1's (tabs.js).
    const own = (await ext.storage.session.get(refKey(binding.tabId)))[refKey(binding.tabId)] ?? 1;
    const shared = await workflowTabs.pageStateFloor(workflowId);
    const refFloor = Math.max(own, shared ?? 1);
    let state;
    for (let delivery = 0; ; delivery++) {
      try {
        state = await ext.tabs.sendMessage(binding.tabId, { type: Msg.PAGE_STATE, changes, maxElements, refFloor }, { frameId: 0 });
        break;
      } catch (error) {
        if (delivery >= 30) throw error;
        await sleep(100);
      }
    }
    // Keep the tab's counter ahead of the refs it issued (the read is not repeated: it made
    // the page as it is now the baseline of the next changes).
    await ext.storage.session.set({ [refKey(binding.tabId)]: Math.max(refFloor, state?.nextRef ?? refFloor) });
    if (shared !== null) await workflowTabs.pageStateRead(workflowId, binding, refFloor).catch(() => {});
    return state;
  } catch (error) {
    return failure('target_unavailable', `The target page could not be read: ${error?.message ?? error}`);
  }
}

// ---- Saved conversations ------------------------------------------------------------------
// Held actions' typed text: storage.session (memory only), one entry per conversation.
const heldKey = (conversation) => `held:${conversation}`;

/**
 * Deletes saved conversation states older than the retention setting (all of them when
 * `everything`), with their held texts. Runs when the worker starts, after a chat event at most
 * once an hour, and when the user clears them in the panel.
 */
async function pruneConversations(everything = false) {
  const settings = await loadSettings();
  const days = Number(settings.conversationRetentionDays);
  const keepMs = Number.isFinite(days) && days > 0 ? days * 24 * 3600 * 1000 : 30 * 24 * 3600 * 1000;
  const cutoff = Date.now() - keepMs;
  const all = await ext.storage.local.get(null);
  const doomed = [];
  const held = [];
  for (const key of Object.keys(all)) {
    if (!key.startsWith(CONVERSATION_PREFIX)) continue;
    const address = key.slice(CONVERSATION_PREFIX.length);
    const savedAt = all[CONVERSATION_SAVED_AT_PREFIX + address];
    // A state without a time (saved before times were kept) counts as old.
    if (everything || typeof savedAt !== 'number' || savedAt < cutoff) {
      doomed.push(key, CONVERSATION_SAVED_AT_PREFIX + address);
      held.push(heldKey(key));
    }
  }
  const gone = new Set(doomed);
  for (const key of Object.keys(all)) {
    // Orphaned times.
    if (key.startsWith(CONVERSATION_SAVED_AT_PREFIX) && !((CONVERSATION_PREFIX + key.slice(CONVERSATION_SAVED_AT_PREFIX.length)) in all)) doomed.push(key);
    // Parts of a state deleted now or before (`<prefix><address>#<part>`).
    if (key.startsWith(CONVERSATION_PART_PREFIX)) {
      const head = CONVERSATION_PREFIX + key.slice(CONVERSATION_PART_PREFIX.length, key.lastIndexOf('#'));
      if (gone.has(head) || !(head in all)) doomed.push(key);
    }
  }
  if (everything) {
    const session = await ext.storage.session.get(null);
    held.push(...Object.keys(session).filter((key) => key.startsWith('held:')));
  }
  if (doomed.length) await ext.storage.local.remove(doomed);
  if (held.length) await ext.storage.session.remove(held);
  return { removed: doomed.filter((key) => key.startsWith(CONVERSATION_PREFIX)).length };
}

let lastPrune = 0;
function pruneSoon() {
  if (Date.now() - lastPrune < 3600 * 1000) return;
  lastPrune = Date.now();
  pruneConversations().catch(() => {});
}
pruneSoon();
ext.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && changes[SETTINGS_KEY]) pruneConversations().catch(() => {});
});


// ---- Questions -------------------------------------------------------------------------------
// The chat tab's content script decides that the user must be asked; the question itself is
// shown only on the extension's own pages (the question window opened here, and the panel),
// which page scripts cannot read, rewrite, restyle or cover. The open questions live here, in
// session storage, and nowhere else. An answer counts only when it comes from an extension
// page, names a question still open and carries the fingerprint of exactly what it showed.

const QUESTIONS_KEY = 'questions';
const QUESTION_WINDOW_KEY = 'questionWindow';
const QUESTION_PAGE = 'extension/question/question.html';

// Every settings change goes through this chain, one at a time (settings.js applySettingsChange
// reads the settings, then writes them: two at once would each drop the other's change).
/** @type {Promise<unknown>} */
let settingsWrites = Promise.resolve();

/** @param {import('../shared/settings.js').SettingsChange} change */
function changeSettings(change) {
  const done = settingsWrites.then(() => applySettingsChange(change));
  settingsWrites = done.catch(() => {});
  return done;
}

let questionsChain = Promise.resolve();
/** Runs `task(questions)` on the stored list, one change at a time; it may change the list. */
function withQuestions(task) {
  const next = questionsChain.then(async () => {
    const questions = (await ext.storage.session.get(QUESTIONS_KEY))[QUESTIONS_KEY] ?? [];
    const before = JSON.stringify(questions);
    const result = await task(questions);
    if (JSON.stringify(questions) !== before) {
      await ext.storage.session.set({ [QUESTIONS_KEY]: questions });
      ext.runtime.sendMessage({ type: Msg.QUESTIONS_CHANGED }).catch(() => {});
      for (const tabId of new Set(questions.map((q) => q.tabId))) ext.runtime.sendMessage({ type: Msg.STATUS_CHANGED, tabId }).catch(() => {});
    }
    return result;
  });
  questionsChain = next.catch(() => {});
  return next;
}

const text = (value, max = 300) => (typeof value === 'string' ? value.slice(0, max) : null);

/** The question as shown, from what the chat tab asked: known fields only, capped, plus where
 * the workflow acts (from the binding, never from the page). */
async function questionFrom(asked, sender) {
  const binding = await targetFor(text(asked.workflowId, 200));
  const question = {
    id: crypto.randomUUID(),
    tabId: sender.tab.id,
    kind: asked.kind === 'action' ? 'action' : 'handshake',
    chatOrigin: originOf(sender.url),
    origin: binding?.origin ?? originOf(sender.url),
    pageTitle: text(binding ? binding.title : sender.tab.title, 120),
    workflowId: text(asked.workflowId, 200),
    askedAt: Date.now(),
  };
  if (question.kind === 'handshake') {
    question.protocol = text(asked.protocol, 20);
    question.heldActions = Number.isInteger(asked.heldActions) ? asked.heldActions : 0;
  } else {
    question.actionId = Number.isInteger(asked.actionId) ? asked.actionId : null;
    question.actionType = text(asked.actionType, 40);
    question.selector = asked.selector && typeof asked.selector === 'object'
      ? { type: text(asked.selector.type, 40), value: text(asked.selector.value), ...(asked.selector.name ? { name: text(asked.selector.name) } : {}) }
      : text(asked.selector);
    question.detail = text(asked.detail);
    question.target = text(asked.target);
    question.targetName = text(asked.targetName, 200);
    question.reasons = (Array.isArray(asked.reasons) ? asked.reasons : []).slice(0, 8).map((r) => ({ code: text(r?.code, 60), message: text(r?.message), ...(typeof r?.name === 'string' ? { name: text(r.name, 200) } : {}) }));
    question.claim = text(asked.claim, 500);
  }
  return question;
}

// Opening and closing the question window run one at a time: otherwise a question asked while
// the last answer's window is being closed finds that window still there, and is left with none.
let questionWindowOps = Promise.resolve();
function oneWindowOpAtATime(op) {
  const next = questionWindowOps.then(op, op);
  questionWindowOps = next.catch(() => {});
  return next;
}

/** Shows the question window (a small popup window of the extension's own page), or brings the
 * one already open to the front. Works without a user gesture in Chrome and Firefox. */
function showQuestionWindow() {
  return oneWindowOpAtATime(showQuestionWindowNow);
}

async function showQuestionWindowNow() {
  const known = (await ext.storage.session.get(QUESTION_WINDOW_KEY))[QUESTION_WINDOW_KEY];
  const page = ext.runtime.getURL(QUESTION_PAGE);
  if (known !== undefined) {
    // The window counts only while it still shows the question page: a window the user is
    // closing (or whose tab went elsewhere) can still be found by its id for a moment, and
    // focusing it would leave the new question with no window until it times out (a deny).
    const existing = await ext.windows.get(known, { populate: true }).catch(() => null);
    const showsQuestions = existing?.tabs?.some((tab) => showsQuestionPage(tab));
    if (showsQuestions) {
      await ext.windows.update(known, { focused: true }).catch(() => {});
      return;
    }
    await ext.storage.session.remove(QUESTION_WINDOW_KEY);
  }
  const open = () => ext.windows.create({ type: 'popup', url: page, width: 460, height: 420, focused: true });
  // One more try after a refusal: creating a window while the last one is being torn down can
  // fail, and a question nobody sees is denied when its time runs out.
  const created = await open().catch(() => new Promise((resolve) => setTimeout(resolve, 200)).then(open));
  await ext.storage.session.set({ [QUESTION_WINDOW_KEY]: created.id });
}

/** Whether `tab` (from `windows.get(id, {populate: true})`) shows the question page. */
function showsQuestionPage(tab) {
  return String(tab.url || tab.pendingUrl || '').startsWith(ext.runtime.getURL(QUESTION_PAGE));
}

/** Closes the question window once nothing is waiting. */
function closeQuestionWindowIfIdle() {
  return oneWindowOpAtATime(closeQuestionWindowIfIdleNow);
}

async function closeQuestionWindowIfIdleNow() {
  const questions = (await ext.storage.session.get(QUESTIONS_KEY))[QUESTIONS_KEY] ?? [];
  if (questions.length) return;
  const known = (await ext.storage.session.get(QUESTION_WINDOW_KEY))[QUESTION_WINDOW_KEY];
  if (known === undefined) return;
  await ext.storage.session.remove(QUESTION_WINDOW_KEY);
  // Only a window that shows nothing but the question page is closed: never one of the user's
  // own windows, whatever the record says.
  const existing = await ext.windows.get(known, { populate: true }).catch(() => null);
  if (existing?.tabs?.length && existing.tabs.every((tab) => showsQuestionPage(tab))) await ext.windows.remove(known).catch(() => {});
}

async function askUser(message, sender) {
  const question = await questionFrom(message.question ?? {}, sender);
  question.fingerprint = await questionFingerprint(question);
  // Nobody answering is a no: the question is denied when its time is up.
  const timeoutMs = questionTimeoutMs(await loadSettings());
  question.expiresAt = question.askedAt + timeoutMs;
  await withQuestions((questions) => {
    questions.push(question);
  });
  // The timer works while the worker lives; the chat tab's reminder (QUESTION_DUE), the
  // question window and the panel wake it and check again, so a worker that slept still
  // denies on time. An answer after the time never counts (answerQuestion).
  setTimeout(() => expireQuestions().catch(() => {}), timeoutMs + 50);
  await showQuestionWindow().catch(() => {});
  return { questionId: question.id, expiresAt: question.expiresAt };
}

/** Denies every question whose time is up: its chat tab is told `timed_out`, it leaves the
 * question window and the panel. */
async function expireQuestions() {
  const now = Date.now();
  const expired = await withQuestions((questions) => {
    const due = questions.filter((q) => Number.isFinite(q.expiresAt) && q.expiresAt <= now);
    for (const question of due) questions.splice(questions.indexOf(question), 1);
    return due;
  });
  if (!expired.length) return;
  await Promise.all(expired.map((question) => ext.tabs.sendMessage(question.tabId, { type: Msg.QUESTION_ANSWERED, questionId: question.id, answer: 'timed_out' }).catch(() => {})));
  await closeQuestionWindowIfIdle();
}

/** Answers: 'allow', 'deny', or 'always_allow' (allow, and add the rule "allow this action
 * type on this target name on this site", made here from the question as it was shown). */
async function answerQuestion({ questionId, fingerprint, answer }) {
  if (answer !== 'allow' && answer !== 'deny' && answer !== 'always_allow') return failure('invalid_answer', 'An answer is Allow, Always allow or Deny.');
  await expireQuestions();
  let refused = null;
  const question = await withQuestions((questions) => {
    const index = questions.findIndex((q) => q.id === questionId);
    if (index < 0 || questions[index].fingerprint !== fingerprint) return null;
    if (answer === 'always_allow' && !alwaysAllowRule(questions[index])) {
      refused = failure('rule_not_offered', 'This question offers no rule (BAI always asks about it); nothing was allowed.');
      return null;
    }
    return questions.splice(index, 1)[0];
  });
  if (refused) return refused;
  if (!question) return failure('question_not_open', 'This question is no longer open (answered, withdrawn, or its time ran out), or it changed since it was shown; nothing was allowed.');
  if (answer === 'always_allow') {
    const { rule } = await changeSettings({ addRule: alwaysAllowRule(question) });
    await appendLog(question.tabId, { kind: 'rule_added', rule, by: 'user', workflow_id: question.workflowId, action_id: question.actionId, at: Date.now() }).catch(() => {});
  }
  await ext.tabs.sendMessage(question.tabId, { type: Msg.QUESTION_ANSWERED, questionId, answer: answer === 'deny' ? 'deny' : 'allow' }).catch(() => {});
  await closeQuestionWindowIfIdle();
  return { ok: true };
}

async function withdrawQuestions(predicate) {
  await withQuestions((questions) => {
    for (let i = questions.length - 1; i >= 0; i--) if (predicate(questions[i])) questions.splice(i, 1);
  });
  await closeQuestionWindowIfIdle();
}

ext.windows?.onRemoved?.addListener(async (windowId) => {
  const known = (await ext.storage.session.get(QUESTION_WINDOW_KEY))[QUESTION_WINDOW_KEY];
  if (known === windowId) await ext.storage.session.remove(QUESTION_WINDOW_KEY);
});

// ---- Stop ------------------------------------------------------------------------------------
// Stop ends what a workflow has in flight: an action delivered to its target tab that still
// waits for its element (or a wait_for), and any delivery not made yet.

const stoppedKey = (workflowId) => `stopped:${workflowId}`;
const isStopped = async (workflowId) => Boolean((await ext.storage.session.get(stoppedKey(workflowId)))[stoppedKey(workflowId)]);
const stoppedFailure = () => failure('stopped', 'You pressed Stop; BAI did not act.');

async function stopWorkflow({ workflowId }) {
  await ext.storage.session.set({ [stoppedKey(workflowId)]: Date.now() });
  await removeScopeRules(workflowId);
  const binding = await targetFor(workflowId);
  if (binding) await ext.tabs.sendMessage(binding.tabId, { type: Msg.CANCEL_ACTIONS, workflowIds: [workflowId] }, { frameId: 0 }).catch(() => {});
  await workflowTabs.stopTabs(workflowId).catch(() => {});
  await withdrawQuestions((q) => q.workflowId === workflowId);
  return { ok: true };
}

// ---- Several tabs (capability `tabs`) ---------------------------------------------------------
// The tabs each workflow owns, and the choice of tab for each of its actions: tabs.js.
const workflowTabs = ownedTabs({
  core,
  coreReady,
  failure,
  originOf,
  targetFor,
  runOnTarget,
  refKey,
  installScopeRules: async (workflowId, binding) => {
    await scopeRulesCleared;
    await installScopeRules(workflowId, binding);
  },
  removeScopeRules,
  isStopped,
  stoppedFailure,
});

/** A chat page whose site the user removed keeps running until it reloads; it runs nothing more. */
const chatSiteRemoved = (url) => failure('site_access_removed', `BAI no longer has access to ${originOf(url) ?? 'this chat site'} (removed in Settings › Sites), so it runs nothing from this chat. Add the site again to go on.`);

/** Messages from the extension's own pages (the panel), never from a content script. */
const fromExtensionPage = (sender) => sender.id === ext.runtime.id && Boolean(sender.url?.startsWith(ext.runtime.getURL(''))) && !sender.frameId;

async function handle(message, sender) {
  switch (message?.type) {
    case Msg.CONTENT_ROLE: {
      // Decided in Rust (crate/src/sites.rs) from the address the browser gives, not one the
      // page could name: a page whose site may not run the chat role loads the executor only.
      const background = await coreReady;
      let url = null;
      try {
        url = new URL(sender.url ?? '');
      } catch {
        return { mayRunChat: false, userChatSite: false };
      }
      const userChatSite = await isUserChatSite(url).catch(() => false);
      const mayRunChat = !background.error && core.may_run_chat(url.hostname, userChatSite);
      return { mayRunChat, userChatSite };
    }
    case Msg.CONTENT_READY: {
      const background = await coreReady;
      if (sender.tab?.id !== undefined) await recordContentReady(sender.tab.id, message);
      // A page that (re)started has none of the questions its tab asked before: drop them, so
      // nothing stale waits in the question window. Its session asks again if it must.
      if (sender.tab?.id !== undefined && !sender.frameId) await withdrawQuestions((q) => q.tabId === sender.tab.id);
      return { coreVersion: background.version, coreError: background.error };
    }
    case Msg.TAB_STATUS: {
      if (!fromExtensionPage(sender)) return failure('not_allowed', 'status is for the panel');
      const background = await coreReady;
      const stored = await ext.storage.session.get(tabKey(message.tabId));
      return { background, tab: stored[tabKey(message.tabId)] ?? null };
    }
    case Msg.CHAT_EVENT: {
      const tabId = sender.tab?.id;
      if (tabId === undefined) return failure('not_allowed', 'chat events come from tabs');
      await appendLog(tabId, message.event);
      ext.runtime.sendMessage({ type: Msg.STATUS_CHANGED, tabId }).catch(() => {});
      pruneSoon();
      return { ok: true };
    }
    case Msg.HELD_TEXTS_SAVE: {
      if (sender.tab?.id === undefined || typeof message.conversation !== 'string') return failure('not_allowed', 'held actions come from chat tabs');
      const key = heldKey(message.conversation);
      if (typeof message.texts === 'string') await ext.storage.session.set({ [key]: message.texts });
      else await ext.storage.session.remove(key);
      return { ok: true };
    }
    case Msg.HELD_TEXTS_LOAD: {
      if (sender.tab?.id === undefined || typeof message.conversation !== 'string') return failure('not_allowed', 'held actions go to chat tabs');
      const key = heldKey(message.conversation);
      return { texts: (await ext.storage.session.get(key))[key] ?? null };
    }
    case Msg.CHANGE_SETTINGS: {
      if (!fromExtensionPage(sender)) return failure('not_allowed', 'only the panel changes settings');
      const refused = settingsChangeError(message.change);
      if (refused) return failure(refused.code, refused.message);
      return changeSettings(message.change);
    }
    case Msg.CLEAR_CONVERSATIONS: {
      if (!fromExtensionPage(sender)) return failure('not_allowed', 'only the panel clears saved conversations');
      return pruneConversations(true);
    }
    case Msg.TAB_LOG: {
      if (!fromExtensionPage(sender)) return failure('not_allowed', 'the log is for the panel');
      const stored = await ext.storage.session.get(logKey(message.tabId));
      return { log: stored[logKey(message.tabId)] ?? [] };
    }
    case Msg.BIND_TARGET: {
      if (!fromExtensionPage(sender)) return failure('not_allowed', 'only the panel binds targets');
      return bindTarget(message);
    }
    case Msg.GRANT_SITE: {
      if (!fromExtensionPage(sender)) return failure('not_allowed', 'only the panel adds sites');
      return grantSite(message);
    }
    case Msg.REMOVE_SITE: {
      if (!fromExtensionPage(sender)) return failure('not_allowed', 'only the panel removes sites');
      return removeSite(message);
    }
    case Msg.TARGET_FOR: {
      // The first chat tab that asks about a workflow (when its handshake is found) owns it:
      // only that tab may later run the workflow's actions.
      if (sender.tab?.id !== undefined) {
        const ownerKey = `owner:${message.workflowId}`;
        if (!(await ext.storage.session.get(ownerKey))[ownerKey]) await ext.storage.session.set({ [ownerKey]: sender.tab.id });
      }
      return { target: await targetFor(message.workflowId) };
    }
    case Msg.CLAIM_ACTION: {
      // The same conversation can be open in two tabs, each with its own engine: the first tab
      // to claim an action runs it; the other is told it already ran.
      if (sender.tab?.id === undefined) return failure('not_allowed', 'actions are claimed by chat tabs');
      if (!(await hasAccess(originOf(sender.url)))) return chatSiteRemoved(sender.url);
      if (!(await claimOnce(ledgerKey(message.workflowId, message.actionId)))) {
        return failure('already_run', `Action ${message.actionId} already ran (in this or another tab showing this conversation); BAI does not run an action twice.`);
      }
      return { ok: true };
    }
    case Msg.RUN_ACTION: {
      const ownerKey = `owner:${message.workflowId}`;
      const owner = (await ext.storage.session.get(ownerKey))[ownerKey];
      if (sender.tab?.id === undefined || sender.tab.id !== owner) return failure('not_allowed', 'only the chat tab of this workflow runs its actions');
      if (!(await hasAccess(originOf(sender.url)))) return chatSiteRemoved(sender.url);
      return runOnTarget(message);
    }
    case Msg.RUN_TAB_ACTION: {
      const ownerKey = `owner:${message.workflowId}`;
      const owner = (await ext.storage.session.get(ownerKey))[ownerKey];
      if (sender.tab?.id === undefined || sender.tab.id !== owner) return failure('not_allowed', 'only the chat tab of this workflow runs its actions');
      if (!(await hasAccess(originOf(sender.url)))) return chatSiteRemoved(sender.url);
      return workflowTabs.runTabAction(message);
    }
    case Msg.PAGE_STATE: {
      const ownerKey = `owner:${message.workflowId}`;
      const owner = (await ext.storage.session.get(ownerKey))[ownerKey];
      if (sender.tab?.id === undefined || sender.tab.id !== owner) return failure('not_allowed', 'only the chat tab of this workflow reads its target');
      return pageStateOf(message);
    }
    case Msg.ASK_USER: {
      const ownerKey = `owner:${message.question?.workflowId}`;
      const owner = (await ext.storage.session.get(ownerKey))[ownerKey];
      if (sender.tab?.id === undefined || (owner !== undefined && owner !== sender.tab.id)) return failure('not_allowed', 'only the chat tab of this workflow asks about it');
      return askUser(message, sender);
    }
    case Msg.WITHDRAW_QUESTION: {
      if (sender.tab?.id === undefined) return failure('not_allowed', 'questions are withdrawn by chat tabs');
      await withdrawQuestions((q) => q.tabId === sender.tab.id && q.id === message.questionId);
      return { ok: true };
    }
    case Msg.SHOW_QUESTIONS: {
      if (sender.tab?.id === undefined) return failure('not_allowed', 'asked by chat tabs');
      const questions = (await ext.storage.session.get(QUESTIONS_KEY))[QUESTIONS_KEY] ?? [];
      if (questions.some((q) => q.tabId === sender.tab.id)) await showQuestionWindow().catch(() => {});
      return { ok: true };
    }
    case Msg.QUESTION_DUE: {
      if (sender.tab?.id === undefined && !fromExtensionPage(sender)) return failure('not_allowed', 'asked by chat tabs');
      await expireQuestions();
      return { ok: true };
    }
    case Msg.PENDING_QUESTIONS: {
      if (!fromExtensionPage(sender)) return failure('not_allowed', 'questions are shown by the extension\'s own pages');
      await expireQuestions();
      const questions = (await ext.storage.session.get(QUESTIONS_KEY))[QUESTIONS_KEY] ?? [];
      return { questions: questions.filter((q) => message.tabId === undefined || q.tabId === message.tabId) };
    }
    case Msg.ANSWER_QUESTION: {
      // Only the extension's own pages answer, never a content script (a page's words could
      // have moved it) and never a frame (an extension page framed by a site).
      if (!fromExtensionPage(sender)) return failure('not_allowed', 'answers come from the extension\'s own pages');
      return answerQuestion(message);
    }
    case Msg.STOP_WORKFLOW: {
      const ownerKey = `owner:${message.workflowId}`;
      const owner = (await ext.storage.session.get(ownerKey))[ownerKey];
      if (!fromExtensionPage(sender) && (sender.tab?.id === undefined || sender.tab.id !== owner)) return failure('not_allowed', 'only the user stops a workflow');
      return stopWorkflow(message);
    }
    case Msg.USER_DECISION: {
      // Only the extension's own pages (the panel) may send decisions, never a content script;
      // the only decision left is Stop (Allow and Deny answer questions: ANSWER_QUESTION).
      if (!fromExtensionPage(sender)) return failure('not_allowed', 'decisions come from the panel');
      if (message.answer !== 'stop') return failure('not_allowed', 'Allow and Deny answer a question');
      await ext.tabs.sendMessage(message.tabId, message);
      return { ok: true };
    }
    default:
      return failure('unknown_message', `unknown message type ${JSON.stringify(message?.type)}`);
  }
}

ext.runtime.onMessage.addListener((message, sender, sendResponse) => {
  // Only our own extension's pages and content scripts can reach onMessage; still, treat the
  // message as data and answer every call.
  handle(message, sender).then(sendResponse, (error) => sendResponse(failure('internal_error', String(error))));
  return true;
});

ext.tabs.onRemoved.addListener((tabId) => {
  ext.storage.session.remove([tabKey(tabId), logKey(tabId), refKey(tabId)]).catch(() => {});
  logChains.delete(tabId);
  withdrawQuestions((q) => q.tabId === tabId).catch(() => {});
});

// Exposed for the end-to-end tests, which read it through the worker (Chromium only).
globalThis.baiBackground = { coreReady, claimOnce };
