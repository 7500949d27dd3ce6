/**
 * `@dynamicforms/fastapi-viewsets/devtools` outside development (every production build): the same
 * names as the development entry, doing nothing, importing nothing. An app's bundler drops what it
 * does not use of it: the app ships none of the panel.
 */
import type { DevtoolsOptions } from './index.js';

/** Does nothing outside development. */
export function recordCalls(): void {}

/** Does nothing outside development; returns a function that does nothing. */
export function mountDevtools(options?: DevtoolsOptions): () => void {
  return () => void options;
}

/** Renders nothing outside development. */
export const FastapiViewsetsDevtools = { name: 'FastapiViewsetsDevtools', render: (): null => null };
