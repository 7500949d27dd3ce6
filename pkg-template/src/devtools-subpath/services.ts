/**
 * What the panel's chunk (`devtools/`) is handed by the subpath's entry: one object with named
 * members (the chunk imports only types from outside its folder).
 */
import type { DevStore } from './store.js';

/** The panel's services. */
export interface PanelServices {
  /** The record of calls and live objects, and the two switches (lose the next answer, offline). */
  store: DevStore;
  /**
   * The package's `retryNow()`: every waiting repeat goes at once, under its own key; with `key`,
   * that call's waiting repeat alone (returns how many went: 0 when it was not waiting).
   */
  retryNow(key?: string): number;
  /** Cancels the unsettled call with `key` (it rejects with `CallCancelled`). */
  cancel(key: string): void;
}
