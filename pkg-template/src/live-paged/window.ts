/**
 * The window of a paged live list (part of the paged list's chunk, `live/paged.js`, which the live
 * list loads once a list turns out paged): which pages of the ViewSet's list the list holds, and how
 * each is read. A plain list is one page, the whole list. A paginated list
 * (offset, limit, count) or a cursor list (next and previous cursors) is read a page at a time:
 * the window starts with the page its params name (the first, unless they give an `offset` or a
 * `cursor`), grows by one page at either end (`more`), and is read again whole (`all`): every page
 * once, in order, each from where the page before it ended as the server now holds it. So after
 * any read the window is exactly what a fresh read of the same number of pages gives. Its last
 * page can also be read again alone (`again`), from the query it was read with: the live list
 * joins it to the rows before it when a change moved only the window's end.
 *
 * Nothing the server answers is trusted: a page that is not an array of records or an envelope of
 * them rejects the read; flags and cursors of the wrong type count as absent.
 */
import { isObject } from '../shared/values.js';
import type { ListShape, LiveWindowSeed } from '../vocabulary/live-types.js';
import { pageOf, text, whole, type Page } from '../shared/page.js';

export { pageOf, type Page };

/** What a page read reads with: the list's params, and the page's offset and limit or cursor. */
export type PageQuery = Record<string, unknown>;

/** The pages a live list holds, and how they are read. */
export class ListWindow {
  /** Reads one page (the list's own action, in the background). */
  readonly #read: (query: PageQuery) => Promise<unknown>;
  readonly #params: PageQuery;
  /** Pages wanted from the start page on (at least 1), and before it. */
  #ahead = 1;
  #behind = 0;
  /** The window's first and last pages, as last read. */
  head: Page | undefined;
  tail: Page | undefined;
  /** The query the last page was read with (`again` reads it again). */
  #tailQuery: PageQuery | undefined;
  /** Rows a page holds: the first page's limit (a cursor page read again may hold more). */
  #size = 0;
  /** The count of the page read last. */
  #count: number | null = null;

  constructor(read: (query: PageQuery) => Promise<unknown>, params: PageQuery | undefined) {
    this.#read = read;
    this.#params = { ...params };
  }

  /** The shape of the list, once a page was read. */
  get shape(): ListShape | undefined {
    return this.tail?.shape;
  }

  /** The server's count of the whole list (paginated lists), else null. */
  get total(): number | null {
    return this.#count;
  }

  /** Whether a page follows the window (true until the first page is read). */
  get hasMore(): boolean {
    return !this.tail || this.tail.hasMore;
  }

  /** Whether a page comes before the window. */
  get hasPrevious(): boolean {
    return !!this.head?.hasPrevious;
  }

  /** Pages the window holds from its start page on, and before it. */
  get pages(): number {
    return this.#ahead;
  }

  get behind(): number {
    return this.#behind;
  }

  /** Whether the last page can be read again alone (`again`): its query is known (a window a server seeded is not, until read here). */
  get rereadable(): boolean {
    return this.#tailQuery !== undefined;
  }

  /** Rows a page holds (the first page's limit). */
  get size(): number {
    return this.#size;
  }

  /** The window is to hold one page more after (1) or before (-1) its pages when next read whole. */
  grow(direction: number): void {
    if (direction < 0) this.#behind++;
    else this.#ahead++;
  }

  /**
   * Starts from a window read elsewhere (a server's `readLiveList()`, `initial.window`): its pages
   * are the window, its last page says what follows, its first what comes before. Input from a
   * server: a TypeError for what is not such a window (a field of the wrong type, a cursor page
   * that says more without its cursor).
   */
  seed(window: LiveWindowSeed): void {
    const page = (value: unknown): Page => {
      const { shape, count, hasMore, hasPrevious, next, previous, offset, limit } = (isObject(value) ? value : {}) as Record<string, unknown>;
      const cursor = (more: unknown, at: unknown): boolean => typeof more === 'boolean' && (at === null || text(at) !== null) && (!more || shape !== 'cursor' || at !== null);
      if (!/^(plain|paginated|cursor)$/.test(shape as string) || (count !== null && whole(count) === null) || whole(offset) === null || whole(limit) === null || !cursor(hasMore, next) || !cursor(hasPrevious, previous)) {
        throw new TypeError('liveList(): initial.window is not a window of pages');
      }
      return { rows: [], shape, count, hasMore, hasPrevious, next, previous, offset, limit } as Page;
    };
    const pages = isObject(window) ? window.pages : undefined;
    if (!Number.isSafeInteger(pages) || (pages as number) < 1) throw new TypeError('liveList(): initial.window.pages must be a whole number, 1 or more');
    this.head = page(window.head);
    this.tail = page(window.tail);
    this.#ahead = pages as number;
    this.#count = this.tail.count;
  }

  async #page(query: PageQuery): Promise<Page> {
    return this.#take(await this.#read(query));
  }

  /** An answer of a page read, as the window's page (its count the window's). */
  #take(answer: unknown): Page {
    const page = pageOf(answer);
    this.#count = page.count;
    return page;
  }

  /** The query of the page after `page` (its next cursor, or the offset after it). */
  #after(page: Page): PageQuery {
    return page.shape === 'cursor' ? { ...this.#params, cursor: page.next, limit: this.#size || page.limit } : { ...this.#params, offset: page.offset + page.limit, limit: page.limit };
  }

  /** The query of the page before `page`. */
  #before(page: Page): PageQuery {
    if (page.shape === 'cursor') return { ...this.#params, cursor: page.previous, limit: this.#size || page.limit };
    const offset = Math.max(0, page.offset - page.limit);
    return { ...this.#params, offset, limit: page.offset - offset };
  }

  /**
   * Reads the whole window again: the start page, the pages after it, then the pages before it,
   * one at a time, each from where the one read before it ends. `moved`: the list's count changed
   * between two of these reads (a paginated list shifted under the read: read it again). `first`:
   * the start page's answer, already read (the read that showed the list is paged).
   */
  async all(first?: { answer: unknown }): Promise<{ rows: unknown[]; moved: boolean }> {
    const start = first ? this.#take(first.answer) : await this.#page(this.#params);
    this.#size = start.limit;
    const rows = [...start.rows];
    let moved = false;
    let tail = start;
    let tailQuery = this.#params;
    let ahead = 1;
    while (ahead < this.#ahead && tail.hasMore && tail.shape !== 'plain') {
      const query = this.#after(tail);
      const page = await this.#page(query);
      tailQuery = query;
      moved ||= page.count !== tail.count;
      rows.push(...page.rows);
      tail = page;
      ahead++;
    }
    let head = start;
    let behind = 0;
    const before: unknown[][] = [];
    while (behind < this.#behind && head.hasPrevious && head.shape !== 'plain') {
      const page = await this.#page(this.#before(head));
      moved ||= page.count !== head.count;
      before.unshift(page.rows);
      head = page;
      behind++;
    }
    // a list that shrank holds fewer pages: the next page is read from where it now ends
    this.#ahead = ahead;
    this.#behind = behind;
    this.head = head;
    this.tail = tail;
    this.#tailQuery = tailQuery;
    return { rows: before.flat().concat(rows), moved };
  }

  /**
   * Reads the page after the window (or before it, `direction` -1) and makes it part of the
   * window. `moved`: the list's count is not what the window's edge page said (rows were created
   * or deleted since: the window is to be read again whole).
   */
  async more(direction: number): Promise<{ rows: unknown[]; moved: boolean }> {
    const back = direction < 0;
    const edge = back ? this.head : this.tail;
    if (!edge) {
      // a window not known (rows given without it): read again whole, with the page asked for
      this.grow(direction);
      return { rows: [], moved: true };
    }
    const query = back ? this.#before(edge) : this.#after(edge);
    const page = await this.#page(query);
    if (back) {
      this.head = page;
      this.#behind++;
    } else {
      this.tail = page;
      this.#tailQuery = query;
      this.#ahead++;
    }
    return { rows: page.rows, moved: page.count !== edge.count };
  }

  /**
   * Reads the window's last page again, from the query it was read with (a cursor page: `limit`
   * rows from its cursor, so that the window holds as many as a fresh read would). The page is
   * the window's last once the list joins it (`keepTail`).
   */
  again(limit: number): Promise<Page> {
    const query = this.#tailQuery as PageQuery;
    return this.#page(this.tail?.shape === 'cursor' ? { ...query, limit } : query);
  }

  /** The page `again` read is the window's last (and its first, when the window is one page). */
  keepTail(page: Page): void {
    if (this.head === this.tail) this.head = page;
    this.tail = page;
  }
}
