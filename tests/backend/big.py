"""
Test-backend viewsets of 5 000 records each, for live lists bigger than a page (issue 38):

    /catalog/big-pages   PaginatedListMixin + create, retrieve, update, partial update, destroy:
                         `{results, offset, limit, count, has_more, has_previous}`, 100 a page
                         unless `limit` (1-1000) says otherwise; `X-List-Shape: cursor` asks for
                         cursor pages instead
    /catalog/big-cursor  CursorListMixin + the same writes: `{results, limit, has_more,
                         has_previous, next, previous, first, last}`, 100 a page
    POST /__test/big/seed    both back to their 5 000 rows (ids 1 to 5000, the next id 5001)

Each viewset has rows of its own (a write through one publishes to its own topic, the routed base
path, which is what a live list of it follows). A row is `{id, name, rank}`: `name` is
`row 0001` … `row 5000` (the id order), `rank` a permutation of 0…4999 (`(id * 1237) % 5000`), so
that `?sort=rank` orders the rows otherwise than their ids. The lists sort (`?sort=name:desc`) and
filter (`name__icontains`, `rank__gte`, `rank__lte`). The rows live in this process only (a stack of
one process); every action counts as `big_pages.<action>` / `big_cursor.<action>`.
"""

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from fastapi_viewsets.collection_viewset import CollectionViewSet
from fastapi_viewsets.decorators.route_viewset import route_viewset
from fastapi_viewsets.filters import make_filter_model
from fastapi_viewsets.mixins import (
    CreateMixin,
    CursorListMixin,
    DestroyMixin,
    PaginatedListMixin,
    RetrieveMixin,
    UpdateMixin,
)

SIZE = 5000
PAGE_SIZE = 100


class Row(BaseModel):
    id: int = Field(0, json_schema_extra={"autoinc_int": True})
    name: str
    rank: int = 0


RowFilter = make_filter_model(Row, {"name": ["icontains"], "rank": ["gte", "lte"]})
"""Query parameters of both lists: `name__icontains`, `rank__gte`, `rank__lte`."""


def seed_rows() -> dict[int, Row]:
    """Rows 1 to SIZE."""
    return {pk: Row(id=pk, name=f"row {pk:04d}", rank=(pk * 1237) % SIZE) for pk in range(1, SIZE + 1)}


Executed = Callable[[Request | None, str], Awaitable[int]]


class _Deps:
    executed: Executed | None = None
    current_request: Callable[[], Request | None] = staticmethod(lambda: None)


_deps = _Deps()
_stores: dict[str, dict[int, Row]] = {"big_pages": seed_rows(), "big_cursor": seed_rows()}
_last_ids: dict[str, int] = {"big_pages": SIZE, "big_cursor": SIZE}


class BigViewSet(CollectionViewSet[int, Row]):
    """The rows of one viewset (`name`: its store and the prefix of its counters)."""

    name = "big"
    default_page_size = PAGE_SIZE

    def __init__(self):
        super().__init__(_stores[self.name], "id")

    async def _count(self, action: str) -> None:
        if _deps.executed is not None:
            await _deps.executed(_deps.current_request(), f"{self.name}.{action}")

    async def container_list(self) -> list[Row]:
        """In id order."""
        return sorted(await super().container_list(), key=lambda row: row.id)

    async def container_add(self, data: Row) -> Row:
        if not data.id:
            _last_ids[self.name] += 1
            data.id = _last_ids[self.name]
        return await super().container_add(data)

    async def perform_list(self, context):
        await self._count("list")
        return await super().perform_list(context)

    async def perform_retrieve(self, context, pk: int):
        await self._count("retrieve")
        return await super().perform_retrieve(context, pk)

    async def perform_create(self, context, data: Row):
        await self._count("create")
        return await super().perform_create(context, data)

    async def perform_update(self, context, pk: int, data: Row, partial: bool = True):
        await self._count("partial_update" if partial else "update")
        if not partial or "id" in data.model_fields_set:
            data = data.model_copy(update={"id": pk})
        return await super().perform_update(context, pk, data, partial)

    async def perform_destroy(self, context, pk: int):
        await self._count("destroy")
        return await super().perform_destroy(context, pk)


class BigPagesViewSet(
    BigViewSet,
    PaginatedListMixin[Row, RowFilter],
    CreateMixin[int, Row],
    RetrieveMixin[int, Row],
    UpdateMixin[int, Row],
    DestroyMixin[int, Row],
):
    """5 000 rows, one offset page at a time; a client may ask for cursor pages (`X-List-Shape`)."""

    name = "big_pages"
    list_shapes = ("paginated", "cursor")


class BigCursorViewSet(
    BigViewSet,
    CursorListMixin[Row, RowFilter],
    CreateMixin[int, Row],
    RetrieveMixin[int, Row],
    UpdateMixin[int, Row],
    DestroyMixin[int, Row],
):
    """5 000 rows, one cursor page at a time."""

    name = "big_cursor"


def big_router(*, executed: Executed, current_request: Callable[[], Request | None]) -> APIRouter:
    """Routes both viewsets and `POST /__test/big/seed` on a new router (called once, by app.py)."""
    _deps.executed = executed
    _deps.current_request = current_request
    router = APIRouter()
    route_viewset(router, base_path="/catalog/big-pages", pk_field_name="id")(BigPagesViewSet)
    route_viewset(router, base_path="/catalog/big-cursor", pk_field_name="id")(BigCursorViewSet)

    @router.post("/__test/big/seed")
    async def seed() -> dict[str, Any]:
        """Both viewsets back to their SIZE rows; the next id of each is SIZE + 1."""
        for name, store in _stores.items():
            store.clear()
            store.update(seed_rows())
            _last_ids[name] = SIZE
        return {"rows": SIZE}

    return router
