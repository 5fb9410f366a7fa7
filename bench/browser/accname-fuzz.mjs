// A differential fuzzer of accessible names and roles: random but plausible markup around a
// target (form controls, labels, aria-label/aria-labelledby chains, title/placeholder/alt,
// figure/table/fieldset captions, role= values, name from content with nested, hidden and
// generated content, embedded controls, SVG titles, details/summary, open shadow roots with
// slots), every element of it named by us (the bench build's `bench_name_role`, inside the
// style-sheet scan as the selectors run it), by Chromium (its accessibility tree over CDP) and,
// where we differ from Chromium, by Firefox (geckodriver's computedlabel / computedrole). A
// research tool, not a test: where both browsers agree and we differ it is likely our bug;
// where they disagree the spec decides (https://w3c.github.io/accname/, html-aam).
//
//   BAI_FAST=1 with the bench feature builds tests/fixtures/build/bench-pkg/ (see scripts/bench)
//   node bench/browser/accname-fuzz.mjs [--seed N] [--count N] > fuzz.json
//   node bench/browser/accname-fuzz.mjs --html '<button id="t">…</button>'   (one case, every element)
//
// Cases use the format of tests/fixtures/dom/accname/cases.json (`data-shadow` holds the markup
// of an open shadow root), so a minimised case is pasted there as it is. The same seed gives
// the same cases. Output: counts, then each element where we differ, grouped into
// `agree` (both browsers agree with each other, not with us) and `disagree` (the browsers
// differ from each other too).

import fs from 'node:fs';
import { BROWSERS } from '../../tests/e2e/lib/browsers.mjs';
import { startServer } from '../../tests/e2e/lib/server.mjs';
import { loadBenchCore, openAccessibilityPage } from './accname-page.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i < 0 ? fallback : args[i + 1];
};
const SEED = Number(opt('seed', 1));
const COUNT = Number(opt('count', 200));
const ONE = opt('html', null);
const FILE = opt('file', null);

// mulberry32: a small seeded generator, so a seed reproduces its cases.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STYLE = `<style>.bf::before{content:"Pre "}.af::after{content:" post"}.al::before{content:"x" / "alt"}.bb::before{content:"Blk";display:block}.at::after{content:attr(data-x)}.blk{display:block}.ib{display:inline-block}.dn{display:none}.vh{visibility:hidden}.vv{visibility:visible}.fl{display:flex}.up{text-transform:uppercase}.ct{display:contents}</style>`;
const WORDS = ['Delete', 'account', 'Save', 'Cancel', 'alpha', 'beta', 'gamma', 'OK', 'Next', 'Remove', 'file', 'go'];
const ROLES = ['button', 'link', 'checkbox', 'heading', 'img', 'presentation', 'none', 'menuitem', 'tab', 'option', 'textbox', 'combobox', 'listbox', 'spinbutton', 'slider', 'group', 'region', 'radio', 'switch', 'treeitem', 'cell', 'row', 'list', 'listitem', 'navigation', 'dialog', 'searchbox', 'progressbar', 'meter', 'tooltip', 'term', 'generic', 'paragraph', 'figure', 'menu', 'toolbar', 'note', 'status', 'bogus'];
const el = (tag, attrs, inner) => `<${tag}${attrs}>${inner}</${tag}>`;
const esc = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

function generator(seed) {
  const r = rng(seed);
  const pick = (list) => list[Math.floor(r() * list.length)];
  const chance = (p) => r() < p;
  const word = () => pick(WORDS);
  let idCount = 0;
  const newId = () => `i${++idCount}`;
  // Elements referenced by aria-labelledby, placed around the target.
  let refs = [];
  const sp = () => pick(['', ' ', ' ', '\n  ']);

  function control(depth) {
    switch (Math.floor(r() * 9)) {
      case 0:
        return `<input${chance(0.5) ? ` value="${word()}"` : ''}${chance(0.3) ? ` aria-label="${word()}"` : ''}${chance(0.2) ? ` title="${word()}"` : ''}>`;
      case 1: {
        const n = 1 + Math.floor(r() * 3);
        const sel = Math.floor(r() * (n + 1));
        let o = '';
        for (let i = 0; i < n; i++) o += `<option${i === sel ? ' selected' : ''}${chance(0.2) ? ` label="${word()}"` : ''}>${word()}</option>`;
        return `<select${chance(0.3) ? ' multiple' : ''}${chance(0.2) ? ` aria-label="${word()}"` : ''}>${o}</select>`;
      }
      case 2:
        return `<input type="range"${chance(0.5) ? ` value="${Math.floor(r() * 100)}"` : ''}${chance(0.3) ? ` aria-valuetext="${word()}"` : ''}${chance(0.3) ? ` min="0" max="10"` : ''}>`;
      case 3:
        return `<textarea${chance(0.3) ? ` aria-label="${word()}"` : ''}>${chance(0.6) ? word() : ''}</textarea>`;
      case 4:
        return `<input type="checkbox"${chance(0.5) ? ' checked' : ''}${chance(0.3) ? ` aria-label="${word()}"` : ''}>`;
      case 5:
        return `<span role="${pick(['textbox', 'combobox', 'listbox', 'slider', 'spinbutton', 'button', 'checkbox'])}"${chance(0.4) ? ` aria-valuenow="${Math.floor(r() * 10)}"` : ''}${chance(0.3) ? ` aria-label="${word()}"` : ''}>${content(depth + 1, 1)}</span>`;
      case 6:
        return `<input type="${pick(['number', 'email', 'search', 'submit', 'button', 'reset', 'image', 'password', 'url', 'date', 'color', 'file'])}"${chance(0.5) ? ` value="${chance(0.8) ? word() : '3'}"` : ''}${chance(0.3) ? ` alt="${word()}"` : ''}${chance(0.3) ? ` placeholder="${word()}"` : ''}>`;
      case 7:
        return el(pick(['meter', 'progress']), chance(0.7) ? ` value="0.${Math.floor(r() * 9) + 1}"` : '', word());
      default:
        return `<button${chance(0.3) ? ` aria-label="${word()}"` : ''}>${content(depth + 1, 1)}</button>`;
    }
  }

  function item(depth) {
    const k = r();
    if (depth > 3 || k < 0.3) return `${sp()}${word()}${sp()}`;
    const n = Math.floor(r() * 30);
    switch (n) {
      case 0:
      case 1:
        return el(pick(['span', 'b', 'em', 'code', 'small', 'strong']), chance(0.2) ? ` title="${word()}"` : '', content(depth + 1));
      case 2:
        return el(pick(['div', 'p', 'li']), '', content(depth + 1));
      case 3:
        return '<br>';
      case 4:
        return `<img${chance(0.8) ? ` alt="${chance(0.8) ? word() : ''}"` : ''}${chance(0.3) ? ` title="${word()}"` : ''}${chance(0.2) ? ` aria-label="${word()}"` : ''} src="data:,">`;
      case 5: {
        const how = pick(['hidden', 'aria-hidden="true"', 'class="dn"', 'class="vh"', 'style="display:none"', 'aria-hidden="false"']);
        const inner = chance(0.3) ? `<span class="vv">${word()}</span>` : word();
        return `<span ${how}>${inner}</span>`;
      }
      case 6:
        return `<span class="${pick(['bf', 'af', 'al', 'bb', 'at', 'ib', 'blk', 'fl', 'up', 'ct'])}" data-x="${word()}">${content(depth + 1, 1)}</span>`;
      case 7:
      case 8:
        return control(depth);
      case 9:
        return `<svg width="10" height="10"${chance(0.3) ? ' role="img"' : ''}${chance(0.2) ? ` aria-label="${word()}"` : ''}><title>${word()}</title><circle r="3"></circle></svg>`;
      case 10:
        return `<span role="${pick(ROLES)}"${chance(0.3) ? ` aria-label="${word()}"` : ''}${chance(0.2) ? ` title="${word()}"` : ''}>${content(depth + 1)}</span>`;
      case 11:
        return `<a${chance(0.7) ? ' href="#"' : ''}>${content(depth + 1, 2)}</a>`;
      case 12: {
        const id = newId();
        refs.push(id);
        return `<span id="${id}">${content(depth + 1, 1)}</span>`;
      }
      case 13:
        return `<label>${content(depth + 1, 1)}</label>`;
      case 14:
        return `<abbr title="${word()}">${word()}</abbr>`;
      case 15:
        return `<span tabindex="0"${chance(0.5) ? ' role="none"' : ''}>${content(depth + 1, 1)}</span>`;
      case 16:
        return el(pick(['h2', 'h3']), '', content(depth + 1, 1));
      case 17:
        return `<ul><li>${word()}</li><li>${word()}</li></ul>`;
      case 18:
        return `<table><tr><td>${word()}</td><td>${word()}</td></tr></table>`;
      case 19:
        return `<details${chance(0.5) ? ' open' : ''}><summary>${word()}</summary>${word()}</details>`;
      case 20:
        return `<span style="${pick(['display:inline-block', 'display:block', 'float:left', 'position:absolute', 'display:table-cell', 'white-space:pre'])}">${content(depth + 1, 1)}</span>`;
      case 21:
        return `<figure><img alt="${word()}" src="data:,"><figcaption>${word()}</figcaption></figure>`;
      case 22:
        return `<span aria-label="${chance(0.8) ? word() : ' '}">${content(depth + 1, 1)}</span>`;
      case 23:
        return `<span aria-labelledby="${chance(0.5) ? 'l1' : 'nope'}">${content(depth + 1, 1)}</span>`;
      case 24:
        return `<span aria-owns="${pick(['l2', 'l3', 'nope'])}">${content(depth + 1, 1)}</span>`;
      case 25:
        return `<span style="${pick(['text-transform:uppercase', 'text-transform:capitalize', 'display:contents', 'content-visibility:hidden', 'opacity:0', 'width:0;height:0;overflow:hidden;display:inline-block'])}">${content(depth + 1, 1)}</span>`;
      case 26:
        return `<span hidden="until-found">${word()}</span>`;
      case 27:
        return `<q>${word()}</q>`;
      case 28:
        return `<span role="${pick(['presentation', 'none'])}"${chance(0.5) ? ` aria-label="${word()}"` : ''}${chance(0.3) ? ' tabindex="-1"' : ''}>${content(depth + 1, 1)}</span>`;
      default:
        return el(pick(['ins', 'del', 'mark', 'sub', 'sup', 'time', 'dfn', 'kbd', 'bdi']), '', word());
    }
  }

  function content(depth, max = 3) {
    const n = 1 + Math.floor(r() * max);
    let out = '';
    for (let i = 0; i < n; i++) out += item(depth);
    return out;
  }

  // The target's own attributes: naming sources picked at random.
  function nameAttrs(kind) {
    let a = '';
    if (chance(0.2)) a += ` aria-label="${pick([word(), `${word()} ${word()}`, '', ' '])}"`;
    if (chance(0.25)) {
      const ids = [];
      const n = 1 + Math.floor(r() * 3);
      for (let i = 0; i < n; i++) ids.push(pick(['l1', 'l2', 'l3', 't', 'missing', 'l1', 'i1', 'i2']));
      a += ` aria-labelledby="${ids.join(' ')}"`;
    }
    if (chance(0.2)) a += ` title="${word()}"`;
    if (kind === 'field' && chance(0.3)) a += ` placeholder="${word()}"`;
    if (chance(0.05)) a += ' aria-hidden="true"';
    if (chance(0.05)) a += ' tabindex="0"';
    return a;
  }

  function target() {
    const kind = Math.floor(r() * 30);
    switch (kind) {
      case 0:
      case 1:
        return { html: `<button id="t"${nameAttrs('button')}>${content(0)}</button>`, labelable: true };
      case 2: {
        const type = pick(['submit', 'reset', 'button', 'image']);
        return {
          html: `<input id="t" type="${type}"${chance(0.5) ? ` value="${pick([word(), '', ' '])}"` : ''}${chance(0.4) ? ` alt="${word()}"` : ''}${nameAttrs('button')}>`,
          labelable: type !== 'image',
        };
      }
      case 3:
      case 4: {
        const type = pick(['', 'text', 'email', 'search', 'tel', 'url', 'number', 'password', 'checkbox', 'radio', 'range', 'date', 'file', 'color']);
        return {
          html: `<input id="t"${type ? ` type="${type}"` : ''}${chance(0.4) ? ` value="${chance(0.7) ? word() : '5'}"` : ''}${chance(0.1) ? ' list="dl"' : ''}${nameAttrs('field')}>${chance(0.1) ? '<datalist id="dl"><option value="a"></option></datalist>' : ''}`,
          labelable: true,
        };
      }
      case 5: {
        let o = '';
        for (let i = 0; i < 3; i++) o += `<option${chance(0.3) ? ' selected' : ''}>${word()}</option>`;
        return { html: `<select id="t"${chance(0.3) ? ' multiple' : ''}${chance(0.2) ? ' size="3"' : ''}${nameAttrs('field')}>${o}</select>`, labelable: true };
      }
      case 6:
        return { html: `<textarea id="t"${nameAttrs('field')}>${chance(0.5) ? word() : ''}</textarea>`, labelable: true };
      case 7:
        return { html: el(pick(['output', 'meter', 'progress']), ` id="t"${chance(0.6) ? ' value="0.5"' : ''}${nameAttrs('')}`, word()), labelable: true };
      case 8:
      case 9:
        return { html: `<a id="t"${chance(0.8) ? ' href="#"' : ''}${nameAttrs('')}>${content(0)}</a>`, labelable: false };
      case 10:
      case 11:
      case 12:
        return { html: `<div id="t" role="${pick(ROLES)}"${chance(0.3) ? ' tabindex="0"' : ''}${nameAttrs('')}>${content(0)}</div>`, labelable: false };
      case 13:
        return { html: `<img id="t" src="data:,"${chance(0.7) ? ` alt="${pick([word(), '', ' '])}"` : ''}${nameAttrs('')}>`, labelable: false };
      case 14:
        return { html: `<figure id="t"${nameAttrs('')}>${content(1, 1)}${chance(0.8) ? `<figcaption>${content(1, 2)}</figcaption>` : ''}</figure>`, labelable: false };
      case 15:
        return { html: `<table id="t"${nameAttrs('')}>${chance(0.8) ? `<caption>${content(1, 2)}</caption>` : ''}<tr><td>${word()}</td></tr></table>`, labelable: false };
      case 16:
        return { html: `<fieldset id="t"${nameAttrs('')}>${chance(0.8) ? `<legend>${content(1, 2)}</legend>` : ''}${content(1, 1)}</fieldset>`, labelable: false };
      case 17:
        return chance(0.5)
          ? { html: `<details${chance(0.5) ? ' open' : ''}><summary id="t"${nameAttrs('')}>${content(0)}</summary>${word()}</details>`, labelable: false }
          : { html: `<details id="t"${chance(0.5) ? ' open' : ''}${nameAttrs('')}><summary>${content(1, 1)}</summary>${word()}</details>`, labelable: false };
      case 18:
        return { html: el(pick(['h1', 'h2', 'h4']), ` id="t"${nameAttrs('')}`, content(0)), labelable: false };
      case 19:
        return {
          html: `<svg id="t" width="10" height="10"${chance(0.5) ? ' role="img"' : ''}${nameAttrs('')}>${chance(0.7) ? `<title>${word()}</title>` : ''}<circle r="3"></circle></svg>`,
          labelable: false,
        };
      case 20:
        return { html: el(pick(['section', 'nav', 'aside', 'form', 'dialog', 'li', 'span', 'label']), ` id="t"${nameAttrs('')}`, content(0)), labelable: false };
      case 22:
        return { html: `<div id="t" role="${pick(['BUTTON', 'button link', 'foo button', 'none button', ' link ', 'presentation', 'img'])}"${nameAttrs('')}>${content(0)}</div>`, labelable: false };
      case 23:
        return { html: `<ul role="tree"><li role="treeitem" id="t"${nameAttrs('')}>${content(1, 2)}<ul role="group"><li role="treeitem">${word()}</li></ul></li></ul>`, labelable: false };
      case 24:
        return { html: `<div role="menu"><div id="t" role="${pick(['menuitem', 'menuitemcheckbox', 'menuitemradio'])}"${nameAttrs('')}>${content(1, 2)}${chance(0.5) ? `<div role="menu"><div role="menuitem">${word()}</div></div>` : ''}</div></div>`, labelable: false };
      case 25:
        return { html: `<select${chance(0.5) ? ' size="4"' : ''}><optgroup label="${word()}"><option id="t"${chance(0.3) ? ` label="${word()}"` : ''}${nameAttrs('')}>${word()} ${chance(0.3) ? word() : ''}</option></optgroup></select>`, labelable: false };
      case 26:
        return { html: `<img src="data:," usemap="#m" alt="${word()}"><map name="m"><area id="t" href="#" shape="rect" coords="0,0,5,5"${chance(0.7) ? ` alt="${word()}"` : ''}${nameAttrs('')}></map>`, labelable: false };
      case 27:
        return { html: `<fieldset${chance(0.5) ? ' disabled' : ''}><legend>${word()}</legend><button id="t"${nameAttrs('')}>${content(1, 2)}</button></fieldset>`, labelable: true };
      case 28:
        return { html: `<dialog open id="t"${nameAttrs('')}>${chance(0.5) ? `<h2>${word()}</h2>` : ''}${content(1, 2)}</dialog>`, labelable: false };
      case 29:
        return { html: `<div role="tablist"><div role="tab" id="t"${chance(0.5) ? ' aria-selected="true"' : ''}${nameAttrs('')}>${content(1, 2)}</div></div>`, labelable: false };
      default:
        return { html: `<div id="t" role="${pick(['listbox', 'menu', 'tablist', 'radiogroup'])}"${nameAttrs('')}><div role="${pick(['option', 'menuitem', 'tab', 'radio'])}"${chance(0.5) ? ' aria-selected="true"' : ''}>${content(1)}</div></div>`, labelable: false };
    }
  }

  function refElement(id) {
    const how = r();
    if (how < 0.15) return `<span id="${id}" hidden>${content(1, 2)}</span>`;
    if (how < 0.25) return `<span id="${id}" class="dn">${content(1, 2)}</span>`;
    if (how < 0.35) return `<span id="${id}" aria-label="${word()}">${content(1, 1)}</span>`;
    if (how < 0.42) return `<span id="${id}" aria-labelledby="${pick(['l1', 'l2', 'l3', 't'])}">${word()}</span>`;
    if (how < 0.5) return `<label id="${id}">${word()} ${control(1)}</label>`;
    if (how < 0.55) return `<span id="${id}" title="${word()}"></span>`;
    if (how < 0.6) return control(1).replace(/^<(\w+)/, `<$1 id="${id}"`);
    return el(pick(['span', 'div', 'p']), ` id="${id}"`, content(1, 2));
  }

  return function generate() {
    idCount = 0;
    refs = [];
    let { html: t, labelable } = target();
    // Labels for a labelable target: around it, pointing at it, several, hidden.
    if (labelable) {
      const how = r();
      if (how < 0.25) t = `<label${chance(0.1) ? ' hidden' : ''}>${content(1, 2)}${t}${chance(0.5) ? content(1, 1) : ''}</label>`;
      else if (how < 0.45) t = `<label for="t"${chance(0.1) ? ' class="dn"' : ''}>${content(1, 2)}</label>${t}`;
      else if (how < 0.55) t = `<label for="t">${content(1, 1)}</label>${t}<label for="t">${content(1, 1)}</label>`;
      else if (how < 0.6) t = `<label for="t">${word()}</label><label>${word()}${t}</label>`;
    }
    const before = [];
    const after = [];
    for (const id of ['l1', 'l2', 'l3']) if (chance(0.7)) (chance(0.5) ? before : after).push(refElement(id));
    const markup = `${STYLE}${before.join('')}<div>${t}</div>${after.join('')}`;
    // An open shadow root: everything inside it (ids resolve there), or the target slotted.
    const shadow = r();
    if (shadow < 0.1) return `<div data-shadow="${esc(markup)}"></div>`;
    if (shadow < 0.18) {
      const slotted = `${STYLE}<div id="t" role="${pick(['button', 'link', 'heading', 'option'])}" data-shadow="${esc(`${pick(['', word(), '<b>x</b>'])}<slot>${word()}</slot>${chance(0.5) ? '<slot name="s"></slot>' : ''}${chance(0.3) ? `<span class="dn">${word()}</span>` : ''}`)}">${content(0, 2)}${chance(0.4) ? `<span slot="s">${word()}</span>` : ''}</div>`;
      return slotted;
    }
    return markup;
  };
}

// Every element of a mounted case in one order (the light tree, each open shadow root before
// its host's children), the same in the page and over CDP.
const MOUNT = (html) => {
  document.body.innerHTML = html;
  const host = document.querySelector('[data-shadow]');
  if (host) host.attachShadow({ mode: 'open' }).innerHTML = host.getAttribute('data-shadow');
  const out = [];
  const visit = (el) => {
    out.push(el);
    if (el.shadowRoot) for (const c of el.shadowRoot.children) visit(c);
    for (const c of el.children) visit(c);
  };
  for (const c of document.body.children) visit(c);
  return out;
};
const describe = (el) => {
  const clone = el.cloneNode(false);
  return `${clone.outerHTML.slice(0, 160)}${el.id === 't' ? '' : ''}`;
};
const norm = (s) => (s ?? '').trim().replace(/\s+/g, ' ');
// Role spellings brought together: ARIA 1.3's `image`, and "no role" however it is written.
const normRole = (role) => {
  const r = (role ?? '').trim();
  if (r === 'image') return 'img';
  // Chromium's internal names for what Firefox (and ARIA) call a table's parts, a summary, or
  // no role at all.
  const chromium = { LayoutTable: 'table', LayoutTableRow: 'row', LayoutTableCell: 'cell', DisclosureTriangle: 'button' };
  if (chromium[r]) return chromium[r];
  if (['Abbr', 'Figcaption', 'LineBreak', 'Legend', 'StaticText'].includes(r)) return '';
  if (['', 'none', 'presentation', 'generic', 'ignored', 'LabelText'].includes(r)) return '';
  return r;
};

const cases = [];
if (ONE) cases.push(ONE);
else if (FILE) for (const c of JSON.parse(fs.readFileSync(FILE, 'utf8'))) cases.push(c.html);
else {
  const generate = generator(SEED);
  for (let i = 0; i < COUNT; i++) cases.push(generate());
}

const server = await startServer();
const results = [];
const t0 = Date.now();
try {
  const chromium = await BROWSERS.chromium.launch();
  try {
    const { page, cdp } = await openAccessibilityPage(chromium, server);
    await loadBenchCore(page, server.origin);
    await page.evaluate(`window.__mount = ${MOUNT.toString()}; window.__describe = ${describe.toString()}`);
    for (const [ci, html] of cases.entries()) {
      const described = await page.evaluate(async (html) => {
        const els = window.__mount(html);
        await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
        const ours = JSON.parse(window.__bai.bench_name_role(els));
        return els.map((el, i) => ({ tag: el.localName, markup: window.__describe(el), target: el.id === 't', ours: ours[i] }));
      }, html);
      const { root } = await cdp.send('DOM.getDocument', { depth: -1, pierce: true });
      const backend = [];
      const walk = (node, inBody) => {
        const isEl = node.nodeType === 1;
        if (isEl && inBody) backend.push(node.backendNodeId);
        for (const sr of node.shadowRoots ?? []) if (sr.shadowRootType === 'open') for (const c of sr.children ?? []) walk(c, inBody);
        for (const c of node.children ?? []) walk(c, inBody || (isEl && node.localName === 'body'));
      };
      walk(root, false);
      const { nodes } = await cdp.send('Accessibility.getFullAXTree');
      const byBackend = new Map();
      for (const n of nodes) if (n.backendDOMNodeId !== undefined && !byBackend.has(n.backendDOMNodeId)) byBackend.set(n.backendDOMNodeId, n);
      for (const [i, d] of described.entries()) {
        if (d.tag === 'style') continue;
        const n = byBackend.get(backend[i]);
        const chromiumRole = !n || n.ignored ? null : (n.role?.value ?? '');
        results.push({
          case: ci,
          index: i,
          target: d.target,
          markup: d.markup,
          ours: { name: norm(d.ours[0]), role: d.ours[1] },
          chromium: chromiumRole === null ? null : { name: norm(n.name?.value), role: chromiumRole },
        });
      }
    }
  } finally {
    await chromium.close();
  }
  // Firefox only where we differ from Chromium (where we agree, at most the browsers disagree).
  const differs = (a, b) => a.name !== b.name || normRole(a.role) !== normRole(b.role);
  const suspects = results.filter((x) => x.chromium && differs(x.ours, x.chromium));
  const byCase = new Map();
  for (const s of suspects) (byCase.get(s.case) ?? byCase.set(s.case, []).get(s.case)).push(s);
  const firefox = await BROWSERS.firefox.launch();
  try {
    const tab = await firefox.newTab(`${server.origin}/plain.html`);
    const session = firefox.session;
    for (const [ci, list] of byCase) {
      const els = await tab.evaluate(MOUNT, cases[ci]);
      await tab.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))).then(() => true)).catch(() => {});
      for (const s of list) {
        const el = els[s.index];
        const id = Object.values(el)[0];
        try {
          const name = await session.command('GET', `/element/${id}/computedlabel`);
          const role = await session.command('GET', `/element/${id}/computedrole`);
          s.firefox = { name: norm(name), role };
        } catch (error) {
          s.firefox = { error: String(error.message).slice(0, 100) };
        }
      }
    }
  } finally {
    await firefox.close();
  }
  const agree = [];
  const disagree = [];
  for (const s of suspects) {
    if (!s.firefox || s.firefox.error) continue;
    const f = s.firefox;
    const c = s.chromium;
    const nameBug = c.name === f.name && c.name !== s.ours.name;
    const roleBug = normRole(c.role) === normRole(f.role) && normRole(c.role) !== normRole(s.ours.role);
    const entry = { html: cases[s.case], case: s.case, element: s.markup, target: s.target, ours: s.ours, chromium: c, firefox: f };
    if (nameBug || roleBug) agree.push({ ...entry, what: [nameBug && 'name', roleBug && 'role'].filter(Boolean).join('+') });
    else disagree.push(entry);
  }
  const out = {
    seed: SEED,
    cases: cases.length,
    elements: results.length,
    compared: results.filter((x) => x.chromium).length,
    suspects: suspects.length,
    agree: agree.length,
    disagree: disagree.length,
    seconds: Math.round((Date.now() - t0) / 1000),
    agreeList: agree,
    disagreeList: ONE || process.env.AX_ALL ? disagree : disagree.slice(0, 200),
  };
  if (ONE) out.all = results;
  process.stdout.write(JSON.stringify(out, null, 1) + '\n');
} finally {
  await server.close();
}
