// The tabs a workflow owns (capability `tabs`): the tab it was bound to (`t1`) and the tabs its
// `open_tab` actions opened (`t2`, `t3`, ...). The table of each workflow lives here, in the
// background, in storage.session (it survives the worker being stopped, like the ledger), and
// the Rust core decides with it (crate/src/protocol/tabs.rs): which browser tab a `tab` field
// names, whether that tab may be acted on, and which tab issued a ref. Nothing else names a
// tab: a tab the page opened itself (window.open), or any other tab, is in no table.
//
// Every action still takes the one delivery path (runOnTarget in background.js: the ledger, the
// scope rules of the bound origin for the tab it acts on, the review in the page); this module
// only chooses the tab, and opens the new ones.

import { ext } from '../shared/browser.js';
import { Msg } from '../shared/messages.js';

const TABLE_PREFIX = 'owned-tabs:';
const tableKey = (workflowId) => `${TABLE_PREFIX}${workflowId}`;

/** How long a new tab may take to load its first page. */
const OPEN_LOAD_MS = 15000;

/**
 * @param {{
 *   core: any, coreReady: Promise<unknown>,
 *   failure: (code: string, message: string) => { error: { code: string, message: string } },
 *   originOf: (url: string) => string | null,
 *   targetFor: (workflowId: string) => Promise<any>,
 *   runOnTarget: (message: any, binding: any) => Promise<any>,
 *   refKey: (tabId: number) => string,
 *   installScopeRules: (workflowId: string, binding: any) => Promise<void>,
 *   removeScopeRules: (workflowId: string) => Promise<void>,
 *   isStopped: (workflowId: string) => Promise<boolean>,
 *   stoppedFailure: () => any,
 * }} deps
 */
export function ownedTabs(deps) {
  const { core, coreReady, failure, originOf, targetFor, runOnTarget, refKey, installScopeRules, removeScopeRules, isStopped, stoppedFailure } = deps;

  // The tables, by workflow id: loaded once when the worker starts, written through on change.
  const tables = new Map();
  const loaded = ext.storage.session.get(null).then((stored) => {
    for (const [key, table] of Object.entries(stored)) if (key.startsWith(TABLE_PREFIX) && !tables.has(key.slice(TABLE_PREFIX.length))) tables.set(key.slice(TABLE_PREFIX.length), table);
  }, () => {});

  // Changes to the tables run one at a time (a tab closing while an action picks it).
  /** @type {Promise<unknown>} */
  let chain = Promise.resolve();
  /**
   * @template T
   * @param {() => Promise<T>} task
   * @returns {Promise<T>}
   */
  function serially(task) {
    const next = chain.then(task);
    chain = next.catch(() => {});
    return next;
  }

  /** One command on a table, decided by the core. */
  async function decide(table, command) {
    await coreReady;
    return JSON.parse(core.owned_tabs(table ? JSON.stringify(table) : undefined, JSON.stringify(command)));
  }

  async function save(workflowId, table) {
    tables.set(workflowId, table);
    await ext.storage.session.set({ [tableKey(workflowId)]: table });
  }

  /** The workflow's table, made from its binding the first time (refs issued so far in the
   * bound tab are that tab's). */
  async function tableFor(workflowId, binding) {
    await loaded;
    if (tables.has(workflowId)) return tables.get(workflowId);
    const floor = (await ext.storage.session.get(refKey(binding.tabId)))[refKey(binding.tabId)] ?? 1;
    const answer = await decide(null, { new: { tab_id: binding.tabId, origin: binding.origin, ref_floor: floor } });
    await save(workflowId, answer.table);
    return answer.table;
  }

  /** Browser tab `tabId` closed or left the site: every table that owns it says so. */
  function ended(tabId, state) {
    return serially(async () => {
      await loaded;
      for (const [workflowId, table] of tables) {
        if (!table.tabs.some((tab) => tab.tab_id === tabId && tab.state === 'open')) continue;
        const answer = await decide(table, { ended: { tab_id: tabId, state } });
        if (answer.changed) await save(workflowId, answer.table);
      }
    });
  }

  const offOrigin = (url, origin) => Boolean(url) && url !== 'about:blank' && originOf(url) !== origin;

  ext.tabs.onRemoved.addListener((tabId) => {
    ended(tabId, 'closed').catch(() => {});
  });
  // A tab that shows a page off the bound origin (its own navigation, the user's, a redirect)
  // is refused from then on, even if it comes back.
  ext.tabs.onUpdated.addListener((tabId, change) => {
    if (!change.url) return;
    loaded.then(() => {
      const owners = [...tables.values()].filter((table) => table.tabs.some((tab) => tab.tab_id === tabId && tab.state === 'open'));
      if (owners.some((table) => offOrigin(change.url, table.origin))) return ended(tabId, 'left_bound_site');
      return undefined;
    }).catch(() => {});
  });

  /** The background's ref counter of every tab the table owns (the core takes the floor of
   * the next read above all of them: refs stay unique across the workflow's tabs). */
  async function counters(table) {
    const stored = await ext.storage.session.get(table.tabs.map((tab) => refKey(tab.tab_id)));
    return table.tabs.map((tab) => ({ tab_id: tab.tab_id, next: stored[refKey(tab.tab_id)] ?? 1 }));
  }

  /** The typed failure for a tab the table refuses, from the core's answer. */
  const refused = (answer) => ({ error: answer.error });

  /** Picks the tab `name` names for `action`: the core's verdict, then the browser's word that
   * it is still there and on the site. */
  function pick(workflowId, binding, name, action) {
    return serially(async () => {
      const table = await tableFor(workflowId, binding);
      const answer = await decide(table, { select: { tab: name ?? null, action, counters: await counters(table) } });
      if (answer.error) return answer;
      const { selected } = answer;
      const live = await ext.tabs.get(selected.tab_id).catch(() => null);
      if (!live || offOrigin(live.url, table.origin)) {
        const state = live ? 'left_bound_site' : 'closed';
        const after = await decide(table, { ended: { tab_id: selected.tab_id, state } });
        if (after.changed) await save(workflowId, after.table);
        // Asked again, the core now names the reason (tab_closed / left_bound_site).
        return decide(after.table, { select: { tab: selected.name, action } });
      }
      return { selected, live };
    });
  }

  /** Refs tab `name` issued while the action (or a page-state read) ran: from `from`, the
   * floor it was given, to its counter now. */
  function issued(workflowId, name, tabId, from) {
    return serially(async () => {
      const next = (await ext.storage.session.get(refKey(tabId)))[refKey(tabId)] ?? from;
      const table = tables.get(workflowId);
      if (!table) return;
      const answer = await decide(table, { issued: { tab: name, from, to: next } });
      await save(workflowId, answer.table);
    });
  }

  /**
   * The ref floor of the result's page-state read in the bound tab (`t1`) of a workflow that
   * has a table, decided by the core like every action's; null without a table (then every
   * ref so far is the bound tab's, and the table takes them as such when it is made).
   * @returns {Promise<number | null>}
   */
  function pageStateFloor(workflowId) {
    return serially(async () => {
      await loaded;
      const table = tables.get(workflowId);
      if (!table) return null;
      const answer = await decide(table, { floor: { counters: await counters(table) } });
      return answer.error ? null : answer.floor;
    });
  }

  /** The page-state read from `from` in the bound tab is over: its refs are `t1`'s. */
  const pageStateRead = (workflowId, binding, from) => issued(workflowId, 't1', binding.tabId, from);

  /**
   * Runs one action of a workflow that negotiated `tabs`, on the tab its `tab` field names (the
   * bound tab when absent); `tabs` lists the workflow's tabs and touches no page; `open_tab` is
   * reviewed in the bound tab like a navigation, then opened here.
   */
  async function runTabAction(message) {
    const { workflowId, action, tab } = message;
    const binding = await targetFor(workflowId);
    if (!binding) return failure('no_target', 'This workflow has no bound tab, so it has no tabs to choose from.');
    if (await isStopped(workflowId)) return stoppedFailure();
    if (action?.type === 'tabs') return listTabs(workflowId, binding);
    const picked = await pick(workflowId, binding, tab, action);
    if (picked.error) return refused(picked);
    const { selected, live } = picked;
    // Refs stay unique across the workflow's tabs: the core chose a floor above every owned
    // tab's counter and every ref it saw issued.
    const floor = selected.ref_floor;
    await ext.storage.session.set({ [refKey(selected.tab_id)]: floor });
    const scoped = { ...binding, tabId: selected.tab_id, url: live.url, title: live.title || binding.origin };
    let reply;
    try {
      reply = await runOnTarget(message, scoped);
    } finally {
      await issued(workflowId, selected.name, selected.tab_id, floor).catch(() => {});
    }
    if (reply?.error) return explained(workflowId, selected, reply);
    if (action.type === 'open_tab' && reply?.openTab) {
      const { openTab, ...answer } = reply;
      return openOwnedTab(workflowId, binding, openTab, answer);
    }
    return reply;
  }

  /** A delivery failure that the tab's closing or leaving explains is said as that. */
  async function explained(workflowId, selected, reply) {
    const code = reply.error.code;
    if (!['target_closed', 'target_out_of_scope', 'left_bound_site'].includes(code)) return reply;
    const live = await ext.tabs.get(selected.tab_id).catch(() => null);
    if (live && code === 'target_out_of_scope') await ended(selected.tab_id, 'left_bound_site');
    if (!live) await ended(selected.tab_id, 'closed');
    // `left_bound_site` from the action itself stopped the workflow (background.js); keep it.
    if (code === 'left_bound_site') return reply;
    const table = tables.get(workflowId);
    const again = table ? await decide(table, { select: { tab: selected.name, action: { type: 'tabs', payload: {} } } }) : null;
    return again?.error ? refused(again) : reply;
  }

  /** Waits until tab `tabId` shows a loaded page that is not its first about:blank. */
  function whenOpened(tabId) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(null, new Error('timeout')), OPEN_LOAD_MS);
      function finish(tab, error) {
        clearTimeout(timer);
        ext.tabs.onUpdated.removeListener(listener);
        ext.tabs.onRemoved.removeListener(removed);
        if (error) reject(error);
        else resolve(tab);
      }
      function listener(id, change, tab) {
        if (id === tabId && tab.status === 'complete' && tab.url && tab.url !== 'about:blank') finish(tab);
      }
      function removed(id) {
        if (id === tabId) finish(null, new Error('closed'));
      }
      ext.tabs.onUpdated.addListener(listener);
      ext.tabs.onRemoved.addListener(removed);
    });
  }

  /**
   * Opens the tab an allowed `open_tab` asked for: an empty tab first, owned at once (so its
   * closing counts), then the address under the bound origin's scope rules for that tab, as for
   * every request an action causes. A page that ends off the origin fails with
   * `left_bound_site` and the tab is refused from then on.
   */
  async function openOwnedTab(workflowId, binding, url, answer) {
    if (originOf(url) !== binding.origin) {
      return failure('navigation_out_of_scope', `${originOf(url) ?? url} is outside this workflow's site ${binding.origin}; BAI opens tabs only on it.`);
    }
    const created = await ext.tabs.create({ url: 'about:blank', active: false });
    const opened = await serially(async () => {
      const table = tables.get(workflowId);
      const result = table ? await decide(table, { open: { tab_id: created.id } }) : null;
      if (result?.table) await save(workflowId, result.table);
      return result;
    });
    if (!opened?.name) {
      await ext.tabs.remove(created.id).catch(() => {});
      return opened?.error ? refused(opened) : failure('no_target', 'This workflow has no tab table.');
    }
    const name = opened.name;
    let loadedTab = null;
    await installScopeRules(workflowId, { ...binding, tabId: created.id });
    try {
      const waiting = whenOpened(created.id);
      await ext.tabs.update(created.id, { url });
      loadedTab = await waiting.catch(() => null);
    } finally {
      await removeScopeRules(workflowId);
    }
    const now = loadedTab ?? (await ext.tabs.get(created.id).catch(() => null));
    if (!now) {
      await ended(created.id, 'closed');
      return failure('tab_closed', `Tab ${name} was closed before its page loaded; BAI did not act there.`);
    }
    if (offOrigin(now.url, binding.origin) || !loadedTab) {
      await ended(created.id, 'left_bound_site');
      return failure('left_bound_site', `Tab ${name} did not stay on this workflow's site ${binding.origin} (it went to ${originOf(now.url) ?? 'another page'} or did not load); BAI acts there no more. The workflow's other tabs still work.`);
    }
    const result = {
      action: 'open_tab',
      effects: [{ kind: 'tab_opened' }],
      data: { tab: name, url: now.url, title: (await pageTitle(created.id, now.title ?? '')).slice(0, 200) },
      ...(answer?.result?.allowed_by_rule ? { allowed_by_rule: answer.result.allowed_by_rule } : {}),
    };
    return { result, nextRef: answer?.nextRef };
  }

  /** The page's own title, from its content script once it runs (Firefox reports a tab's title
   * a moment after the load completes); `fallback` when it does not answer within 3 s. */
  async function pageTitle(tabId, fallback) {
    const deadline = Date.now() + 3000;
    for (;;) {
      const state = await ext.tabs.sendMessage(tabId, { type: Msg.PAGE_STATE, changes: false }, { frameId: 0 }).catch(() => null);
      if (typeof state?.title === 'string') return state.title;
      if (Date.now() > deadline) return fallback;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The `tabs` action: the workflow's tabs with the bound origin, state, whether alive and
   * (alive ones) their title. The core builds the rows from what the browser says of each open
   * tab now (never where a tab went after it left the site), and records the ones found closed
   * or gone elsewhere. */
  function listTabs(workflowId, binding) {
    return serially(async () => {
      const table = await tableFor(workflowId, binding);
      const live = [];
      for (const owned of table.tabs) {
        if (owned.state !== 'open') continue;
        const tab = await ext.tabs.get(owned.tab_id).catch(() => null);
        if (tab) live.push({ tab_id: owned.tab_id, on_site: !offOrigin(tab.url, table.origin), title: tab.title ?? '' });
      }
      const answer = await decide(table, { list: { live } });
      if (answer.error) return refused(answer);
      if (answer.changed) await save(workflowId, answer.table);
      return { result: { action: 'tabs', effects: [], data: { tabs: answer.tabs } } };
    });
  }

  /** Stop ends what every tab of the workflow has in flight (the bound tab is told by Stop). */
  async function stopTabs(workflowId) {
    await loaded;
    const table = tables.get(workflowId);
    if (!table) return;
    await Promise.all(table.tabs.slice(1).filter((tab) => tab.state === 'open').map((tab) => ext.tabs.sendMessage(tab.tab_id, { type: Msg.CANCEL_ACTIONS, workflowIds: [workflowId] }, { frameId: 0 }).catch(() => {})));
  }

  return { runTabAction, stopTabs, pageStateFloor, pageStateRead };
}
