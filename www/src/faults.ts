// The fault panel: the faults queued at the fault proxy and the ones that fired, and the buttons
// that queue them.
import { FAULT_TARGETS, type FaultListing } from './backend';
import { byId, clock, h, replaceChildren } from './dom';
import { backend, errorText, showError, state } from './state';

let faultsInFlight = false;

/** Reads the fault proxy's listing and shows it (one read at a time). */
export async function refreshFaults(): Promise<void> {
  if (faultsInFlight || !state.backend) return;
  faultsInFlight = true;
  try {
    renderFaults(await state.backend.faults());
  } catch {
    /* the next poll tries again */
  } finally {
    faultsInFlight = false;
  }
}

function describeMode(mode: string): string {
  // A connection closed before the answer's head (drop_after) is resent by Chromium on its own when
  // the connection was a reused keep-alive one, so the page never sees it; a cut-off body is not.
  if (mode === 'truncate_after') return 'lose the answer';
  if (mode === 'drop_after') return 'drop the connection';
  if (mode.startsWith('status:')) return `${mode.slice(7)} error page`;
  if (mode.startsWith('delay:')) return `hold the answer ${mode.slice(6)} s`;
  return mode;
}

function renderFaults(listing: FaultListing): void {
  const queued = byId('fault-list');
  if (listing.faults.length === 0) replaceChildren(queued, h('li', { class: 'muted' }, 'none'));
  else
    replaceChildren(
      queued,
      ...listing.faults.map((fault) =>
        h(
          'li',
          { class: 'chip', 'data-mode': fault.mode },
          h('strong', {}, describeMode(fault.mode)),
          ` ×${fault.remaining} · ${fault.method ?? 'any'} ${fault.path}`,
        ),
      ),
    );
  const fired = byId('fault-fired');
  const recent = listing.fired.slice(-4).reverse();
  if (recent.length === 0) replaceChildren(fired, h('li', { class: 'muted' }, 'none'));
  else
    replaceChildren(
      fired,
      ...recent.map((fault) =>
        h(
          'li',
          {},
          h('span', { class: 'mono muted' }, clock(fault.t * 1000)),
          ' ',
          h('strong', {}, describeMode(fault.mode)),
          ` on ${fault.request}`,
        ),
      ),
    );
}

/** Queues the fault of `button` (or cuts the WebSockets), then reads the listing again. */
export async function queueFault(button: HTMLButtonElement): Promise<void> {
  const mode = button.dataset.fault ?? '';
  button.disabled = true;
  try {
    if (mode === 'kill_ws') {
      await backend().killWebSockets();
    } else {
      const target = FAULT_TARGETS[byId<HTMLSelectElement>('fault-target').value] ?? FAULT_TARGETS.slow;
      const count = mode.startsWith('status:') ? clampInt(byId<HTMLInputElement>('fault-503-count').value, 1, 9) : 1;
      await backend().queueFault(mode, target, count);
    }
    button.classList.add('queued');
    setTimeout(() => button.classList.remove('queued'), 900);
  } catch (error) {
    showError(errorText(error));
  } finally {
    button.disabled = !faultUsable(mode);
    await refreshFaults();
  }
}

/** HTTP faults hit REST calls; a muxws call travels inside the WebSocket tunnel, which only kill_ws reaches. */
export function faultUsable(mode: string): boolean {
  return mode === 'kill_ws' ? state.transport === 'muxws' : state.transport === 'rest';
}

/** `value` as a whole number from `min` to `max` (`min` for anything else). */
export function clampInt(value: string, min: number, max: number): number {
  const n = Math.trunc(Number(value));
  return Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : min;
}
