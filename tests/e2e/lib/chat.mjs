// Helpers for driving the local chat page (tests/fixtures/pages/chat/) as a model and a user would.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const PROMPT_TEMPLATE = fs.readFileSync(path.resolve(here, '../../../crate/src/protocol/prompt.md'), 'utf8');

/** The protocol text a user pastes, with `workflowId` in place of the placeholder. */
export function protocolPrompt(workflowId) {
  return PROMPT_TEMPLATE.replaceAll('{{RANDOM_UUID}}', workflowId);
}

/** The banner's dataset plus its visible text, or null before it exists. */
export function bannerState() {
  const host = document.querySelector('bai-banner');
  return host && host.dataset.state ? { ...host.dataset, text: host.shadowRoot.textContent.replace(/\s+/g, ' ').trim() } : null;
}

/** A 0.3 action line. */
export function actionLine(workflowId, nonce, actionId, type, payload) {
  return `BAI_ACTION ${JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'action', ack_nonce: nonce, action_id: actionId, type, payload })}`;
}

/** The 0.3 handshake block a model writes. */
export function handshakeBlock(workflowId) {
  return '```bai\n' + JSON.stringify({ protocol: 'BAI/0.3', workflow_id: workflowId, kind: 'handshake', state: 'awaiting_extension_ack', capabilities: ['action_lines'] }) + '\n```';
}

/** Puts a small target area on the chat page: a click counter and an email field whose values
 * are recorded by the page's own listeners (window.__target), not read from attributes. */
export function installTarget() {
  if (document.getElementById('target-area')) return;
  const area = document.createElement('div');
  area.id = 'target-area';
  area.style.cssText = 'padding:8px;border-bottom:1px solid #888';
  area.innerHTML = '<button id="counter" type="button">Clicked 0</button> <label>Email <input id="email" type="email"></label> <button id="buy" type="button">Buy now</button>';
  document.body.prepend(area);
  window.__target = { clicks: 0, email: '', purchases: 0 };
  area.querySelector('#buy').addEventListener('click', () => {
    window.__target.purchases += 1;
  });
  const counter = area.querySelector('#counter');
  counter.addEventListener('click', () => {
    window.__target.clicks += 1;
    counter.textContent = `Clicked ${window.__target.clicks}`;
  });
  area.querySelector('#email').addEventListener('input', (event) => {
    window.__target.email = event.target.value;
  });
}
