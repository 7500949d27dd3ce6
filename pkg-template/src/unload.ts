/**
 * `guardUnload()`: while calls that are not background are pending, the page asks before it is
 * unloaded (closed, reloaded, navigated away), so that a write waiting for its repeat is not lost
 * by accident. Returns the function that stops it.
 */
import { pendingCallCount } from './runtime.js';

/**
 * While calls that are not background are pending, the page asks before it is unloaded (the
 * browser's own "leave site?" prompt). Returns the function that stops it; does nothing outside a page.
 */
export function guardUnload(): () => void {
  const scope = globalThis as { addEventListener?: Window['addEventListener']; removeEventListener?: Window['removeEventListener'] };
  if (typeof scope.addEventListener !== 'function') return () => {};
  const ask = (event: BeforeUnloadEvent): void => {
    if (pendingCallCount() === 0) return;
    event.preventDefault();
    // Older browsers ask only when returnValue is set.
    event.returnValue = true;
  };
  scope.addEventListener('beforeunload', ask);
  return () => scope.removeEventListener?.('beforeunload', ask);
}
