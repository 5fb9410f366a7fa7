// Messages between the content scripts, the background worker and the panel. Every message is
// an object tagged by `type`; these constants are the only place the tags are spelled.

export const Msg = Object.freeze({
  /** content -> background: the wasm core started (or failed to) in a tab. */
  CONTENT_READY: 'content_ready',
  /** panel -> background: what do you know about this tab? */
  TAB_STATUS: 'tab_status',
  /** background -> panel: something changed; re-read the status. */
  STATUS_CHANGED: 'status_changed',
});
