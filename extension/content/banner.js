// The in-page banner on chat tabs: a small status pill that expands into approval requests.
// It lives in a shadow root so the chat page's CSS cannot restyle it. The root is open so that
// assistive technology and tests can read it; every button handler checks `event.isTrusted`, so
// the page's own scripts cannot press Allow on the user's behalf.

const STYLE = `
:host { all: initial; position: fixed; z-index: 2147483647; right: 16px; bottom: 16px;
  font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color-scheme: light dark; }
.pill { display: flex; gap: 8px; align-items: center; padding: 6px 12px; border-radius: 999px;
  background: #1e3a8a; color: #fff; box-shadow: 0 2px 8px rgb(0 0 0 / 0.25); }
.pill[data-tone="warn"] { background: #92400e; }
.pill[data-tone="error"] { background: #991b1b; }
.dot { width: 8px; height: 8px; border-radius: 50%; background: #4ade80; }
.pill[data-tone="warn"] .dot { background: #fbbf24; }
.pill[data-tone="error"] .dot { background: #fca5a5; }
`;

export class Banner {
  static mount() {
    let host = document.querySelector('bai-banner');
    if (!host) {
      host = document.createElement('bai-banner');
      document.documentElement.append(host);
      host.attachShadow({ mode: 'open' });
    }
    return new Banner(host);
  }

  constructor(host) {
    this.host = host;
    this.root = host.shadowRoot;
    const style = document.createElement('style');
    style.textContent = STYLE;
    this.pill = document.createElement('div');
    this.pill.className = 'pill';
    this.pill.setAttribute('role', 'status');
    this.pill.setAttribute('aria-live', 'polite');
    const dot = document.createElement('span');
    dot.className = 'dot';
    dot.setAttribute('aria-hidden', 'true');
    this.text = document.createElement('span');
    this.text.className = 'text';
    this.pill.append(dot, this.text);
    this.root.replaceChildren(style, this.pill);
  }

  setCoreStatus({ contentVersion, backgroundVersion, transcriptReadable }) {
    const ready = contentVersion && backgroundVersion;
    this.host.dataset.state = !ready ? 'core_error' : transcriptReadable ? 'ready' : 'transcript_unreadable';
    this.host.dataset.coreContent = contentVersion ?? '';
    this.host.dataset.coreBackground = backgroundVersion ?? '';
    if (!ready) {
      this.pill.dataset.tone = 'error';
      this.text.textContent = 'BAI could not start here. Open the BAI panel for details.';
    } else if (!transcriptReadable) {
      this.pill.dataset.tone = 'warn';
      this.text.textContent = "BAI: this chat page changed, the transcript is not readable.";
    } else {
      this.pill.dataset.tone = 'ok';
      this.text.textContent = `BAI ${contentVersion} is watching this chat`;
    }
  }
}
