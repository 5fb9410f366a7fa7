// The marks a `screenshot` numbered, shown to the user on the target page itself: the same
// boxes and ref numbers the model sees in its picture, drawn in a closed shadow root of BAI's
// own element (the page cannot read or restyle it), never in the way of the pointer. It needs
// no capture permission: the boxes come from the page's own layout (computed by the Rust core
// for the screenshot). Boxes are where the elements were when the picture was taken: the page
// scrolling or resizing takes them away until the next screenshot. The panel's "Show the
// numbered marks on the page" turns it off.

const HOST_TAG = 'bai-marks';

let host = null;
let root = null;

function clear() {
  host?.remove();
  host = null;
  root = null;
  removeEventListener('scroll', clear, true);
  removeEventListener('resize', clear);
}

/** Shows `marks` ({number, x, y, width, height} in CSS pixels of the viewport). */
export function showMarks(marks) {
  clear();
  if (!Array.isArray(marks) || marks.length === 0) return;
  host = document.createElement(HOST_TAG);
  root = host.attachShadow({ mode: 'closed' });
  const style = document.createElement('style');
  style.textContent = `
    :host { all: initial; position: fixed; inset: 0; z-index: 2147483646; pointer-events: none; }
    .box { position: fixed; box-sizing: border-box; border: 2px solid #e0115f; pointer-events: none; }
    .label { position: absolute; left: -2px; top: -18px; font: bold 12px/16px sans-serif; color: #fff; white-space: nowrap;
             background: #e0115f; padding: 0 3px; pointer-events: none; }
    .label.inside { top: 0; }`;
  root.append(style);
  for (const mark of marks) {
    const box = document.createElement('div');
    box.className = 'box';
    box.dataset.ref = String(mark.number);
    box.style.left = `${mark.x}px`;
    box.style.top = `${mark.y}px`;
    box.style.width = `${mark.width}px`;
    box.style.height = `${mark.height}px`;
    const label = document.createElement('span');
    label.className = mark.y >= 18 ? 'label' : 'label inside';
    label.textContent = String(mark.number);
    box.append(label);
    root.append(box);
  }
  document.documentElement.append(host);
  // Marks at their old places would point at other elements.
  addEventListener('scroll', clear, { capture: true, once: true });
  addEventListener('resize', clear, { once: true });
}

/** Takes the marks away. */
export function hideMarks() {
  clear();
}

/** For the end-to-end tests: the refs shown now (a closed root cannot be read from the page). */
export function shownMarks() {
  return root ? [...root.querySelectorAll('.box')].map((box) => Number(box.dataset.ref)) : [];
}
