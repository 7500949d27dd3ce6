/**
 * Reading what the events viewset sends (a poll's answer, a subscribe's answer, a push's headers)
 * into the engine's inputs: hostile input, so only own properties are read, every rev is checked,
 * caps are checked before any work, and nothing costs more than linear in what came.
 */
import { isObject, isWhole } from '../shared/values.js';
import type { Item, TopicAnswer, WireEvent } from './engine.js';

/** Scope keys longer than this are not taken. */
export const MAX_SCOPE = 1024;
/** Events one topic's answer may hold; an answer with more is a resync (the server keeps 32 by default). */
export const MAX_EVENTS = 10_000;

/** `object[name]` when `object` has it as its own property (never an inherited `__proto__` or getter). */
export function own(object: Record<string, unknown>, name: string): unknown {
  return Object.prototype.hasOwnProperty.call(object, name) ? object[name] : undefined;
}

/** A scope key as the server sends it, or undefined for none (or one not taken). */
export function scopeOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= MAX_SCOPE ? value : undefined;
}

/** What a payload costs to keep: the length of its JSON. */
export function bytesOf(payload: unknown): number {
  try {
    return JSON.stringify(payload)?.length ?? 0;
  } catch {
    return 0;
  }
}

/** Makes the error of a topic the server refused (`status`, its error body). */
export type Refuse = (status: number, body: unknown, topic: string) => unknown;

/**
 * A poll's answer read for the topics it asked (`topics`); undefined when it is not a poll's
 * answer at all. `floorMs` is its `poll_after_ms` (0 when not a rev).
 */
export function readPoll(answer: unknown, topics: readonly string[], refuse: Refuse): { topics: Map<string, TopicAnswer>; floorMs: number } | undefined {
  const entries = isObject(answer) ? own(answer, 'topics') : undefined;
  if (!isObject(answer) || !isObject(entries)) return undefined;
  const after = own(answer, 'poll_after_ms');
  const out = new Map<string, TopicAnswer>();
  for (const topic of topics) out.set(topic, readTopic(own(entries, topic), topic, refuse));
  return { topics: out, floorMs: isWhole(after) ? after : 0 };
}

/** One topic's entry of a poll's answer. */
function readTopic(entry: unknown, topic: string, refuse: Refuse): TopicAnswer {
  if (!isObject(entry)) return { kind: 'later', error: new Error(`the poll's answer for ${topic} is not an object`) };
  const status = own(entry, 'status');
  if (own(entry, 'error') !== undefined || status !== undefined) {
    // 400–499 other than 429 refuse the topic; 429, 5xx and anything else are asked again later
    if (typeof status === 'number' && status >= 400 && status < 500 && status !== 429) return { kind: 'refused', error: refuse(status, own(entry, 'error'), topic) };
    return { kind: 'later', error: new Error(`the server could not answer for ${topic} now (${String(status)})`) };
  }
  const rev = own(entry, 'rev');
  const events = own(entry, 'events');
  const scope = scopeOf(own(entry, 'scope'));
  if (!isWhole(rev) || (events !== null && !Array.isArray(events))) return { kind: 'later', error: new Error(`the poll's answer for ${topic} is not understood`) };
  // more than the client keeps: the cap before any work, and a resync rather than the same answer again
  if (events === null || events.length > MAX_EVENTS) return { kind: 'gap', rev, scope };
  const read: WireEvent[] = [];
  for (const event of events) {
    const item = readEvent(event);
    // a chain that breaks is left there
    if (!item) return { kind: 'events', rev, scope, events: read, whole: false };
    read.push(item);
  }
  return { kind: 'events', rev, scope, events: read, whole: true };
}

/** One polled event, or undefined when it is not one. */
function readEvent(event: unknown): WireEvent | undefined {
  if (!isObject(event)) return undefined;
  const rev = own(event, 'rev');
  const prev = own(event, 'prev');
  const name = own(event, 'event');
  const version = own(event, 'version');
  if (!isWhole(rev) || !isWhole(prev) || prev >= rev || typeof name !== 'string' || !isWhole(version) || version < 1) return undefined;
  const payload = own(event, 'payload');
  return { rev, prev, event: name, version, payload, bytes: bytesOf(payload) };
}

/** A subscribe's answer: the rev pushes flow from, and the scope; undefined when not understood. */
export function readSubscribed(answer: unknown): { rev: number; scope: string | undefined } | undefined {
  const rev = isObject(answer) ? own(answer, 'rev') : undefined;
  return isWhole(rev) ? { rev, scope: scopeOf(own(answer as Record<string, unknown>, 'scope')) } : undefined;
}

/** A pushed stream's headers and payload: its topic and event, or undefined when it is not an event push. */
export function readPush(headers: unknown, payload: unknown): { topic: string; event: Omit<Item, 'via'> } | undefined {
  if (!isObject(headers)) return undefined;
  const topic = own(headers, ':topic');
  const rev = own(headers, ':rev');
  const prev = own(headers, ':prev');
  const event = own(headers, ':event');
  const version = own(headers, ':version');
  const scope = own(headers, ':scope');
  if (typeof topic !== 'string' || !isWhole(rev) || !isWhole(prev) || prev >= rev || typeof event !== 'string' || !isWhole(version) || version < 1) return undefined;
  if (scope !== undefined && scopeOf(scope) === undefined) return undefined;
  return { topic, event: { rev, prev, event, version, payload, scope: scopeOf(scope), bytes: bytesOf(payload) } };
}
