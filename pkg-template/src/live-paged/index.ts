/**
 * The paged list's chunk (`live/paged.js`): what only a live list read a page at a time needs — its
 * window of pages (`ListWindow`, `pageOf`), `loadMore()`'s page joined, and the window patched from
 * changes. The live list (live/live-list.ts) loads it through its services (`loadPaged`) the first
 * time a list turns out paged: by its options, its proxy (no `list()`), a server's window
 * (`initial.window`) or a first answer that is a page; a plain list never loads it.
 */
export { ListWindow, pageOf } from './window.js';
export { placeIn, readMore, readTail } from './patch.js';
