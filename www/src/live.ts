// The live list: the backend's /items rows kept current by liveList(proxy), over the page's
// transport. Over muxws the socket is subscribed and the server pushes each change (mode 'push',
// via 'push'); over REST the follower polls (mode 'poll'). The list follows from before its first
// read, reads each changed record (or the list again on a resync), and shows this page's own writes
// at once, marked with their call's state until they settle. The panel only draws what the list
// says: its rows, its status (mode, stale and why) and the changes it applied (onChange).
import { liveList, type EventMessage, type LiveList, type RecordsChanged } from '@dynamicforms/fastapi-viewsets';

import type { Item, ItemsApi } from './api';
import { byId, clock, duration, h, replaceChildren } from './dom';
import { errorText } from './state';

/** How often the follower polls over REST (the package's default, said here to show it). */
export const LIVE_POLL_MS = 2_000;
/** How often a follower whose pushes flow polls to check (the package's default). */
const CHECK_MS = 30_000;
/** The events the panel shows, newest first. */
const SHOWN_EVENTS = 5;

/** One line of the panel's event list: a change the list applied, or a read of the whole list. */
interface LiveEvent {
  at: number;
  kind: 'change' | 'read';
  rev: number | null;
  op?: RecordsChanged<number>['op'];
  via?: EventMessage['via'];
  pks?: number[];
  why?: string;
}

interface Panel {
  api: ItemsApi;
  transport: 'rest' | 'muxws';
  list: LiveList<Item>;
  events: LiveEvent[];
  /** The records the last change created or updated, flashed once. */
  flash: Set<number>;
}

let live: Panel | null = null;
let wired = false;

function note(panel: Panel, event: LiveEvent): void {
  panel.events.unshift(event);
  panel.events.length = Math.min(panel.events.length, SHOWN_EVENTS);
}

/**
 * Follows /items through `api` (the page's proxy), instead of the proxy followed before; resolves
 * once the rows were first read.
 */
export function startLive(api: ItemsApi, transport: 'rest' | 'muxws'): Promise<void> {
  if (!wired) {
    wired = true;
    byId('live-compare').addEventListener('click', () => void compare());
  }
  if (live?.api === api) return live.list.ready;
  void live?.list.close();
  const panel: Panel = {
    api,
    transport,
    events: [],
    flash: new Set(),
    list: liveList(api, undefined, {
      pollIntervalMs: LIVE_POLL_MS,
      // the demo shows a failed write in the list's panel (until dismissed)
      keepFailed: true,
      onChange: (change, event) => {
        const pks = change.changes.map((item) => Number(item.pk));
        note(panel, { at: Date.now(), kind: 'change', rev: event.rev, op: change.op, via: event.via, pks });
        if (change.op !== 'deleted') panel.flash = new Set(pks);
      },
      onResync: (info) => note(panel, { at: Date.now(), kind: 'read', rev: info.rev, why: `resync: the log no longer holds what was missed (rev ${info.rev})` }),
    }),
  };
  live = panel;
  // one listener: after each batch the rows, the status and the pending writes agree
  panel.list.subscribe(() => renderLive());
  const ready = panel.list.ready.then(() => note(panel, { at: Date.now(), kind: 'read', rev: panel.list.follower?.cursor ?? null, why: 'first read' }));
  byId('live-compare-result').textContent = '';
  renderLive();
  return ready.then(renderLive, () => {});
}

/** Stops following (before the proxy's peer is closed). */
export function stopLive(): Promise<void> {
  const closing = live?.list.close() ?? Promise.resolve();
  live = null;
  return closing;
}

/** Reads the whole list again (after the demo's reset, which changes the rows without events). */
export function reloadLive(): Promise<void> {
  const current = live;
  if (!current) return Promise.resolve();
  return current.list.refresh().then(
    () => note(current, { at: Date.now(), kind: 'read', rev: current.list.follower?.cursor ?? null, why: 'the demo was reset' }),
    () => {},
  );
}

/** Compares the rows with what `list()` answers now (pending own writes left out). */
async function compare(): Promise<void> {
  const current = live;
  if (!current) return;
  const button = byId<HTMLButtonElement>('live-compare');
  const result = byId('live-compare-result');
  button.disabled = true;
  try {
    const listed = await current.api.list();
    const shown = current.list.rows.filter((row) => !current.list.pendingOf(row));
    const same = key(listed) === key(shown);
    result.dataset.result = same ? 'same' : 'differs';
    result.textContent = same
      ? `✓ same ${listed.length} rows as list()`
      : `✕ ${shown.length} rows here, list() has ${listed.length} (a change may be on its way)`;
  } catch (error) {
    result.dataset.result = 'failed';
    result.textContent = `list() failed: ${errorText(error)}`;
  }
  button.disabled = false;
}

/** The rows as a string that compares equal for equal rows, in any order. */
function key(rows: readonly Item[]): string {
  return JSON.stringify([...rows].sort((a, b) => a.id - b.id).map((row) => [row.id, row.name, row.qty]));
}

// ------------------------------------------------------------------ rendering
/** `2 s` that never breaks between the number and its unit. */
const nb = (ms: number) => duration(ms).replace(' ', '\u00a0');
const HINT = {
  rest: `Over REST the follower polls POST /events/poll every ${nb(LIVE_POLL_MS)}. Change an item in another tab.`,
  muxws: `Over muxws the server pushes each change on the subscribed socket (a check poll every ${nb(CHECK_MS)}). Change an item in another tab.`,
};
/** What `status.why` means, in a few words. */
const WHY: Record<string, string> = {
  loading: 'reading the list',
  'read-failed': 'a read failed; it is tried again',
  paused: 'offline: paused',
  reconnecting: 'the socket was lost: polling until it is back',
  silent: 'the socket has been silent: it may be dead',
  'follow-failed': 'following fails for now; it keeps trying',
  refused: 'the server refused the topic',
  closed: 'closed',
};

function renderLive(): void {
  const panel = byId('live');
  if (!live) {
    panel.dataset.state = 'stopped';
    return;
  }
  const { list, transport } = live;
  const { status } = list;
  const cursor = list.follower?.cursor ?? null;
  panel.dataset.mode = status.mode;
  panel.dataset.cursor = cursor === null ? '' : String(cursor);
  panel.dataset.transport = transport;
  panel.dataset.state = status.error ? 'error' : status.loading ? 'loading' : 'live';
  panel.dataset.stale = status.why ?? '';
  const modeEl = byId('live-mode');
  modeEl.textContent = status.mode;
  modeEl.className = `tag live-mode live-mode-${status.mode}`;
  byId('live-cursor').textContent = cursor === null ? '—' : String(cursor);
  byId('live-hint').textContent = HINT[transport];
  const error = byId('live-error');
  const stale = status.stale && status.why !== 'loading' ? `may be behind: ${WHY[status.why ?? ''] ?? status.why}` : '';
  error.hidden = !stale && !status.error;
  error.textContent = [stale, status.error ? errorText(status.error) : ''].filter(Boolean).join(' — ');
  byId('live-count').textContent = status.loading ? '…' : String(list.rows.length);

  const rows = byId('live-rows');
  // by id; own creates not answered yet (no id) last
  const sorted = [...list.rows].sort((a, b) => (a.id ?? Infinity) - (b.id ?? Infinity));
  if (status.loading && sorted.length === 0) replaceChildren(rows, h('li', { class: 'live-empty muted' }, 'reading the list…'));
  else if (sorted.length === 0) replaceChildren(rows, h('li', { class: 'live-empty muted' }, 'No items.'));
  else
    replaceChildren(
      rows,
      ...sorted.map((item) => {
        const pending = list.pendingOf(item);
        return h(
          'li',
          {
            class: `live-row${live!.flash.has(item.id) ? ' live-flash' : ''}${pending ? ' live-pending' : ''}`,
            'data-id': item.id ?? '',
            'data-name': item.name,
            'data-qty': item.qty,
            'data-pending': pending?.state ?? '',
          },
          h('span', { class: 'item-id mono' }, item.id === undefined ? '#…' : `#${item.id}`),
          h('span', { class: 'live-name' }, item.name),
          h('span', { class: 'item-qty' }, `qty ${item.qty ?? 0}`),
          ...(pending ? [h('span', { class: 'mini live-pending-state', title: `call ${pending.key}` }, pending.state)] : []),
        );
      }),
    );
  live.flash = new Set();

  const events = byId('live-events');
  const failed = list.pending.filter((write) => write.error);
  const lines = [...failed.map((write) => h('li', { 'data-kind': 'failed' }, h('span', { class: 'tag tag-wait' }, write.state), h('span', { class: 'muted live-why' }, `${write.op} #${write.pk ?? '…'}: ${errorText(write.error)}`))), ...live.events.map(eventRow)];
  if (lines.length === 0) replaceChildren(events, h('li', { class: 'muted' }, 'none yet'));
  else replaceChildren(events, ...lines);
}

function eventRow(event: LiveEvent): HTMLElement {
  const time = clock(event.at);
  if (event.kind === 'read') {
    return h(
      'li',
      { 'data-kind': 'read', title: `${time} · ${event.why ?? ''}` },
      h('span', { class: 'mono muted live-rev' }, event.rev === null ? '—' : event.rev),
      h('span', { class: 'tag tag-wait' }, 'list()'),
      h('span', { class: 'muted live-why' }, event.why ?? ''),
    );
  }
  return h(
    'li',
    { 'data-kind': 'change', 'data-rev': event.rev, 'data-op': event.op, 'data-via': event.via, title: time },
    h('span', { class: 'mono live-rev' }, event.rev),
    h('span', { class: `tag live-op live-op-${event.op}` }, event.op),
    h('span', { class: 'mono live-pks' }, (event.pks ?? []).map((pk) => `#${pk}`).join(' ')),
    h('span', { class: `mini live-via live-via-${event.via}` }, `via ${event.via}`),
  );
}
