// The live list: the backend's /items rows kept current by the proxy's watch(), over the page's
// transport. Over muxws the socket is subscribed and the server pushes each change (mode 'push',
// via 'push'); over REST the follower polls (mode 'poll'). Each change is applied with
// applyChanges() (created and updated records retrieved through the proxy, deleted ones removed; a
// change applied twice gives the same rows); onResync reads the list again. Whatever touches the
// rows runs one after the other, so a change never races the first read, a reload or a comparison.
import type { EventMessage, Follower, RecordsChanged } from '@dynamicforms/fastapi-viewsets';

import type { Item, ItemsApi } from './api';
import { byId, clock, duration, h, replaceChildren } from './dom';
import { errorText } from './state';

/** How often the follower polls over REST (the package's default, said here to show it). */
export const LIVE_POLL_MS = 2_000;
/** How often a follower whose pushes flow polls to check (the package's default). */
const CHECK_MS = 30_000;
/** The events the panel shows, newest first. */
const SHOWN_EVENTS = 5;
/** How long the first read waits for the follower's cursor; later, it reads at once and again once the cursor is there. */
const READY_WAIT_MS = 3_000;

/** One line of the panel's event list: a change as the follower delivered it, or a read of the whole list. */
interface LiveEvent {
  at: number;
  kind: 'change' | 'read';
  rev: number | null;
  op?: RecordsChanged<number>['op'];
  via?: EventMessage['via'];
  pks?: number[];
  why?: string;
}

class LiveList {
  rows: Item[] = [];
  /** The rows are known (the last read answered); false: the next change reads the list again. */
  loaded = false;
  error: string | null = null;
  readonly events: LiveEvent[] = [];
  /** The records the last applied change created or updated, flashed once. */
  flash = new Set<number>();
  closed = false;
  readonly follower: Follower;
  /** The first read is done (the page counts as loaded). */
  readonly started: Promise<void>;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly api: ItemsApi,
    readonly transport: 'rest' | 'muxws',
  ) {
    this.follower = api.watch({
      pollIntervalMs: LIVE_POLL_MS,
      onChange: (change, event) => this.serial(() => this.apply(change, event)),
      onResync: (info) => this.serial(() => this.read(`resync: the log no longer holds what was missed (rev ${info.rev})`)),
      onRefused: (error) => {
        this.error = `following /items was refused: ${errorText(error)}`;
        renderLive();
      },
    });
    // From 'now': the cursor first, then the read. A change after the cursor is delivered (and
    // waits here for the read); one before it is in what the read answers. A follower refused or
    // closed: the list is read anyway; one slow to get its cursor: read now, and again once it has it.
    const ready = this.follower.ready.then(
      () => true,
      () => false,
    );
    this.started = this.serial(async () => {
      const inTime = await Promise.race([ready, new Promise<null>((resolve) => setTimeout(() => resolve(null), READY_WAIT_MS))]);
      await this.read('first read');
      if (inTime === null) {
        void ready.then((ok) => {
          if (ok) void this.serial(() => this.read('the follower has its cursor'));
        });
      }
    });
  }

  /** Runs `task` after every task before it (a failed one included). */
  serial(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(() => (this.closed ? undefined : task()));
    this.queue = run.catch((error: unknown) => console.warn('live list', error));
    return this.queue;
  }

  private note(event: LiveEvent): void {
    this.events.unshift(event);
    this.events.length = Math.min(this.events.length, SHOWN_EVENTS);
  }

  private async apply(change: RecordsChanged<number>, event: EventMessage<RecordsChanged<number>>): Promise<void> {
    const pks = change.changes.map((item) => item.pk);
    this.note({ at: Date.now(), kind: 'change', rev: event.rev, op: change.op, via: event.via, pks });
    if (!this.loaded) {
      await this.read('the rows were not known');
      return;
    }
    try {
      const rows = await this.api.applyChanges(this.rows, change);
      if (this.closed) return;
      this.rows = rows;
      this.error = null;
      if (change.op !== 'deleted') this.flash = new Set(pks);
    } catch (error) {
      // a retrieve failed for good (its repeats are the package's): the whole list instead
      await this.read(`applyChanges failed: ${errorText(error)}`);
      return;
    }
    renderLive();
  }

  /** Reads the whole list (`list()`): the first read, a resync, a change that could not be applied. */
  async read(why: string): Promise<void> {
    if (this.closed) return;
    try {
      const rows = await this.api.list();
      if (this.closed) return;
      this.rows = rows;
      this.loaded = true;
      this.error = null;
    } catch (error) {
      if (this.closed) return;
      this.loaded = false;
      this.error = `list() failed: ${errorText(error)}; the next change reads it again`;
    }
    this.note({ at: Date.now(), kind: 'read', rev: this.follower.cursor, why });
    renderLive();
  }

  close(): Promise<void> {
    this.closed = true;
    return this.follower.close();
  }
}

let live: LiveList | null = null;
let wired = false;

/**
 * Follows /items through `api` (the page's proxy), instead of the proxy followed before; resolves
 * once the rows were first read.
 */
export function startLive(api: ItemsApi, transport: 'rest' | 'muxws'): Promise<void> {
  if (!wired) {
    wired = true;
    byId('live-compare').addEventListener('click', () => void compare());
    setInterval(renderStatus, 250); // the mode and the cursor change without a callback
  }
  if (live?.api === api) return live.started;
  void live?.close();
  live = new LiveList(api, transport);
  byId('live-compare-result').textContent = '';
  renderLive();
  return live.started;
}

/** Stops following (before the proxy's peer is closed). */
export function stopLive(): Promise<void> {
  const closing = live?.close() ?? Promise.resolve();
  live = null;
  return closing;
}

/** Reads the whole list again (after the demo's reset, which changes the rows without events). */
export function reloadLive(): Promise<void> {
  const current = live;
  return current ? current.serial(() => current.read('the demo was reset')) : Promise.resolve();
}

/** Compares the rows with what `list()` answers now, between two changes. */
async function compare(): Promise<void> {
  const current = live;
  if (!current) return;
  const button = byId<HTMLButtonElement>('live-compare');
  const result = byId('live-compare-result');
  button.disabled = true;
  await current.serial(async () => {
    try {
      const listed = await current.api.list();
      const same = key(listed) === key(current.rows);
      result.dataset.result = same ? 'same' : 'differs';
      result.textContent = same
        ? `✓ same ${listed.length} rows as list()`
        : `✕ ${current.rows.length} rows here, list() has ${listed.length} (a change may be on its way)`;
    } catch (error) {
      result.dataset.result = 'failed';
      result.textContent = `list() failed: ${errorText(error)}`;
    }
  });
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

function renderStatus(): void {
  const panel = byId('live');
  if (!live) {
    panel.dataset.state = 'stopped';
    return;
  }
  const { mode, cursor } = live.follower;
  panel.dataset.mode = mode;
  panel.dataset.cursor = cursor === null ? '' : String(cursor);
  panel.dataset.transport = live.transport;
  panel.dataset.state = live.error ? 'error' : live.loaded ? 'live' : 'loading';
  const modeEl = byId('live-mode');
  modeEl.textContent = mode;
  modeEl.className = `tag live-mode live-mode-${mode}`;
  byId('live-cursor').textContent = cursor === null ? '—' : String(cursor);
}

function renderLive(): void {
  renderStatus();
  if (!live) return;
  byId('live-hint').textContent = HINT[live.transport];
  const error = byId('live-error');
  error.hidden = live.error === null;
  error.textContent = live.error ?? '';
  byId('live-count').textContent = live.loaded ? String(live.rows.length) : '…';

  const rows = byId('live-rows');
  const sorted = [...live.rows].sort((a, b) => a.id - b.id);
  if (!live.loaded && sorted.length === 0) replaceChildren(rows, h('li', { class: 'live-empty muted' }, 'reading the list…'));
  else if (sorted.length === 0) replaceChildren(rows, h('li', { class: 'live-empty muted' }, 'No items.'));
  else
    replaceChildren(
      rows,
      ...sorted.map((item) =>
        h(
          'li',
          { class: `live-row${live!.flash.has(item.id) ? ' live-flash' : ''}`, 'data-id': item.id, 'data-name': item.name, 'data-qty': item.qty },
          h('span', { class: 'item-id mono' }, `#${item.id}`),
          h('span', { class: 'live-name' }, item.name),
          h('span', { class: 'item-qty' }, `qty ${item.qty}`),
        ),
      ),
    );
  live.flash = new Set();

  const events = byId('live-events');
  if (live.events.length === 0) replaceChildren(events, h('li', { class: 'muted' }, 'none yet'));
  else replaceChildren(events, ...live.events.map(eventRow));
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
