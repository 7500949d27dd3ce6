/**
 * The timeline, drawn as SVG: one lane per call, each attempt a bar from when it went out to when it
 * ended (its colour and its label how it ended: answered, timeout, connection lost, a gateway's
 * 502/503/504, refused, abandoned, its answer thrown away), and the waits between attempts as dashed
 * lines with their length; a repeat still waiting runs to when it goes, with its countdown.
 */
import type { AttemptView, CallView } from '../devtools-subpath/store.js';
import { duration, s } from './dom.js';

/** What an attempt's end is called in the picture. */
export function endLabel(attempt: AttemptView): string {
  switch (attempt.ended) {
    case null: return 'in flight';
    case 'answered': return attempt.status ? `answered ${attempt.status}` : 'answered';
    case 'gateway': return `${attempt.status || 'gateway'} from a gateway`;
    case 'connection-lost': return 'connection lost';
    case 'answer-lost': return 'answer thrown away (devtools)';
    case 'refused': return attempt.status ? `refused ${attempt.status}` : 'stream refused';
    case 'abandoned': return 'abandoned (its call was cancelled, or a newer attempt went)';
    default: return attempt.ended;
  }
}

/** The transport of an attempt as the panel names it. */
export function transportLabel(transport: string): string {
  return transport === 'rest-for-muxws' ? 'REST in place of muxws' : transport === 'muxws' ? 'muxws' : 'REST';
}

const LANE = 44;
const LEFT = 8;

/**
 * Draws `calls` (each a lane, oldest first) on one time axis ending at `now`, `width` pixels wide.
 * Each attempt is a `<g class="attempt" data-attempt data-ended>`, each wait a `<g class="wait" data-ms>`.
 */
export function timeline(calls: readonly CallView[], now: number, width: number): SVGElement {
  let from = Infinity;
  let to = -Infinity;
  for (const call of calls) {
    from = Math.min(from, call.attempts[0]?.start ?? call.issuedAt);
    const last = call.attempts[call.attempts.length - 1];
    to = Math.max(to, call.settled?.at ?? now, call.waitUntil ?? 0, last?.end ?? now);
  }
  if (!(to > from)) to = from + 1;
  const span = to - from;
  // room on the right for the last attempt's label
  const right = width - 100;
  const x = (t: number): number => LEFT + ((t - from) / span) * (right - LEFT);
  const svg = s('svg', { class: 'timeline', width, height: calls.length * LANE + 24, viewBox: `0 0 ${width} ${calls.length * LANE + 24}`, role: 'img', 'aria-label': 'the attempts of each call in time' });
  calls.forEach((call, lane) => {
    const y = lane * LANE + 14;
    const group = s('g', { class: 'lane', 'data-key': call.key });
    group.append(s('text', { x: LEFT, y: y - 2, class: 'lane-title' }, `${call.method} ${call.path}`));
    let previousEnd: number | null = null;
    for (const attempt of call.attempts) {
      if (previousEnd !== null && attempt.start >= previousEnd) group.append(wait(x(previousEnd), x(attempt.start), y + 12, attempt.start - previousEnd, false));
      const end = attempt.end ?? now;
      const x0 = x(attempt.start);
      const w = Math.max(3, x(end) - x0);
      const label = `#${attempt.n} ${endLabel(attempt)} · ${transportLabel(attempt.transport)} · ${duration(end - attempt.start)}`;
      group.append(
        s(
          'g',
          { class: `attempt end-${attempt.ended ?? 'open'}`, 'data-attempt': attempt.n, 'data-ended': attempt.ended ?? 'in-flight', 'data-transport': attempt.transport, 'data-status': attempt.status },
          s('title', {}, label),
          s('rect', { x: x0, y: y + 4, width: w, height: 16, rx: 3 }),
          s('text', { x: x0 + 3, y: y + 16, class: 'attempt-label' }, `#${attempt.n}`),
          s('text', { x: x0, y: y + 32, class: 'end-label' }, endLabel(attempt)),
        ),
      );
      previousEnd = attempt.end;
    }
    // a repeat waiting now: up to when it goes, with its countdown
    if (call.state !== 'settled' && call.state !== 'in-flight' && previousEnd !== null) {
      const until = call.state === 'delay' && call.waitUntil !== null ? Math.max(call.waitUntil, now) : now;
      group.append(wait(x(previousEnd), x(until), y + 12, until - previousEnd, true, call.state === 'delay' && call.waitUntil !== null ? `goes in ${duration(call.waitUntil - now)}` : `waits: ${call.state}`));
    }
    svg.append(group);
  });
  svg.append(s('text', { x: LEFT, y: calls.length * LANE + 20, class: 'axis' }, `${duration(span)} shown`));
  return svg;
}

/** A wait between two attempts (or before a waiting repeat), from `x0` to `x1` at `y`. */
function wait(x0: number, x1: number, y: number, ms: number, open: boolean, text?: string): SVGElement {
  return s(
    'g',
    { class: open ? 'wait waiting' : 'wait', 'data-ms': Math.round(ms) },
    s('title', {}, text ?? `waited ${duration(ms)}`),
    s('line', { x1: x0, x2: Math.max(x0 + 1, x1), y1: y, y2: y }),
    // a repeat sent at once (after a timeout) has no wait to label
    ms < 5 && !text ? null : s('text', { x: x0 + 2, y: y - 4, class: 'wait-label' }, text ?? `wait ${duration(ms)}`),
  );
}
