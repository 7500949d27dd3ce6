// The demo page: an items app whose every call carries an Idempotency-Key and is repeated when its
// answer is lost. The busy indicator, the connectivity notice and the activity log are built on the
// package's call activity (onCallActivity, pendingCalls, pendingCallCount, retryNow). Its writes are
// persisted: a reload while one waits for its repeat sends it again (resumeCalls), and the page asks
// before unloading while one is pending (guardUnload). The live list (live.ts) follows /items with
// watch() over the same transport.
import './style.css';

import {
  guardUnload,
  onCallActivity,
  pendingCallCount,
  pendingCalls,
  resumeCalls,
  retryNow,
  type CallActivityEvent,
  type PendingCall,
  type ResumedCall,
} from '@dynamicforms/fastapi-viewsets';

import {
  ATTEMPT_TIMEOUT_MS,
  REPEAT,
  WRITE,
  muxwsAvailable,
  muxwsItems,
  restItems,
  type Item,
  type MuxwsPeer,
  type SlowResult,
} from './api';
import { Backend, loadConfig, type DemoConfig } from './backend';
import { byId, clock, duration, h, plural, replaceChildren } from './dom';
import { clampInt, faultUsable, queueFault, refreshFaults } from './faults';
import { reloadLive, startLive, stopLive } from './live';
import { ACTIONS, actionOf, api, backend, errorText, showError, state, type ActionId } from './state';

const ENDED_TEXT: Record<string, string> = {
  'network-error': 'no complete answer, the connection broke',
  timeout: `no answer within ${duration(ATTEMPT_TIMEOUT_MS)}`,
  'gateway-status': 'the gateway answered with an error page',
  'stream-timeout': `no answer within ${duration(ATTEMPT_TIMEOUT_MS)}`,
  'connection-lost': 'the WebSocket was lost',
  'stream-refused': 'the server refused the stream',
  'connection-closed': 'the WebSocket is reconnecting',
  'going-away': 'the server is going away',
};
const endedText = (ended: string) => ENDED_TEXT[ended] ?? ended;

/** What a `wait` event's reason means, for the activity log. */
const WAIT_TEXT: Record<string, string> = {
  offline: 'offline: waits for the network',
  'in-flight': 'online again: sent',
  reconnect: 'online again: waits for the WebSocket',
  delay: 'waits for its delay',
};
/** The busy indicator and the notice while the platform is offline. */
const OFFLINE_TEXT = 'offline — will retry when the network is back';

// ------------------------------------------------------------------ call activity
const MAX_LOG_ROWS = 150;

/**
 * A call of the live list's follower (a poll, a subscribe, an unsubscribe: background calls under
 * /events/) that went through at once: left out, or the log would be all polls. Its repeats and
 * failures are shown.
 */
function quietFollowerCall(event: CallActivityEvent): boolean {
  if (!event.background || !event.path.startsWith('/events/')) return false;
  return event.type === 'start' || (event.type === 'settle' && event.ok && event.attempts === 1);
}

function onActivity(event: CallActivityEvent): void {
  if (quietFollowerCall(event)) return;
  const action = event.background ? null : actionOf(event.method, event.path);
  const info = state.calls.get(event.key) ?? { action, attempts: 0 };
  if (event.type === 'start') info.attempts = 1;
  if (event.type === 'retry') {
    info.attempts = event.attempt + 1;
    info.lastEnded = event.ended;
  }
  if (event.type === 'settle') {
    info.attempts = event.attempts;
    info.lastEnded = event.ended;
  }
  state.calls.set(event.key, info);

  logEvent(event);
  renderActivity();
  queueMicrotask(renderActivity); // the count as it stands once the call is fully settled
  if (event.type === 'settle') {
    renderCounters();
    void refreshCounters();
  }
}

function logEvent(event: CallActivityEvent): void {
  const log = byId('log');
  const ok = event.type !== 'settle' || event.ok;
  const badge = event.type === 'settle' ? (event.ok ? 'settle' : 'settle ✕') : event.type;
  const attempt = event.type === 'retry' ? event.attempt : event.type === 'settle' ? event.attempts : event.type === 'start' ? 1 : '';
  // a wait event says why the call waits now: for the network, or (again) for its attempt's answer
  const ended = event.type === 'start' ? '' : event.type === 'wait' ? WAIT_TEXT[event.reason] : event.ended;
  const delay = event.type === 'retry' ? (event.delayMs === 0 ? 'at once' : duration(event.delayMs)) : '';
  const row = h(
    'tr',
    {
      class: `ev ev-${event.type}${ok ? '' : ' ev-failed'}${event.background ? ' ev-bg' : ''}`,
      'data-type': event.type,
      'data-key': event.key,
      'data-call': `${event.method} ${event.path}`,
      'data-transport': event.transport,
      'data-reason': event.type === 'wait' ? event.reason : null,
      'data-resumed': event.resumed ? 'true' : null,
    },
    h('td', { class: 'mono muted' }, clock(event.at)),
    h('td', {}, h('span', { class: `tag tag-${event.type}${ok ? '' : ' tag-failed'}` }, badge)),
    h(
      'td',
      { class: 'mono' },
      `${event.method} ${event.path}`,
      event.transport === 'muxws' ? h('span', { class: 'mini' }, 'ws') : null,
      event.background ? h('span', { class: 'mini' }, 'background') : null,
      event.resumed ? h('span', { class: 'mini mini-resumed', title: 'sent again by resumeCalls() after a reload' }, 'resumed') : null,
    ),
    h('td', { class: 'mono', title: event.key }, event.key.slice(0, 8)),
    h('td', { class: 'num' }, attempt),
    h('td', { class: 'mono' }, ended),
    h('td', { class: 'num' }, delay),
  );
  log.prepend(row);
  while (log.childElementCount > MAX_LOG_ROWS) log.lastElementChild?.remove();
  byId('log-empty').hidden = true;
}

/** The busy indicator and the connectivity notice; also run by a ticker for the countdowns. */
function renderActivity(): void {
  const pending = pendingCalls();
  const count = pendingCallCount();
  // the platform's own word (the package follows the same online/offline events)
  const offline = !navigator.onLine;
  const repeating = pending.filter(
    (call) => !call.background && (call.unansweredAttempts > 0 || call.waitingForReconnect || call.waitingFor === 'offline'),
  );
  const waitingForNetwork = repeating.filter((call) => call.waitingFor === 'offline').length;

  const busy = byId('busy');
  busy.dataset.count = String(count);
  busy.dataset.offline = String(offline);
  busy.classList.toggle('busy-active', count > 0);
  busy.classList.toggle('busy-warn', repeating.length > 0 && !offline);
  busy.classList.toggle('busy-offline', offline);
  byId('busy-text').textContent = offline
    ? count === 0
      ? 'Offline'
      : `${plural(count, 'call')} pending, ${OFFLINE_TEXT}`
    : count === 0
      ? 'Idle'
      : `${plural(count, 'call')} pending`;

  const notice = byId('notice');
  notice.hidden = repeating.length === 0;
  notice.classList.toggle('notice-offline', waitingForNetwork > 0);
  if (repeating.length === 0) return;
  const calls = repeating.length === 1 ? '1 call is' : `${repeating.length} calls are`;
  byId('notice-title').textContent =
    waitingForNetwork === repeating.length
      ? `You are offline: ${calls} waiting for the network, to be repeated with the same Idempotency-Key when it is back`
      : `Connection trouble: ${calls} being repeated with the same Idempotency-Key`;
  const list = byId('notice-calls');
  const rows = new Map<string, HTMLElement>();
  for (const row of Array.from(list.children) as HTMLElement[]) rows.set(row.dataset.key ?? '', row);
  const now = Date.now();
  for (const call of repeating) {
    let row = rows.get(call.key);
    rows.delete(call.key);
    if (!row) {
      row = h(
        'li',
        { 'data-key': call.key },
        h('span', { class: 'notice-call mono' }, `${call.method} ${call.path}`),
        h('span', { class: 'notice-attempt' }),
        h('span', { class: 'notice-countdown' }),
        h('span', { class: 'notice-reason' }),
        h('span', { class: 'notice-key mono', title: `Idempotency-Key ${call.key}` }, `key ${call.key.slice(0, 8)}`),
      );
      list.append(row);
    }
    const [, attemptEl, countdownEl, reasonEl] = Array.from(row.children) as HTMLElement[];
    if (!attemptEl || !countdownEl || !reasonEl) continue;
    attemptEl.textContent = `Attempt ${call.unansweredAttempts + 1}`;
    countdownEl.textContent = countdown(call, now);
    countdownEl.classList.toggle('live', call.nextAttemptAt !== null);
    const ended = state.calls.get(call.key)?.lastEnded;
    reasonEl.textContent = ended
      ? `attempt ${call.unansweredAttempts}: ${endedText(ended)}`
      : `${plural(call.unansweredAttempts, 'attempt')} unanswered`;
  }
  for (const stale of rows.values()) stale.remove();
}

function countdown(call: PendingCall, now: number): string {
  if (call.waitingFor === 'offline') return OFFLINE_TEXT;
  if (call.nextAttemptAt !== null) {
    const seconds = Math.max(0, Math.ceil((call.nextAttemptAt - now) / 1000));
    return seconds > 0 ? `retrying in ${seconds} s` : 'retrying now';
  }
  if (call.waitingForReconnect) return 'waiting for the WebSocket to reconnect';
  return 'sent, waiting for the answer';
}

// ------------------------------------------------------------------ server counters
let countersInFlight = false;

async function refreshCounters(): Promise<void> {
  if (countersInFlight || !state.backend) return;
  countersInFlight = true;
  try {
    state.counters = await state.backend.counters();
    state.baseline ??= { ...state.counters };
    renderCounters();
  } catch {
    /* the next poll tries again */
  } finally {
    countersInFlight = false;
  }
}

function runsOf(action: ActionId): number {
  return (state.counters[action] ?? 0) - (state.baseline?.[action] ?? 0);
}

function renderCounters(): void {
  const body = byId('counters');
  const totals = new Map<ActionId, { calls: number; attempts: number }>();
  for (const info of state.calls.values()) {
    if (!info.action) continue;
    const total = totals.get(info.action) ?? { calls: 0, attempts: 0 };
    total.calls += 1;
    total.attempts += info.attempts;
    totals.set(info.action, total);
  }
  if (body.childElementCount === 0) {
    for (const action of ACTIONS) {
      body.append(
        h(
          'tr',
          { 'data-action': action.id },
          h('td', {}, h('div', { class: 'action-label' }, action.label), h('div', { class: 'mono muted action-route' }, action.route)),
          h('td', { class: 'num calls' }, '0'),
          h('td', { class: 'num attempts' }, '0'),
          h('td', { class: 'num runs' }, h('span', { class: 'runs-value' }, '0')),
        ),
      );
    }
  }
  for (const action of ACTIONS) {
    const row = body.querySelector<HTMLElement>(`tr[data-action="${action.id}"]`);
    if (!row) continue;
    const total = totals.get(action.id) ?? { calls: 0, attempts: 0 };
    const runs = runsOf(action.id);
    row.querySelector('.calls')!.textContent = String(total.calls);
    const attempts = row.querySelector<HTMLElement>('.attempts')!;
    attempts.textContent = String(total.attempts);
    attempts.classList.toggle('repeated', total.attempts > total.calls);
    const runsCell = row.querySelector<HTMLElement>('.runs')!;
    runsCell.dataset.runs = String(runs);
    runsCell.querySelector('.runs-value')!.textContent = String(runs);
    runsCell.classList.toggle('runs-once', runs > 0 && runs <= total.calls);
    const previous = state.shownRuns.get(action.id);
    if (previous !== undefined && runs > previous) flash(runsCell);
    state.shownRuns.set(action.id, runs);
  }
  setRunsBadge('create-runs', runsOf('create'));
  setRunsBadge('slow-runs', runsOf('slow'));
}

function setRunsBadge(id: string, runs: number): void {
  const badge = document.getElementById(id);
  if (badge) badge.textContent = `ran ${runs}×`;
}

function flash(element: HTMLElement): void {
  element.classList.remove('flash');
  void element.offsetWidth; // restart the animation
  element.classList.add('flash');
}

// ------------------------------------------------------------------ items
async function loadItems(): Promise<void> {
  try {
    state.items = await api().list();
    showError(null);
  } catch (error) {
    showError(`Could not load the items. ${errorText(error)}`);
  }
  renderItems();
}

function renderItems(): void {
  const list = byId('items');
  if (state.items.length === 0) {
    replaceChildren(list, h('li', { class: 'items-empty muted' }, 'No items yet. Add one above.'));
    return;
  }
  replaceChildren(list, ...[...state.items].sort((a, b) => a.id - b.id).map(itemRow));
  const input = list.querySelector<HTMLInputElement>('input.rename');
  if (input && document.activeElement !== input) {
    input.focus();
    input.select();
  }
}

function startEditing(id: number | null): void {
  state.editing = id;
  renderItems();
}

function itemRow(item: Item): HTMLElement {
  const busy = state.busyRows.has(item.id);
  const editing = state.editing === item.id;
  const row = h('li', { class: `item${busy ? ' item-busy' : ''}`, 'data-id': item.id });
  if (editing) {
    const input = h('input', { class: 'rename', type: 'text', value: item.name, maxlength: 60, 'aria-label': 'New name' });
    const save = () => rename(item, input.value);
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') save();
      if (event.key === 'Escape') startEditing(null);
    });
    row.append(
      h('span', { class: 'item-id mono' }, `#${item.id}`),
      input,
      h('div', { class: 'item-actions' },
        h('button', { type: 'button', class: 'btn btn-primary btn-small', onclick: save }, 'Save'),
        h('button', { type: 'button', class: 'btn btn-ghost btn-small', onclick: () => startEditing(null) }, 'Cancel'),
      ),
    );
    return row;
  }
  row.append(
    h('span', { class: 'item-id mono' }, `#${item.id}`),
    h('span', { class: 'item-name' }, item.name),
    h('span', { class: 'item-qty', title: 'Quantity' }, `qty ${item.qty}`),
    h('div', { class: 'item-actions' },
      busy ? h('span', { class: 'spinner', 'aria-label': 'Working' }) : null,
      h('button', { type: 'button', class: 'btn btn-ghost btn-small', disabled: busy, onclick: () => startEditing(item.id) }, 'Rename'),
      h('button', { type: 'button', class: 'btn btn-danger-ghost btn-small', disabled: busy, onclick: () => remove(item) }, 'Delete'),
    ),
  );
  return row;
}

async function createItem(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const nameInput = byId<HTMLInputElement>('create-name');
  const name = nameInput.value.trim();
  if (!name) return;
  const qty = clampInt(byId<HTMLInputElement>('create-qty').value, 0, 1_000_000);
  const submit = byId<HTMLButtonElement>('create-submit');
  submit.disabled = true;
  try {
    const item = await api().create({ name, qty }, WRITE);
    state.items = [...state.items.filter((other) => other.id !== item.id), item];
    nameInput.value = '';
    showError(null);
  } catch (error) {
    showError(`Create failed. ${errorText(error)}`);
  } finally {
    submit.disabled = false;
    renderItems();
  }
}

async function rename(item: Item, value: string): Promise<void> {
  const name = value.trim();
  state.editing = null;
  if (!name || name === item.name) {
    renderItems();
    return;
  }
  state.busyRows.add(item.id);
  renderItems();
  try {
    const updated = await api().partialUpdate(item.id, { name }, WRITE);
    state.items = state.items.map((other) => (other.id === item.id ? updated : other));
    showError(null);
  } catch (error) {
    showError(`Rename failed. ${errorText(error)}`);
  } finally {
    state.busyRows.delete(item.id);
    renderItems();
  }
}

async function remove(item: Item): Promise<void> {
  state.busyRows.add(item.id);
  renderItems();
  try {
    await api().destroy(item.id, WRITE);
    state.items = state.items.filter((other) => other.id !== item.id);
    showError(null);
  } catch (error) {
    showError(`Delete failed. ${errorText(error)}`);
  } finally {
    state.busyRows.delete(item.id);
    renderItems();
  }
}

// ------------------------------------------------------------------ the slow action
async function runSlow(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const sleep = Math.min(30, Math.max(0, Number(byId<HTMLInputElement>('slow-sleep').value) || 0));
  const note = byId<HTMLInputElement>('slow-note').value;
  const button = byId<HTMLButtonElement>('slow-run');
  const panel = byId('slow-result');
  button.disabled = true;
  const started = performance.now();
  const call = api().slow(sleep, note);
  const key = call.key ?? '';
  panel.dataset.state = 'pending';
  panel.dataset.key = key;
  replaceChildren(
    panel,
    h(
      'div',
      { class: 'result-head' },
      h('span', { class: 'spinner' }),
      h('strong', {}, 'Running…'),
      h('span', { class: 'mono muted' }, `key ${key}`),
    ),
  );
  try {
    const result: SlowResult = await call;
    const attempts = state.calls.get(key)?.attempts ?? 1;
    panel.dataset.state = 'done';
    panel.dataset.executions = String(result.executions);
    replaceChildren(
      panel,
      h(
        'div',
        { class: 'result-head' },
        h('span', { class: 'ok-mark', 'aria-hidden': 'true' }, '✓'),
        h('strong', {}, `Done in ${duration(performance.now() - started)}`),
        h('span', { class: 'muted' }, attempts > 1 ? `after ${attempts} attempts with the same key` : 'on the first attempt'),
      ),
      h(
        'dl',
        { class: 'result-grid' },
        h('dt', {}, 'executions'), h('dd', { class: 'mono' }, result.executions),
        h('dt', {}, 'slept'), h('dd', { class: 'mono' }, `${result.slept} s`),
        h('dt', {}, 'note'), h('dd', { class: 'mono' }, result.note ?? '—'),
        h('dt', {}, 'served by'), h('dd', { class: 'mono' }, result.served_by),
        h('dt', {}, 'attempts'), h('dd', { class: 'mono' }, attempts),
        h('dt', {}, 'Idempotency-Key'), h('dd', { class: 'mono' }, key),
      ),
    );
  } catch (error) {
    panel.dataset.state = 'failed';
    replaceChildren(
      panel,
      h(
        'div',
        { class: 'result-head' },
        h('span', { class: 'fail-mark', 'aria-hidden': 'true' }, '✕'),
        h('strong', {}, 'Failed'),
        h('span', { class: 'mono muted' }, `key ${key}`),
      ),
      h('p', { class: 'mono small' }, errorText(error)),
    );
  } finally {
    button.disabled = false;
  }
}

// ------------------------------------------------------------------ writes resumed after a reload
/** Why a stored write was not sent again. */
const SKIPPED_TEXT: Record<string, string> = {
  expired: 'not sent again: its repeat window ran out',
  'other-tab': 'left to another tab of this page, which sends it',
  'no-proxy': 'not sent again: no proxy for its path',
};

/** A call's answer in a few words. */
function resultText(value: unknown): string {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    if (record.action === 'slow') return `note "${String(record.note)}", executions ${String(record.executions)}`;
    if ('id' in record && 'name' in record) return `item #${String(record.id)} "${String(record.name)}"`;
    const keys = Object.keys(record);
    if (keys.length === 1 && record[keys[0]] === null) return `item #${keys[0]} deleted`;
  }
  return JSON.stringify(value) ?? 'no content';
}

/** Shows what became of a write a previous page stored; `onlyNew`: leave a row already shown alone. */
function showResumed(entry: ResumedCall, rowState: string, text: string, onlyNew = false): void {
  const list = byId('resumed-calls');
  let row = (Array.from(list.children) as HTMLElement[]).find((child) => child.dataset.key === entry.key);
  if (row && onlyNew) return;
  if (!row) {
    row = h(
      'li',
      { 'data-key': entry.key },
      h('span', { class: 'resumed-call mono' }, `${entry.method} ${entry.path}`),
      h('span', { class: 'resumed-key mono', title: `Idempotency-Key ${entry.key}` }, `key ${entry.key.slice(0, 8)}`),
      h('span', { class: 'muted' }, `first sent ${clock(entry.issuedAt)}`),
      h('span', { class: 'resumed-state' }),
    );
    list.append(row);
  }
  row.dataset.state = rowState;
  row.lastElementChild!.textContent = text;
  byId('resumed').hidden = false;
}

/**
 * Sends again the writes a previous page stored and did not see settle (the REST proxy exists by
 * now), and notes each one's fate. A browser without IndexedDB just has nothing to resume.
 */
async function resumeStored(): Promise<void> {
  let entries: ResumedCall[];
  try {
    entries = await resumeCalls({
      onSettle(entry, outcome) {
        if (entry.skipped === 'expired') showResumed(entry, 'expired', SKIPPED_TEXT.expired);
        else if (!outcome.ok) showResumed(entry, 'failed', `failed after the reload: ${errorText(outcome.error)}`);
        else {
          showResumed(entry, 'done', `completed after the reload, with its original key — ${resultText(outcome.value)}`);
          void loadItems();
          void refreshCounters();
        }
      },
    });
  } catch (error) {
    console.warn('the stored writes could not be resumed', error);
    return;
  }
  for (const entry of entries) {
    if (entry.call) showResumed(entry, 'sending', 'sent again with its Idempotency-Key and the same bytes…', true);
    else if (entry.skipped && entry.skipped !== 'expired') showResumed(entry, 'skipped', SKIPPED_TEXT[entry.skipped], true);
  }
}

// ------------------------------------------------------------------ transport
function renderTransport(): void {
  byId('transport-rest').setAttribute('aria-pressed', String(state.transport === 'rest'));
  byId('transport-muxws').setAttribute('aria-pressed', String(state.transport === 'muxws'));
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-fault]')) {
    button.disabled = !faultUsable(button.dataset.fault ?? '');
  }
  byId<HTMLSelectElement>('fault-target').disabled = state.transport !== 'rest';
  byId('fault-hint').textContent =
    state.transport === 'rest'
      ? 'Faults are queued on the proxy in front of the backend and hit the next matching calls.'
      : 'Over muxws every call travels inside one WebSocket tunnel through the proxy: ' +
        'cut it to see the calls repeated once the peer has reconnected, and the live list catch up from its cursor.';
  byId<HTMLInputElement>('fault-503-count').disabled = state.transport !== 'rest';
  renderPolicy();
}

async function switchTransport(target: 'rest' | 'muxws'): Promise<void> {
  if (target === state.transport || !state.config) return;
  const note = byId('transport-note');
  const buttons = [byId<HTMLButtonElement>('transport-rest'), byId<HTMLButtonElement>('transport-muxws')];
  for (const button of buttons) button.disabled = true;
  try {
    if (target === 'muxws') {
      note.hidden = false;
      note.textContent = 'connecting…';
      // the listeners may run before connectMuxws resolves; only the current peer's events are shown
      const mine: { peer?: MuxwsPeer } = {};
      const current = () => mine.peer === undefined || state.peer === mine.peer;
      const { api: muxApi, peer } = await muxwsItems(state.config.wsUrl, {
        onClose: (reason) => {
          if (current()) note.textContent = reason.willRetry ? 'WebSocket lost, reconnecting…' : 'WebSocket closed';
        },
        onReconnect: (attempt) => {
          if (current()) note.textContent = `reconnected (${attempt}×)`;
        },
      });
      mine.peer = peer;
      state.api = muxApi;
      state.peer = peer;
      note.textContent = 'connected';
      void startLive(muxApi, 'muxws');
    } else {
      const peer = state.peer;
      state.api = restItems(state.config.baseUrl);
      state.peer = null;
      note.hidden = true;
      // the live list's follower first: closing it unsubscribes over the peer, which drains it
      await stopLive();
      void startLive(state.api, 'rest');
      await peer?.close({ drainMs: 2000 });
    }
    state.transport = target;
  } catch (error) {
    note.hidden = false;
    note.textContent = `muxws failed: ${errorText(error)}`;
  } finally {
    byId<HTMLButtonElement>('transport-rest').disabled = false;
    byId<HTMLButtonElement>('transport-muxws').disabled = !muxwsAvailable;
    renderTransport();
  }
  await loadItems();
}

function renderPolicy(): void {
  const rows: [string, string][] = [
    ['Transport', state.transport === 'rest' ? 'REST (fetch)' : 'muxws (one WebSocket)'],
    ['Idempotency-Key', 'a new UUID per call, the same on every repeat'],
    ['Attempt timeout', duration(ATTEMPT_TIMEOUT_MS)],
    ['First repeat delay', `${duration(REPEAT.delayMs)}, doubled after each, at most 30 s`],
    ['Repeats stop after', duration(REPEAT.withinMs).replace('120 s', '2 min')],
    ['Offline', 'repeats wait for the network without spending attempts, then go at once'],
    [
      'Reload',
      state.transport === 'rest'
        ? 'writes are stored until they settle and sent again after a reload; the page asks before closing while one is pending'
        : 'calls over muxws are not stored; the page asks before closing while one is pending',
    ],
  ];
  replaceChildren(byId('policy'), ...rows.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]));
}

// ------------------------------------------------------------------ start
async function resetDemo(): Promise<void> {
  const button = byId<HTMLButtonElement>('demo-reset');
  button.disabled = true;
  try {
    await backend().reset();
    state.calls.clear();
    state.baseline = null;
    state.shownRuns.clear();
    await refreshCounters();
    byId('log').replaceChildren();
    byId('log-empty').hidden = false;
    const panel = byId('slow-result');
    panel.dataset.state = 'empty';
    replaceChildren(panel, h('span', { class: 'muted' }, 'No result yet.'));
    await Promise.all([loadItems(), refreshFaults(), reloadLive()]);
  } catch (error) {
    showError(errorText(error));
  } finally {
    button.disabled = false;
  }
}

function wire(): void {
  byId<HTMLFormElement>('create-form').addEventListener('submit', (event) => void createItem(event));
  byId<HTMLFormElement>('slow-form').addEventListener('submit', (event) => void runSlow(event));
  byId('items-refresh').addEventListener('click', () => void loadItems());
  byId('retry-now').addEventListener('click', () => {
    retryNow();
    renderActivity();
  });
  byId('log-clear').addEventListener('click', () => {
    byId('log').replaceChildren();
    byId('log-empty').hidden = false;
  });
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-fault]')) {
    button.addEventListener('click', () => void queueFault(button));
  }
  byId('fault-clear').addEventListener('click', async () => {
    await backend().clearFaults().catch((error: unknown) => showError(errorText(error)));
    await refreshFaults();
  });
  byId('demo-reset').addEventListener('click', () => void resetDemo());
  byId('resumed-dismiss').addEventListener('click', () => {
    byId('resumed').hidden = true;
    byId('resumed-calls').replaceChildren();
  });
  // the busy indicator follows the platform's online state at once, not only on the next tick
  window.addEventListener('online', renderActivity);
  window.addEventListener('offline', renderActivity);
  byId('transport-rest').addEventListener('click', () => void switchTransport('rest'));
  byId('transport-muxws').addEventListener('click', () => void switchTransport('muxws'));

  // the runs badges next to the two main buttons
  const runsBadge = (id: string, what: string) =>
    h('span', { id, class: 'runs-badge', title: `How often the backend ran ${what} since the page loaded` }, 'ran 0×');
  byId('create-submit').after(runsBadge('create-runs', 'create'));
  byId('slow-run').after(runsBadge('slow-runs', 'the slow action'));

  const muxws = byId<HTMLButtonElement>('transport-muxws');
  muxws.disabled = !muxwsAvailable;
  if (!muxwsAvailable) {
    muxws.title = 'This build of the package has no muxws client (connectMuxws) yet';
    const note = byId('transport-note');
    note.hidden = false;
    note.textContent = 'muxws: not in this build yet';
  }
}

async function start(): Promise<void> {
  wire();
  let config: DemoConfig;
  try {
    config = await loadConfig();
  } catch (error) {
    document.body.dataset.ready = 'error';
    showError(`The demo server did not provide /config.json (${errorText(error)}). Start the page with scripts/demo.sh.`);
    return;
  }
  state.config = config;
  state.backend = new Backend(config);
  state.api = restItems(config.baseUrl);
  byId('backend-info').textContent = `Backend ${config.baseUrl} and ${config.wsUrl}, both through the fault proxy`;
  onCallActivity(onActivity);
  // closing or reloading the tab asks first while a call that is not background is pending
  guardUnload();
  renderTransport();
  renderCounters();
  await refreshCounters(); // the baseline, before this page's first call
  await resumeStored(); // after the REST proxy for /items is made: it sends the stored writes
  await Promise.all([loadItems(), refreshFaults(), startLive(api(), 'rest')]);
  setInterval(renderActivity, 250);
  setInterval(() => {
    void refreshCounters();
    void refreshFaults();
  }, 1500);
  document.body.dataset.ready = 'true';
}

void start();
