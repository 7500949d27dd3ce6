/**
 * The listener sets of a muxws peer (`onClose`, `onReconnect`, open interceptors): adding one in a
 * wrapper of its own, reading them from the connect options, and calling them so that one that
 * throws harms nothing.
 */
import { services } from './module.js';

/** An `onClose` or `onReconnect` listener, an open interceptor. */
export type Listener = (...args: any[]) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Listener options: a function or an array of functions. */
export function functions(options: unknown, name: string): Listener[] {
  const value = services.get(options, name);
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  if (!list.every((f) => typeof f === 'function')) throw new TypeError(`${name} must be a function or an array of functions`);
  return list as Listener[];
}

/**
 * Adds `listener` to `listeners` in a wrapper of its own, so that one function added twice runs
 * twice and each remover removes its own; returns the remover. `what` names the method in errors.
 */
export function addListener(listeners: Set<Listener>, listener: unknown, what: string): () => void {
  if (typeof listener !== 'function') throw new TypeError(`${what} takes a function`);
  const entry = (...args: unknown[]): unknown => listener(...args);
  listeners.add(entry);
  return () => void listeners.delete(entry);
}

/** Calls every listener of `listeners` with `args`; one that throws is reported on the console and harms nothing. */
export function notify(listeners: Set<Listener>, which: 'onClose' | 'onReconnect' | 'onFallback', ...args: unknown[]): void {
  for (const listener of [...listeners]) {
    try {
      listener(...args);
    } catch (error) {
      services.warn(`a muxws ${which} listener threw; the peer and the other listeners go on`, error);
    }
  }
}
