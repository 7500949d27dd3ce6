/**
 * The devtools panel (`devtools/panel.js`, loaded by `mountDevtools()`): a button at the bottom right
 * and, when open, the calls (by key, method, path, transport, background or not, state with the
 * countdown of a waiting repeat), filters, the selected call's timeline and attempts, a timeline of
 * the calls shown, the live data (followers, live lists, muxws peers), and the actions (try again
 * now, cancel, copy a key, simulate offline, lose the next answer, export).
 *
 * It lives in a shadow root with a constructed stylesheet, takes no focus (a press on its buttons
 * keeps the focus where it was; only its path filter takes it, when clicked), and listens to no key.
 * It only reads the record (`services.store`): the app's calls go out as they would without it.
 */
import type { PanelServices } from '../devtools-subpath/services.js';
import type { CallView, LiveView } from '../devtools-subpath/store.js';
import { duration, h } from './dom.js';
import { exportCalls } from './export.js';
import { styles } from './styles.js';
import { endLabel, timeline, transportLabel } from './timeline.js';

/** The least time between two drawings of the panel while calls change (ms). */
const DRAW_MS = 400;

/** How many calls the list shows at first (the newest that pass the filters; "show more" adds more): the record may hold thousands. */
const SHOWN = 50;

type Tab = 'calls' | 'timeline' | 'live';

/** What a call's state reads like in the list. */
function stateText(call: CallView, now: number): string {
  switch (call.state) {
    case 'in-flight':
      return `in flight (attempt ${call.attempts.length || 1})`;
    case 'delay':
      return `repeat in ${duration((call.waitUntil ?? now) - now)} (${call.waitReason ?? 'unanswered'})`;
    case 'reconnect':
      return `waiting for its socket (${call.waitReason ?? 'connection lost'})`;
    case 'offline':
      return 'offline: waits to be online';
    default: {
      const settled = call.settled!;
      const status = settled.status ? ` ${settled.status}` : '';
      return settled.ok ? `settled${status}` : `failed${status || ` (${settled.ended})`}`;
    }
  }
}

/** The call failed (rejected). */
const failed = (call: CallView): boolean => call.state === 'settled' && !call.settled!.ok;

/**
 * Mounts the panel into a new host element appended to `parent`; `open`: the panel shows at once.
 * Returns the function that removes it (and stops its timer and subscription).
 */
export function mount(services: PanelServices, parent: Element, open: boolean): () => void {
  const { store } = services;
  const host = h('div', { 'data-fastapi-viewsets-devtools': '' });
  const root = host.attachShadow({ mode: 'open' });
  root.adoptedStyleSheets = [styles()];
  // a press keeps the app's focus where it is (the path filter, a text field, takes it when clicked)
  root.addEventListener('mousedown', (event) => {
    if (!(event.target instanceof HTMLInputElement)) event.preventDefault();
  });

  const ui = { open, tab: 'calls' as Tab, limit: SHOWN, pendingOnly: false, failedOnly: false, path: '', selected: null as string | null, bodies: false, copied: null as string | null };
  const button = (label: string, title: string, onClick: () => void, attributes: Record<string, string | boolean> = {}): HTMLButtonElement => {
    const element = h('button', { type: 'button', tabindex: -1, title, ...attributes }, label);
    element.addEventListener('click', onClick);
    return element;
  };
  // Each drawing writes only what changed: a write of the same value still makes the browser
  // restyle and lay the panel out again (bench/devtools.mjs --profile).
  const pressed = (element: HTMLElement, on: boolean): void => {
    if (element.getAttribute('aria-pressed') !== String(on)) element.setAttribute('aria-pressed', String(on));
  };
  const show = (element: HTMLElement, shown: boolean): void => {
    if (element.hidden === shown) element.hidden = !shown;
  };

  const toggle = button('viewsets', 'open or close the fastapi-viewsets devtools', () => {
    ui.open = !ui.open;
    render();
  }, { class: 'toggle' });
  const tabs: Record<Tab, HTMLButtonElement> = {
    calls: button('Calls', 'every call by its key', () => ((ui.tab = 'calls'), render()), { 'data-tab': 'calls' }),
    timeline: button('Timeline', 'the attempts of the calls shown, in time', () => ((ui.tab = 'timeline'), render()), { 'data-tab': 'timeline' }),
    live: button('Live data', 'followers, live lists, muxws peers', () => ((ui.tab = 'live'), render()), { 'data-tab': 'live' }),
  };
  const pendingOnly = button('Pending only', 'only calls that have not settled', () => ((ui.pendingOnly = !ui.pendingOnly), render()), { 'data-filter': 'pending' });
  const failedOnly = button('Failed', 'only calls that failed', () => ((ui.failedOnly = !ui.failedOnly), render()), { 'data-filter': 'failed' });
  const pathFilter = h('input', { type: 'search', placeholder: 'path contains…', 'aria-label': 'filter by path', 'data-filter': 'path' });
  pathFilter.addEventListener('input', () => {
    ui.path = pathFilter.value;
    render();
  });
  const retry = button('Try again now', 'every waiting repeat goes now, under its own key (retryNow())', () => services.retryNow(), { 'data-action': 'retry-now' });
  const offline = button('Simulate offline', "dispatch the platform's offline event: repeats wait until online again", () => store.setOffline(!store.offline), { 'data-action': 'offline', class: 'danger' });
  const lose = button('Lose the next answer', "the next answer that arrives is thrown away: the call is repeated under the same key and the server answers it from the outcome it stored (the action runs once)", () => store.setLoseNext(!store.loseNext), { 'data-action': 'lose-next', class: 'danger' });
  const bodies = button('with bodies', 'the export holds the bodies too (credentials redacted)', () => ((ui.bodies = !ui.bodies), render()), { 'data-action': 'bodies' });
  const exporter = button('Export JSON', 'the calls since the page loaded, as JSON (Authorization, cookies and other credentials redacted)', () => download(exportCalls(store, ui.bodies)), { 'data-action': 'export' });
  const close = button('×', 'close the panel', () => ((ui.open = false), render()), { 'data-action': 'close' });

  const list = h('div', { class: 'list' });
  const detail = h('div', { class: 'detail' });
  const body = h('div', { class: 'body' }, list, detail);
  const live = h('div', { class: 'live', hidden: true });
  const panel = h(
    'div',
    { class: 'panel', role: 'region', 'aria-label': 'fastapi-viewsets devtools' },
    h('div', { class: 'bar' }, h('span', { class: 'title' }, 'fastapi-viewsets'), tabs.calls, tabs.timeline, tabs.live, pendingOnly, failedOnly, pathFilter, h('span', { class: 'gap' }), close),
    h('div', { class: 'bar' }, retry, offline, lose, h('span', { class: 'gap' }), bodies, exporter),
    body,
    live,
  );
  root.append(toggle, panel);
  parent.append(host);

  /** Saves `text` as a file (a Blob's URL, then revoked). */
  function download(text: string): void {
    const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
    const link = h('a', { href: url, download: `fastapi-viewsets-calls-${new Date().toISOString().replace(/[:.]/g, '-')}.json` });
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }

  function shownCalls(): CallView[] {
    const out: CallView[] = [];
    const calls = [...store.calls.values()];
    for (let at = calls.length - 1; at >= 0 && out.length < ui.limit; at--) {
      const call = calls[at];
      if (ui.pendingOnly && call.state === 'settled') continue;
      if (ui.failedOnly && !failed(call)) continue;
      if (ui.path && !call.path.includes(ui.path)) continue;
      out.push(call);
    }
    return out;
  }

  // The list's rows by key, kept between drawings: a row is made once and its cells' text changed
  // only when it changed, so drawing while calls flow stays cheap (bench/devtools.mjs).
  const rowsByKey = new Map<string, { row: HTMLTableRowElement; cells: HTMLTableCellElement[]; sig: string }>();
  const tbody = h('tbody');
  const table = h('table', {}, h('thead', {}, h('tr', {}, ...['key', 'method', 'path', 'transport', '', 'state', 'attempts'].map((name) => h('th', {}, name)))), tbody);
  tbody.addEventListener('click', (event) => {
    const row = (event.target as Element).closest?.('tr.call') as HTMLElement | null;
    if (row?.dataset.key) {
      ui.selected = row.dataset.key;
      render();
    }
  });
  const showMore = button('show more', 'list older calls too', () => ((ui.limit += 150), render()), { 'data-action': 'more' });

  function renderList(calls: CallView[], now: number): void {
    const rows = calls.map((call) => {
      const last = call.attempts[call.attempts.length - 1];
      const texts = [call.key.slice(0, 8), call.method, call.path, transportLabel(last?.transport ?? call.transport), call.background ? 'background' : '', stateText(call, now), String(call.attempts.length)];
      const className = `call${call.key === ui.selected ? ' selected' : ''}${failed(call) ? ' failed' : ''}${call.state !== 'settled' && call.state !== 'in-flight' ? ' waiting' : ''}`;
      const sig = className + call.state + texts.join('|');
      let entry = rowsByKey.get(call.key);
      if (!entry) {
        const cells = ['key', '', '', 'transport', '', 'state', 'attempts'].map((name) => h('td', { class: name || null }));
        cells[0].title = call.key;
        cells[2].title = call.path;
        entry = { row: h('tr', { 'data-key': call.key }, ...cells), cells, sig: '' };
        rowsByKey.set(call.key, entry);
      }
      if (entry.sig !== sig) {
        entry.sig = sig;
        entry.row.className = className;
        entry.row.dataset.state = call.state;
        texts.forEach((text, at) => {
          if (entry!.cells[at].textContent !== text) entry!.cells[at].textContent = text;
        });
      }
      return entry.row;
    });
    // rows of calls no longer listed are let go
    if (rowsByKey.size > rows.length * 2 + 100) {
      const listed = new Set(calls.map((call) => call.key));
      for (const key of rowsByKey.keys()) if (!listed.has(key)) rowsByKey.delete(key);
    }
    const same = tbody.children.length === rows.length && rows.every((row, at) => tbody.children[at] === row);
    if (!same) tbody.replaceChildren(...rows);
    const hidden = calls.length === ui.limit ? h('div', { class: 'note' }, `the newest ${ui.limit} that pass the filters are shown (${store.calls.size} kept${store.dropped ? `, ${store.dropped} older ones forgotten` : ''}) `, showMore) : null;
    const note = calls.length ? hidden : h('div', { class: 'note' }, store.calls.size ? 'no call passes the filters' : 'no call yet');
    if (list.firstChild !== table || list.childNodes.length !== (note ? 2 : 1) || (note && list.lastChild?.textContent !== note.textContent)) list.replaceChildren(table, ...(note ? [note] : []));
  }


  function renderDetail(now: number): void {
    const call = ui.selected ? store.calls.get(ui.selected) : undefined;
    if (!call) {
      if (detail.firstElementChild?.className !== 'note') detail.replaceChildren(h('div', { class: 'note' }, 'select a call to see its attempts'));
      return;
    }
    const copy = button(ui.copied === call.key ? 'copied' : 'Copy key', 'copy the Idempotency-Key', () => {
      void navigator.clipboard?.writeText(call.key).then(() => {
        ui.copied = call.key;
        render();
      }, () => {});
    }, { 'data-action': 'copy-key' });
    const waiting = call.state === 'delay' || call.state === 'reconnect' || call.state === 'offline';
    const retryOne = button('Try again now', "this call's waiting repeat goes now, under the same key; the other calls keep waiting (retryNow(key))", () => services.retryNow(call.key), { 'data-action': 'retry-call', disabled: !waiting });
    const cancel = button('Cancel', 'cancel the call: it rejects with CallCancelled', () => services.cancel(call.key), { 'data-action': 'cancel', disabled: call.state === 'settled' });
    const items: HTMLElement[] = [];
    let previousEnd: number | null = null;
    for (const attempt of call.attempts) {
      if (previousEnd !== null) items.push(h('li', { class: 'wait', 'data-ms': Math.round(attempt.start - previousEnd) }, attempt.start - previousEnd < 5 ? 'repeated at once' : `waited ${duration(attempt.start - previousEnd)}`));
      items.push(
        h(
          'li',
          { class: 'attempt', 'data-attempt': attempt.n, 'data-ended': attempt.ended ?? 'in-flight' },
          `#${attempt.n} ${transportLabel(attempt.transport)}, at +${duration(attempt.start - call.issuedAt)}: ${endLabel(attempt)}${attempt.end !== null ? ` after ${duration(attempt.end - attempt.start)}` : ''}`,
        ),
      );
      previousEnd = attempt.end;
    }
    detail.replaceChildren(
      h('div', { class: 'call-title', 'data-key': call.key }, h('b', {}, `${call.method} ${call.path}`), call.query ? `?${call.query}` : ''),
      h('div', { class: 'key' }, call.key, ' ', copy),
      h('div', {}, `${transportLabel(call.transport)}${call.background ? ', background' : ''}${call.resumed ? ', resumed after a reload' : ''}`),
      h('div', { class: 'state', 'data-state': call.state }, stateText(call, now)),
      h('div', {}, retryOne, ' ', cancel),
      timeline([call], now, 380),
      h('ol', { class: 'attempts' }, ...items),
    );
  }

  function renderLive(): void {
    const table = (head: string[], rows: (string | number)[][], kind: string): HTMLElement =>
      rows.length
        ? h('table', { 'data-live': kind }, h('thead', {}, h('tr', {}, ...head.map((name) => h('th', {}, name)))), h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((cell) => h('td', {}, String(cell)))))))
        : h('div', { class: 'note' }, `none (${kind} made before the devtools were imported are not known)`);
    const of = (kind: LiveView['kind']): LiveView[] => store.live.filter((view) => view.kind === kind);
    const followers = of('follower').map((view) => {
      const f = view.handle as { topic: string; mode: string; cursor: number | null; error?: Error };
      return [f.topic, f.mode, f.cursor ?? '—', view.resyncs, view.refusals, f.error ? String(f.error.message ?? f.error) : ''];
    });
    const lists = of('live').map((view) => {
      const l = view.handle as { rows: readonly unknown[]; status: { mode: string; stale: boolean; why: string | null; error: Error | null }; pending: readonly { key: string; op: string; state: string }[]; follower: { topic: string } | null };
      return [l.follower?.topic ?? '…', l.rows.length, `${l.status.mode}${l.status.stale ? `, stale: ${l.status.why}` : ', current'}`, l.pending.map((write) => `${write.key} ${write.op} ${write.state}`).join('; ') || 'none'];
    });
    const peers = of('peer').map((view) => {
      const p = view.handle as { isOpen: boolean; isClosed: boolean; restBase?: string; rttMs?: number | null; core?: { streamCount?: number } };
      const state = p.isClosed ? 'closed' : p.isOpen ? 'open' : p.restBase ? `REST fallback (${p.restBase})` : 'between sockets';
      return [state, view.reconnects, view.losses, p.core?.streamCount ?? '—', p.rttMs == null ? 'no pong yet' : duration(p.rttMs)];
    });
    live.replaceChildren(
      h('h3', {}, 'Followers'),
      table(['topic', 'mode', 'cursor', 'resyncs', 'refusals', 'error'], followers, 'followers'),
      h('h3', {}, 'Live lists'),
      table(['topic', 'rows', 'status', 'pending writes (key, op, state)'], lists, 'lists'),
      h('h3', {}, 'muxws peers'),
      table(['state', 'reconnects', 'socket losses', 'open streams', 'ping round trip'], peers, 'peers'),
    );
  }

  // Drawing is throttled (at most every DRAW_MS, when the page is idle): a call's latency with the
  // panel open stays that of the call without it (bench/devtools.mjs).
  let scheduled = false;
  let drawnAt = 0;
  let ticker: ReturnType<typeof setTimeout> | undefined;
  const idle = (globalThis as { requestIdleCallback?: (callback: () => void, options: { timeout: number }) => unknown }).requestIdleCallback;
  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setTimeout(() => (idle ? idle(render, { timeout: DRAW_MS }) : render()), Math.max(30, drawnAt + DRAW_MS - performance.now()));
  }

  function render(): void {
    scheduled = false;
    drawnAt = performance.now();
    const now = performance.timeOrigin + performance.now();
    let pending = 0;
    let waiting = false;
    for (const call of store.calls.values()) {
      if (call.state !== 'settled' && !call.background) pending++;
      if (call.state === 'delay') waiting = true;
    }
    const label = `viewsets${pending ? ` · ${pending} pending` : ''}${store.loseNext ? ' · losing next' : ''}${store.offline ? ' · offline' : ''}`;
    if (toggle.textContent !== label) toggle.textContent = label;
    if (toggle.classList.contains('busy') !== pending > 0) toggle.classList.toggle('busy', pending > 0);
    show(panel, ui.open);
    clearTimeout(ticker);
    if (!ui.open) return;
    for (const [name, element] of Object.entries(tabs)) pressed(element, ui.tab === name);
    pressed(pendingOnly, ui.pendingOnly);
    pressed(failedOnly, ui.failedOnly);
    pressed(offline, store.offline);
    pressed(lose, store.loseNext);
    pressed(bodies, ui.bodies);
    show(body, ui.tab !== 'live');
    show(live, ui.tab === 'live');
    if (ui.tab === 'live') renderLive();
    else {
      const calls = shownCalls();
      if (ui.tab === 'timeline') {
        list.replaceChildren(calls.length ? timeline(calls.slice(0, 30).reverse(), now, 520) : h('div', { class: 'note' }, 'no call yet'));
      } else renderList(calls, now);
      renderDetail(now);
    }
    // the countdowns of waiting repeats; a peer's ping round trip, which no event tells of
    if (waiting) ticker = setTimeout(render, 250);
    else if (ui.tab === 'live' && store.live.some((view) => view.kind === 'peer')) ticker = setTimeout(render, 1000);
  }

  const unsubscribe = store.subscribe(schedule);
  render();
  return () => {
    unsubscribe();
    clearTimeout(ticker);
    host.remove();
  };
}
