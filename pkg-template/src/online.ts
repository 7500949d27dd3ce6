/**
 * The package's one source of "online / offline": where the platform says (browsers and workers:
 * `navigator.onLine` and the `online` / `offline` events), every subscriber is told each change;
 * elsewhere (Node) the platform is always online. The call runtime, the muxws peers and the
 * followers subscribe to it; the platform's events are listened to once.
 */

/** Told `true` when the platform comes back online, `false` when it goes offline. */
export type OnlineListener = (online: boolean) => void;

/** What a subscriber of the platform's connectivity uses. */
export interface OnlineSource {
  /**
   * Tells `listener` at once whether the platform says it is online now (true where it cannot
   * say), then every change; returns its remover.
   */
  subscribe(listener: OnlineListener): () => void;
}

type Platform = { navigator?: { onLine?: unknown }; addEventListener?: (type: string, listener: () => void) => void };

const listeners = new Set<OnlineListener>();
let listening = false;

/** Tells every subscriber (the package's own: each keeps its failures to itself). */
function tell(online: boolean): void {
  for (const listener of listeners) listener(online);
}

/** The platform's connectivity, shared by every part of the package. */
export const online: OnlineSource = {
  subscribe(listener) {
    const scope = globalThis as Platform;
    listener(scope.navigator?.onLine !== false);
    // only where the platform says: a scope with addEventListener but no navigator.onLine is not followed
    if (!listening && typeof scope.navigator?.onLine === 'boolean' && typeof scope.addEventListener === 'function') {
      listening = true;
      scope.addEventListener('online', () => tell(true));
      scope.addEventListener('offline', () => tell(false));
    }
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};
