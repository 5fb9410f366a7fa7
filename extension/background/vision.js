// The picture of a `screenshot` action. The target page's core listed the page (the same refs
// as `observe`), and said where each listed element is (numbered marks) and what a picture must
// hide (masks: secret fields, text the secret scan redacts, every frame). Here a user
// stylesheet hides every frame, the browser takes the picture of the target's visible area, the
// stylesheet goes, the page is asked for its masks once more, the core checks that nothing
// moved or changed between the two looks (else no picture), and the masks are painted opaque
// before the image goes anywhere. Only then does the page get BAI's overlay of the marks. The
// unmasked capture lives only in this function's memory; only the masked image leaves, to the
// chat tab that attaches it to BAI's result message.
//
// Capture APIs: Firefox's `tabs.captureTab(tabId)` pictures any tab, also one in the background.
// Chromium has only `tabs.captureVisibleTab(windowId)`, the active tab of a window: a target
// that is not the visible tab of its window fails with `screenshot_target_hidden` (BAI never
// switches the user's tabs). Both need the `<all_urls>` host permission (or `activeTab`, which
// only a click on BAI's own button grants): it is optional, asked for when the user turns on
// pictures in the panel; pictures off (BAI's setting) or the permission missing fails with
// `screenshot_permission_missing`.

import * as core from '../pkg/background.js';
import { ext } from '../shared/browser.js';
import { Msg } from '../shared/messages.js';
import { loadSettings } from '../shared/settings.js';

/** The optional permission the capture APIs need. */
export const PICTURE_PERMISSION = { origins: ['<all_urls>'] };

/** A picture not taken or not sent: its code and plain message come from the core
 * (crate/src/pictures.rs). */
const failure = (code, origin = '', detail = '') => ({ error: JSON.parse(core.picture_failure(code, origin, String(detail))) });

/** Draws the numbered marks, then the masks over everything (nothing is drawn over a mask).
 * `scale`: image pixels per CSS pixel, per axis (checked by the core, see picture_check). */
function compose(bitmap, scale, marks, masks) {
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext('2d');
  if (!context) throw new Error('no 2d context');
  context.drawImage(bitmap, 0, 0);
  const fontPx = Math.max(11, Math.round(12 * scale.y));
  context.font = `bold ${fontPx}px sans-serif`;
  context.textBaseline = 'top';
  for (const mark of marks) {
    const x = mark.x * scale.x;
    const y = mark.y * scale.y;
    context.lineWidth = Math.max(2, Math.round(2 * scale.x));
    context.strokeStyle = '#e0115f';
    context.strokeRect(x, y, mark.width * scale.x, mark.height * scale.y);
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
    const x = Math.floor(mask.x * scale.x);
    const y = Math.floor(mask.y * scale.y);
    context.fillRect(x, y, Math.ceil((mask.x + mask.width) * scale.x) - x, Math.ceil((mask.y + mask.height) * scale.y) - y);
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
 * The user stylesheet in the target's top document while the picture is taken: every frame
 * paints nothing. Masks are boxes from layout, and a page can paint a frame (another origin's
 * card form it cannot read) outside its box (an SVG filter, a reflection, `element()`): hidden,
 * it paints nowhere. A user `!important` declaration beats every author rule and animation; a
 * transition would still outrank it, so none may start. BAI's own overlay (stale marks of an
 * earlier picture) is left out of the picture too.
 */
const HIDE_FRAMES = {
  origin: /** @type {'USER'} */ ('USER'),
  css: 'iframe,frame,embed,object,fencedframe,portal{visibility:hidden!important;opacity:0!important;transition:none!important;animation:none!important}bai-marks{display:none!important}',
};

/** The picture, taken with every frame hidden; the stylesheet goes again in any case. */
async function captureWithFramesHidden(tabId, origin) {
  const injection = { ...HIDE_FRAMES, target: { tabId, frameIds: [0] } };
  try {
    await ext.scripting.insertCSS(injection);
  } catch (error) {
    // No stylesheet, no picture: the frame masks alone do not stop a page from moving a
    // frame's painting.
    return failure('screenshot_failed', origin, error?.message ?? error);
  }
  try {
    let answer;
    try {
      answer = await ext.tabs.sendMessage(tabId, { type: Msg.SCREEN_FRAMES_HIDDEN }, { frameId: 0 });
    } catch {
      answer = null;
    }
    if (answer?.hidden !== true) return failure('screenshot_masks_unavailable');
    const shot = await capture(tabId, origin);
    // Still so after the capture, the stylesheet still in: a frame moved where the stylesheet
    // does not reach and back again meanwhile is no picture either.
    let after;
    try {
      after = await ext.tabs.sendMessage(tabId, { type: Msg.SCREEN_FRAMES_HIDDEN, after: true }, { frameId: 0 });
    } catch {
      after = null;
    }
    if (after?.hidden !== true) return failure('screenshot_page_moved');
    return shot;
  } finally {
    await ext.scripting.removeCSS(injection).catch(() => {});
  }
}

/** The look of the page as `picture_check` reads it. */
const lookOf = (vision) => JSON.stringify({ viewport: vision.viewport, masks: vision.masks, document: vision.document ?? '', origin: vision.origin ?? '' });

/**
 * Turns the target's screenshot report into the masked picture: answers the reply with
 * `result.data.image` (what was attached: size, marks, masks) instead of the geometry, and the
 * picture itself as `image` (a PNG data URL, for the chat tab only); or a failure. The user's
 * overlay of the marks is shown on the target only afterwards.
 */
export async function withPicture(reply, { tabId, origin }) {
  const outcome = await picture(reply, { tabId, origin });
  const first = reply?.result?.data?.vision;
  if (first) {
    await ext.tabs.sendMessage(tabId, { type: Msg.SHOW_MARKS, marks: first.marks ?? [], document: first.document }, { frameId: 0 }).catch(() => {});
  }
  return outcome;
}

async function picture(reply, { tabId, origin }) {
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
    shot = await captureWithFramesHidden(tabId, origin);
  } catch (error) {
    return failure('screenshot_failed', origin, error?.message ?? error);
  }
  if (typeof shot !== 'string') return shot;
  // The masks once more, after the picture, from whatever document is in the tab now.
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
  // The tab's address after the picture: still the bound site (the core compares the two
  // looks' documents and origins too).
  let tabUrl = '';
  try {
    tabUrl = (await ext.tabs.get(tabId)).url ?? '';
  } catch {
    tabUrl = '';
  }
  let tabOrigin = '';
  try {
    tabOrigin = new URL(tabUrl).origin;
  } catch {
    tabOrigin = '';
  }
  if (tabOrigin !== origin) return failure('screenshot_page_moved');
  let image;
  let width;
  let height;
  try {
    const bitmap = await createImageBitmap(await (await fetch(shot)).blob());
    ({ width, height } = bitmap);
    let scale;
    try {
      // The core decides: the same document and origin both times, nothing moved, no pinch
      // zoom, an image the size of the viewport; else no picture.
      scale = JSON.parse(core.picture_check(lookOf(first), lookOf(second), origin, width, height));
    } catch (error) {
      bitmap.close();
      if (typeof error?.code === 'string') return failure(error.code, origin);
      throw error;
    }
    const canvas = compose(bitmap, scale, first.marks ?? [], [...first.masks, ...second.masks]);
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
