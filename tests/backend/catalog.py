"""
Test-backend viewsets that declare every mixin of dynamicforms-fastapi-viewsets 0.14.0, over one
catalog of books, for the end-to-end tests of the 0.6-compatible API (issue 13):

    /catalog/books   ViewSetMixin + a declared filter model: list with `sort` and filters, create,
                     retrieve, update, partial update, destroy
    /catalog/pages   PaginatedListMixin + RetrieveMixin: `{results, offset, limit, count, has_more,
                     has_previous}`, 5 per page unless `limit` says otherwise
    /catalog/cursor  CursorListMixin + RetrieveMixin: `{results, limit, has_more, has_previous, next,
                     previous, first, last}`, 5 per page unless `limit` says otherwise
    /catalog/bulk    BulkViewSetMixin + LookupMixin: the CRUD actions, the four `/bulk` actions and
                     `GET /lookup` (`LookupItem`s grouped by author, `?q=` searches the titles)
    /catalog/indexed BulkViewSetMixin whose one filter is `id__in` (live lists, issue 28)
    POST /__test/catalog/seed   the catalog back to the twelve books of SEED

The five viewsets are views of the same books: what /catalog/bulk writes, /catalog/pages lists.
Without Redis the books live in this process (and start as SEED); with REDIS_URL they live in the
hash `test:catalog:books` shared by every process (seeded by the first process that finds none), as
app.py keeps its items. New ids come from a sequence in both modes (in Redis
`test:catalog:books:seq`): after a seed the next one is 13, and no id is ever handed out twice. `/__test/reset` leaves the books alone (it clears the counters): a test
that reads them seeds first.

Every action counts its executions like app.py's, under `<viewset>.<action>` (`books.list`,
`pages.list`, `bulk.bulk_destroy`, `bulk.lookup`, ...), so a test asserts how often an action ran
through `GET /__test/counters`. app.py's request log covers /catalog too: a request's entry in
`/__test/log` (method, path, query, headers, key) is marked as run by the action it ran.

app.py imports this module after its own viewsets and includes the router `catalog_router()`
builds; the viewsets are routed on both transports (REST and the muxws endpoint `/ws`).
"""

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from redis.asyncio import Redis

from fastapi_viewsets.collection_viewset import CollectionViewSet
from fastapi_viewsets.decorators.route_viewset import route_viewset
from fastapi_viewsets.filters import make_filter_model
from fastapi_viewsets.mixins import (
    BulkViewSetMixin,
    CursorListMixin,
    LookupItem,
    LookupMixin,
    PaginatedListMixin,
    RetrieveMixin,
    ViewSetMixin,
)

BOOKS_KEY = "test:catalog:books"
BOOKS_SEQ_KEY = "test:catalog:books:seq"
PAGE_SIZE = 5


class Book(BaseModel):
    id: int = Field(0, json_schema_extra={"autoinc_int": True})
    title: str
    author: str
    year: int | None = None


BookFilter = make_filter_model(
    Book,
    {
        "author": ["exact", "icontains"],
        "title": ["icontains"],
        "year": ["exact", "gte", "lte", "in", "isnull"],
    },
)
"""Query parameters of every catalog list: `author`, `author__icontains`, `title__icontains`, `year`,
`year__gte`, `year__lte`, `year__in` (repeated: `?year__in=1950&year__in=1960`), `year__isnull`."""

# (title, author, year): two books without a year, authors repeated and in mixed letter case, so
# that sorting, filtering and the NULL placement of a sort each change the order of a page.
SEED: tuple[tuple[str, str, int | None], ...] = (
    ("Dune", "Herbert", 1965),
    ("Emma", "Austen", 1815),
    ("Ubik", "Dick", 1969),
    ("Persuasion", "Austen", 1817),
    ("Solaris", "Lem", 1961),
    ("Valis", "Dick", 1981),
    ("Beowulf", "anonymous", None),
    ("Kindred", "Butler", 1979),
    ("Fiasco", "Lem", 1986),
    ("Gilgamesh", "anonymous", None),
    ("Neuromancer", "Gibson", 1984),
    ("Dawn", "Butler", 1987),
)


def seed_books() -> dict[int, Book]:
    """The books of SEED, ids 1 to 12."""
    return {pk: Book(id=pk, title=title, author=author, year=year) for pk, (title, author, year) in enumerate(SEED, 1)}


Executed = Callable[[Request | None, str], Awaitable[int]]


class _Deps:
    """What app.py hands over: its Redis client (None in memory), its counting `executed()` and its
    `current_request()`. Set once by `catalog_router()`."""

    redis: Redis | None = None
    executed: Executed | None = None
    current_request: Callable[[], Request | None] = staticmethod(lambda: None)


_deps = _Deps()
_books: dict[int, Book] = seed_books()
_last_id = len(SEED)
"""The last id handed out in memory (in Redis: the value of BOOKS_SEQ_KEY)."""


async def _next_id() -> int:
    global _last_id
    if _deps.redis is not None:
        return int(await _deps.redis.incr(BOOKS_SEQ_KEY))
    _last_id += 1
    return _last_id


async def _count(counter: str) -> None:
    if _deps.executed is not None:
        await _deps.executed(_deps.current_request(), counter)


class CatalogViewSet(CollectionViewSet[int, Book]):
    """The shared storage of the catalog viewsets and their counting. `name` prefixes the counters."""

    name = "catalog"

    def __init__(self):
        super().__init__(_books, "id")

    # --- shared storage: with Redis the dict is a write-through copy of the hash test:catalog:books
    async def _sync(self) -> None:
        redis = _deps.redis
        if redis is None:
            return
        if await redis.set(BOOKS_SEQ_KEY, len(SEED), nx=True):
            # the first process to find no catalog in Redis seeds it
            await redis.hset(BOOKS_KEY, mapping={str(pk): book.model_dump_json() for pk, book in seed_books().items()})
        raw = await redis.hgetall(BOOKS_KEY)
        fresh = {int(pk): Book.model_validate_json(value) for pk, value in raw.items()}
        self.container.clear()
        self.container.update(fresh)

    async def _store(self, book: Book) -> None:
        if _deps.redis is not None:
            await _deps.redis.hset(BOOKS_KEY, str(book.id), book.model_dump_json())

    async def container_list(self) -> list[Book]:
        """In id order, in memory and in Redis alike (a Redis hash keeps no order a test can rely on)."""
        await self._sync()
        return sorted(await super().container_list(), key=lambda book: book.id)

    async def container_retrieve(self, pk: int) -> Book:
        await self._sync()
        return await super().container_retrieve(pk)

    async def container_add(self, data: Book) -> Book:
        await self._sync()
        if not data.id:
            # ids from a sequence (shared in Redis, so two processes never hand out the same one):
            # an id is never handed out twice, in memory and in Redis alike
            floor = max(self.container, default=0)
            data.id = await _next_id()
            while data.id <= floor:
                data.id = await _next_id()
        book = await super().container_add(data)
        await self._store(book)
        return book

    async def container_update(self, pk: int, data: Book, partial: bool) -> Book:
        await self._sync()
        book = await super().container_update(pk, data, partial)
        await self._store(book)
        return book

    async def container_delete(self, pk: int) -> None:
        await self._sync()
        await super().container_delete(pk)
        if _deps.redis is not None:
            await _deps.redis.hdel(BOOKS_KEY, str(pk))

    # --- the actions, counted as <name>.<action>
    async def perform_list(self, context):
        await _count(f"{self.name}.list")
        return await super().perform_list(context)

    async def perform_retrieve(self, context, pk: int):
        await _count(f"{self.name}.retrieve")
        return await super().perform_retrieve(context, pk)

    async def perform_create(self, context, data: Book):
        await _count(f"{self.name}.create")
        return await super().perform_create(context, data)

    async def perform_bulk_create(self, context, data: list[Book]):
        await _count(f"{self.name}.bulk_create")
        return await super().perform_bulk_create(context, data)

    async def perform_update(self, context, pk: int, data: Book, partial: bool = True):
        await _count(f"{self.name}.{'partial_update' if partial else 'update'}")
        return await super().perform_update(context, pk, _pinned(pk, data, partial), partial)

    async def perform_bulk_update(self, context, records: dict[int, Book], partial: bool = True):
        await _count(f"{self.name}.{'bulk_partial_update' if partial else 'bulk_update'}")
        pinned = {pk: _pinned(pk, data, partial) for pk, data in records.items()}
        return await super().perform_bulk_update(context, pinned, partial)

    async def perform_destroy(self, context, pk: int):
        await _count(f"{self.name}.destroy")
        return await super().perform_destroy(context, pk)

    async def perform_bulk_destroy(self, context, pk: list[int]):
        await _count(f"{self.name}.bulk_destroy")
        return await super().perform_bulk_destroy(context, pk)


def _pinned(pk: int, data: Book, partial: bool) -> Book:
    """The record keeps the pk of its URL (or of its key in a bulk body): the workaround of the stock
    CollectionViewSet bug app.py describes, where a PUT body without `id` is stored as id 0."""
    if not partial or "id" in data.model_fields_set:
        return data.model_copy(update={"id": pk})
    return data


class BooksViewSet(CatalogViewSet, ViewSetMixin[int, Book, BookFilter]):
    """Books: the list sorts (`?sort=year:desc,title`) and filters (BookFilter)."""

    name = "books"


IndexedFilter = make_filter_model(Book, {"id": ["in"]})
"""The one filter of /catalog/indexed: `id__in`, repeated (`?id__in=1&id__in=2`)."""


class IndexedViewSet(CatalogViewSet, BulkViewSetMixin[int, Book, IndexedFilter]):
    """Books whose list takes `id__in` (its schema says so): a live list reads the records of a
    change in one list call instead of a retrieve each."""

    name = "indexed"


class PagesViewSet(CatalogViewSet, PaginatedListMixin[Book, BookFilter], RetrieveMixin[int, Book]):
    """Books, one offset page at a time."""

    name = "pages"
    default_page_size = PAGE_SIZE


class CursorViewSet(CatalogViewSet, CursorListMixin[Book, BookFilter], RetrieveMixin[int, Book]):
    """Books, one cursor page at a time."""

    name = "cursor"
    default_page_size = PAGE_SIZE


class BulkViewSet(CatalogViewSet, BulkViewSetMixin[int, Book, BookFilter], LookupMixin):
    """Books with the bulk actions and a lookup of titles grouped by author."""

    name = "bulk"

    async def perform_lookup(self, context) -> list[LookupItem]:
        await _count(f"{self.name}.lookup")
        books = await self.container_list()
        books.sort(key=lambda book: (book.author.lower(), book.title))
        return [LookupItem(group=book.author, pk=book.id, title=book.title) for book in books]


def catalog_router(
    *,
    redis: Redis | None,
    executed: Executed,
    current_request: Callable[[], Request | None],
) -> APIRouter:
    """Routes the catalog viewsets and `POST /__test/catalog/seed` on a new router. Called once, by
    app.py, after the viewset settings are in place (route_viewset reads them)."""
    if _deps.executed is not None:
        raise RuntimeError("catalog_router() was already called: each viewset class is routed once")
    _deps.redis = redis
    _deps.executed = executed
    _deps.current_request = current_request

    router = APIRouter()
    route_viewset(router, base_path="/catalog/books", pk_field_name="id")(BooksViewSet)
    route_viewset(router, base_path="/catalog/indexed", pk_field_name="id")(IndexedViewSet)
    route_viewset(router, base_path="/catalog/pages", pk_field_name="id")(PagesViewSet)
    route_viewset(router, base_path="/catalog/cursor", pk_field_name="id")(CursorViewSet)
    route_viewset(router, base_path="/catalog/bulk", pk_field_name="id")(BulkViewSet)

    @router.post("/__test/catalog/seed")
    async def seed() -> dict[str, Any]:
        """The catalog back to SEED (this process's, or the shared one in Redis); the next id is 13."""
        global _last_id
        books = seed_books()
        _last_id = len(SEED)
        _books.clear()
        _books.update(books)
        if redis is not None:
            async with redis.pipeline(transaction=True) as pipe:
                pipe.delete(BOOKS_KEY)
                pipe.hset(BOOKS_KEY, mapping={str(pk): book.model_dump_json() for pk, book in books.items()})
                pipe.set(BOOKS_SEQ_KEY, len(SEED))
                await pipe.execute()
        return {"books": len(books), "redis": redis is not None}

    return router
