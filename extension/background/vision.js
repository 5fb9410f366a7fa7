// The picture of a `screenshot` action. The target page's core listed the page (the same refs
// as `observe`), and said where each listed element is (numbered marks) and what a picture must
// hide (masks: secret fields, text the secret scan redacts, every frame). Here the browser takes
// the picture of the target's visible area, the page is asked for its masks once more (it may
// have changed meanwhile: both sets are painted), and the masks are painted opaque before the
// image goes anywhere. The unmasked capture lives only in this function's memory; only the
// masked image leaves, to the chat tab that attaches it to BAI's result message.
//
// Capture APIs: Firefox's `tabs.captureTab(tabId)` pictures any tab, also one in the background.
// Chromium has only `tabs.captureVisibleTab(windowId)`, the active tab of a window: a target
// that is not the visible tab of its window fails with `screenshot_target_hidden` (BAI never
// switches the user's tabs). Both need the `<all_urls>` host permission (or `activeTab`, which
// only a click on BAI's own button grants): it is optional, asked for when the user turns on
// pictures in the panel; pictures off (BAI's setting) or the permission missing fails with
// `screenshot_permission_missing`.

import * as core from '../pkg/bai.js';
import { ext } from '../shared/browser.js';
import { Msg } from '../shared/messages.js';
import { loadSettings } from '../shared/settings.js';

/** The optional permission the capture APIs need. */
export const PICTURE_PERMISSION = { origins: ['<all_urls>'] };

/** A picture not taken or not sent: its code and plain message come from the core
 * (crate/src/pictures.rs). */
const failure = (code, origin = '', detail = '') => ({ error: JSON.parse(core.picture_failure(code, origin, String(detail))) });

/** Draws the numbered marks, then the masks over everything (nothing is drawn over a mask). */
function compose(bitmap, viewport, marks, masks) {
  const scale = bitmap.width / viewport.width;
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext('2d');
  if (!context) throw new Error('no 2d context');
  context.drawImage(bitmap, 0, 0);
  const fontPx = Math.max(11, Math.round(12 * scale));
  context.font = `bold ${fontPx}px sans-serif`;
  context.textBaseline = 'top';
  for (const mark of marks) {
    const x = mark.x * scale;
    const y = mark.y * scale;
    context.lineWidth = Math.max(2, Math.round(2 * scale));
    context.strokeStyle = '#e0115f';
    context.strokeRect(x, y, mark.width * scale, mark.height * scale);
    const label = String(mark.number);
    const width = context.measureText(label).width + 6;
    const height = fontPx + 4;
    // The label sits above the box when there is room, so it covers none of the element.
    const labelY = y >= height ? y - height : y;
    context.fillStyle = '#e0115f';
    context.fillRect(x, labelY, width, height);
    context.fillStyle = '#ffffff';
    context.fillText(label, x + 3, labelY + 2);
  }
  context.fillStyle = '#000000';
  for (const mask of masks) {
    // Rounded outwards: no edge pixel of what it hides survives.
    const x = Math.floor(mask.x * scale);
    const y = Math.floor(mask.y * scale);
    context.fillRect(x, y, Math.ceil((mask.x + mask.width) * scale) - x, Math.ceil((mask.y + mask.height) * scale) - y);
  }
  return canvas;
}

async function dataUrlOf(blob) {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:${blob.type};base64,${btoa(binary)}`;
}

/** Takes the picture of the target tab's visible area (or fails with a typed code). */
async function capture(tabId, origin) {
  if (ext.tabs.captureTab) return ext.tabs.captureTab(tabId, { format: 'png' });
  const tab = await ext.tabs.get(tabId);
  const window = await ext.windows.get(tab.windowId);
  const hidden = () => failure('screenshot_target_hidden', origin);
  if (!tab.active || window.state === 'minimized') return hidden();
  const image = await ext.tabs.captureVisibleTab(tab.windowId, { format: 'png' });
  // The user may have switched tabs in that window meanwhile: then the picture is of another
  // page, and is dropped.
  const [active] = await ext.tabs.query({ active: true, windowId: tab.windowId });
  if (active?.id !== tabId) return hidden();
  return image;
}

/**
 * Turns the target's screenshot report into the masked picture: answers the reply with
 * `result.data.image` (what was attached: size, marks, masks) instead of the geometry, and the
 * picture itself as `image` (a PNG data URL, for the chat tab only); or a failure.
 */
export async function withPicture(reply, { tabId, origin }) {
  const data = reply?.result?.data;
  const first = data?.vision;
  if (!first || !Array.isArray(first.masks) || !first.viewport?.width) {
    return failure('screenshot_masks_unavailable');
  }
  // Pictures are on only when the user turned them on (BAI's setting) and the browser still
  // grants the capture permission (see panel.js setupPictures for why Chromium keeps it).
  if (!(await loadSettings()).pictures || !(await ext.permissions.contains(PICTURE_PERMISSION))) {
    return failure('screenshot_permission_missing');
  }
  let shot;
  try {
    shot = await capture(tabId, origin);
  } catch (error) {
    return failure('screenshot_failed', origin, error?.message ?? error);
  }
  if (typeof shot !== 'string') return shot;
  // The masks once more, after the picture: what moved in between is hidden at both places.
  let second;
  try {
    const answer = await ext.tabs.sendMessage(tabId, { type: Msg.SCREEN_MASKS }, { frameId: 0 });
    second = answer?.masks;
  } catch {
    second = null;
  }
  if (!second || !Array.isArray(second.masks)) {
    return failure('screenshot_masks_unavailable');
  }
  const moved = ['width', 'height', 'scroll_x', 'scroll_y'].some((key) => second.viewport?.[key] !== first.viewport[key]);
  if (moved) {
    return failure('screenshot_page_moved');
  }
  let image;
  let width;
  let height;
  try {
    const bitmap = await createImageBitmap(await (await fetch(shot)).blob());
    ({ width, height } = bitmap);
    const canvas = compose(bitmap, first.viewport, first.marks ?? [], [...first.masks, ...second.masks]);
    bitmap.close();
    image = await dataUrlOf(await canvas.convertToBlob({ type: 'image/png' }));
  } catch (error) {
    return failure('screenshot_failed', origin, error?.message ?? error);
  }
  const { vision: _geometry, ...listing } = data;
  const masked = first.masks.length;
  const result = { ...reply.result, data: { ...listing, image: { type: 'image/png', width, height, marks: (first.marks ?? []).map((m) => m.number), masked } } };
  return { ...reply, result, image };
}
