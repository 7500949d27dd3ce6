"""
The real test backend of the SDK: dynamicforms-fastapi-viewsets 0.14.0 with the Idempotency command
middleware first in the chain, an `items` viewset, counting custom actions and muxws at `/ws`.

Environment:
    HOST        bind address; only 127.0.0.1 (or localhost / ::1) is accepted   (default 127.0.0.1)
    PORT        port, read by `python app.py`; with uvicorn pass --port        (default 8101)
    PARENT_WATCH  "stdin": shut down when stdin reaches EOF (the harness's parent watch)
    SERVED_BY   name of this process, echoed in answers and in X-Served-By     (default "M")
    REDIS_URL   redis://... - Idempotency records, counters, request log and items live in Redis,
                shared by every process pointed at it; without it everything is in-process
    LOCK_TTL    settings.viewsets_idempotency_lock_ttl in seconds             (default 6)
    IDEMPOTENCY_TTL  settings.viewsets_idempotency_ttl in seconds             (default 86400)
    EVENT_LOG_SIZE   settings.viewsets_event_log_size: events kept per topic   (default 32)
    EVENT_LOG_TTL    settings.viewsets_event_log_ttl in seconds                (default 60)
    EVENT_POLL_AFTER_MS  settings.viewsets_event_poll_after_ms                 (default 0)

Events (fastapi_viewsets.events): ChangeEvents after Idempotency publishes every write of a viewset
to its topic; the authorizers are ViewsetTopics() and DeclaredSources(); the source `imports` admits
every key but `secret`; `/scoped` is an @event_scope viewset; `register_events` mounts /events; with
REDIS_URL the events live in a RedisEventStore shared by every process.

Run: `.venv/bin/python -m uvicorn app:app --host 127.0.0.1 --port 8101` from this directory,
or `tests/harness/stack.mjs`, which starts Redis, N processes and the fault proxy.
"""

import asyncio
import hashlib
import json
import os
import signal
import socket
import struct
import sys
import threading
import time

from contextlib import asynccontextmanager
from typing import Any

from fastapi import APIRouter, Depends, FastAPI, Header, HTTPException, Request, Response, WebSocket
from fastapi.middleware.cors import CORSMiddleware
from pydantic import BaseModel, Field
from redis.asyncio import BlockingConnectionPool, Redis

# ------------------------------------------------------------------ settings, before any viewset
from fastapi_viewsets.conf import settings
from fastapi_viewsets.middleware.idempotency import Idempotency
from fastapi_viewsets.events import (
    ChangeEvents,
    DeclaredSources,
    Event,
    ViewsetTopics,
    event_scope,
    register_events,
    source,
    start_events,
    stop_events,
)

REDIS_URL = os.environ.get("REDIS_URL") or None
SERVED_BY = os.environ.get("SERVED_BY", "M")
LOCK_TTL = float(os.environ.get("LOCK_TTL", "6"))
IDEMPOTENCY_TTL = float(os.environ.get("IDEMPOTENCY_TTL", "86400"))
HOST = os.environ.get("HOST", "127.0.0.1")
if HOST not in ("127.0.0.1", "localhost", "::1"):
    raise SystemExit(f"HOST={HOST!r}: the test backend binds to the loopback interface only")

def redis_client() -> Redis:
    """A Redis client whose pool waits for a free connection rather than failing: under bursts of
    concurrent calls (each attached repeat holds a connection while it waits for the running call's
    outcome) redis-py's default pool of 100 raises MaxConnectionsError, which the backend answers 500."""
    return Redis(connection_pool=BlockingConnectionPool.from_url(REDIS_URL, max_connections=1000, timeout=30))


redis: Redis | None = redis_client() if REDIS_URL else None


def _exit_when_stdin_ends() -> None:
    """PARENT_WATCH=stdin (set by tests/harness/stack.mjs): the parent holds our stdin open and we
    shut down when it ends, so a harness killed with SIGKILL leaves no server behind."""
    sys.stdin.buffer.read()
    os.kill(os.getpid(), signal.SIGTERM)


if os.environ.get("PARENT_WATCH") == "stdin":
    threading.Thread(target=_exit_when_stdin_ends, name="parent-watch", daemon=True).start()

# ChangeEvents after Idempotency: a write repeated under its key is answered from the stored outcome
# and publishes no second event.
settings.viewsets_command_middleware = [Idempotency(redis_client=redis_client() if REDIS_URL else None), ChangeEvents()]
settings.viewsets_event_authorizers = [ViewsetTopics(), DeclaredSources()]
settings.viewsets_event_log_size = int(os.environ.get("EVENT_LOG_SIZE", "32"))
settings.viewsets_event_log_ttl = float(os.environ.get("EVENT_LOG_TTL", "60"))
settings.viewsets_event_poll_after_ms = int(os.environ.get("EVENT_POLL_AFTER_MS", "0"))
if REDIS_URL:
    from fastapi_viewsets.events.redis import RedisEventStore

    settings.viewsets_event_store = RedisEventStore.from_url(REDIS_URL, key_prefix="test:events:")
settings.viewsets_idempotency_lock_ttl = LOCK_TTL
settings.viewsets_idempotency_ttl = IDEMPOTENCY_TTL

# imported after the settings on purpose: route_viewset reads them when a class is decorated
from fastapi_viewsets.collection_viewset import CollectionViewSet  # noqa: E402
from fastapi_viewsets.decorators.lifecycle_runner import current_call  # noqa: E402
from fastapi_viewsets.decorators.route_viewset import route_viewset  # noqa: E402
from fastapi_viewsets.middleware import ViewSetResult  # noqa: E402
from fastapi_viewsets.mixins import ViewSetMixin  # noqa: E402
from fastapi_viewsets.exceptions import ResultReaderStoppedError, ResultTimeoutError  # noqa: E402
from fastapi_viewsets.mux_ws import process_command  # noqa: E402
from fastapi_viewsets.routing import TRANSPORT_SCOPE_KEY  # noqa: E402
from muxws import accept  # noqa: E402

PREFIX = "test:"
COUNTERS_KEY = PREFIX + "counters"
LOG_KEY = PREFIX + "log"
ITEMS_KEY = PREFIX + "items"
ITEMS_SEQ_KEY = PREFIX + "items:seq"

# Scope key of the request-log entry of the current request; the actions mark it as run.
LOG_SCOPE_KEY = "test.log_entry"
# Scope key under which the websocket's TCP transport is recorded, for /__test/ws/close.
TRANSPORT_KEY = "test.tcp_transport"

# headers copied into the request log (besides every x-* header)
LOGGED_HEADERS = (
    "idempotency-key",
    "origin",
    "content-type",
    "accept",
    "authorization",
    "user-agent",
    "cookie",
    "referer",
)


# ------------------------------------------------------------------ counters and request log
_counters: dict[str, int] = {}
_log: list[dict[str, Any]] = []
_log_seq = 0


async def count(action: str) -> int:
    """Counts one execution of `action` and answers the new count."""
    if redis is not None:
        return int(await redis.hincrby(COUNTERS_KEY, action, 1))
    _counters[action] = _counters.get(action, 0) + 1
    return _counters[action]


async def read_counters() -> dict[str, int]:
    if redis is not None:
        raw = await redis.hgetall(COUNTERS_KEY)
        return {key.decode(): int(value) for key, value in raw.items()}
    return dict(_counters)


async def append_log(entry: dict[str, Any]) -> None:
    global _log_seq
    if redis is not None:
        entry["seq"] = int(await redis.incr(LOG_KEY + ":seq"))
        await redis.rpush(LOG_KEY, json.dumps(entry))
        return
    _log_seq += 1
    entry["seq"] = _log_seq
    _log.append(entry)


async def read_log() -> list[dict[str, Any]]:
    if redis is not None:
        return [json.loads(raw) for raw in await redis.lrange(LOG_KEY, 0, -1)]
    return list(_log)


def mark_ran(request: Request | None, action: str) -> None:
    """Marks the request-log entry of `request` as one whose action ran."""
    if request is None:
        return
    entry = request.scope.get(LOG_SCOPE_KEY)
    if entry is not None:
        entry["ran"] = True
        entry["action"] = action


async def executed(request: Request | None, action: str) -> int:
    mark_ran(request, action)
    return await count(action)


def current_request() -> Request | None:
    call = current_call()
    return call.request if call is not None else None


def header_map(scope: dict) -> dict[str, str]:
    """The request headers, names lower-cased; a repeated header is joined with ', '."""
    headers: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").lower()
        value = raw_value.decode("latin-1")
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    return headers


def idempotency_key_values(scope: dict) -> list[str]:
    return [
        value.decode("latin-1") for name, value in scope.get("headers", []) if name.lower() == b"idempotency-key"
    ]


# fastapi-viewsets 0.14.0 builds a viewset's `/schema` document on its first request, in a worker
# thread (a sync endpoint), and FastAPI's OpenAPI generation is not thread-safe: two first requests
# at once (a page's REST and muxws proxies checking one viewset) were once answered 500 with
# `KeyError: (ModelField(... name='sort' ...), 'validation')`. Schema requests are therefore served
# one at a time in each process (they are few, and cached after the first).
_schema_lock = asyncio.Lock()


class RequestLog:
    """
    Pure ASGI middleware: every HTTP request under /items, /catalog, /events and /scoped (REST and muxws alike, muxws commands run
    through the application as in-process HTTP requests) gets a log entry, written when its answer
    has been sent; the action marks it as run. Every HTTP answer carries X-Served-By. For a
    WebSocket it records the TCP transport of the connection, so /__test/ws/close can cut it.
    """

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket":
            protocol = getattr(receive, "__self__", None)
            scope[TRANSPORT_KEY] = getattr(protocol, "transport", None)
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        logged = False

        async def log_once():
            nonlocal logged
            if entry is not None and not logged:
                logged = True
                entry["duration"] = round(time.time() - entry["t"], 4)
                await append_log(entry)

        async def send_with_server(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"x-served-by", SERVED_BY.encode())]}
                if entry is not None:
                    entry["status"] = message["status"]
            elif message["type"] == "http.response.body" and not message.get("more_body", False):
                # logged before the answer's last byte leaves: a client that has the whole answer
                # finds its request in /__test/log (a test reads the log right after the call)
                await log_once()
            await send(message)

        path: str = scope.get("path", "")
        entry = None
        if path in ("/items", "/scoped") or path.startswith(("/items/", "/catalog/", "/events/", "/scoped/")):
            headers = header_map(scope)
            keys = idempotency_key_values(scope)
            entry = {
                "t": time.time(),
                "method": scope.get("method"),
                "path": path,
                "query": scope.get("query_string", b"").decode("latin-1"),
                "transport": scope.get(TRANSPORT_SCOPE_KEY, "rest"),
                "idempotency_key": keys[0] if len(keys) == 1 else (keys or None),
                "headers": {
                    name: value for name, value in headers.items() if name in LOGGED_HEADERS or name.startswith("x-")
                },
                "served_by": SERVED_BY,
                "pid": os.getpid(),
                "ran": False,
                "action": None,
                "status": None,
            }
            scope[LOG_SCOPE_KEY] = entry
        try:
            if path.endswith("/schema"):
                async with _schema_lock:
                    await self.app(scope, receive, send_with_server)
            else:
                await self.app(scope, receive, send_with_server)
        finally:
            await log_once()


# ------------------------------------------------------------------ the items viewset
class Item(BaseModel):
    id: int = Field(0, json_schema_extra={"autoinc_int": True})
    name: str
    qty: int = 0


# The body of POST /items/cutjson: JSON cut off after the first member name.
CUT_JSON = b'{"cut": '


class NoteBody(BaseModel):
    note: str | None = None


_items: dict[int, Item] = {}

router = APIRouter()


def require_fresh_token(authorization: str | None = Header(None)) -> None:
    """Authentication as a dependency: a request without `Authorization: Bearer fresh` is answered 401
    before the command middleware chain, so Idempotency stores nothing for it."""
    if authorization != "Bearer fresh":
        raise HTTPException(status_code=401, detail="the token has expired")


@route_viewset(router, base_path="/items", pk_field_name="id")
class ItemsViewSet(CollectionViewSet[int, Item], ViewSetMixin[int, Item]):
    """Items of the SDK's end-to-end tests."""

    __router = APIRouter()

    def __init__(self):
        super().__init__(_items, "id")

    # --- shared storage: with REDIS_URL the dict is a write-through copy of the hash test:items
    async def _sync(self) -> None:
        if redis is None:
            return
        raw = await redis.hgetall(ITEMS_KEY)
        fresh = {int(pk): Item.model_validate_json(value) for pk, value in raw.items()}
        self.container.clear()
        self.container.update(fresh)

    async def _store(self, item: Item) -> None:
        if redis is not None:
            await redis.hset(ITEMS_KEY, str(item.id), item.model_dump_json())

    async def container_list(self) -> list[Item]:
        await self._sync()
        return await super().container_list()

    async def container_retrieve(self, pk: int) -> Item:
        await self._sync()
        return await super().container_retrieve(pk)

    async def container_add(self, data: Item) -> Item:
        await self._sync()
        if redis is not None and not data.id:
            # ids from a shared sequence, so two processes never hand out the same one
            floor = max(self.container, default=0)
            data.id = int(await redis.incr(ITEMS_SEQ_KEY))
            while data.id <= floor:
                data.id = int(await redis.incr(ITEMS_SEQ_KEY))
        item = await super().container_add(data)
        await self._store(item)
        return item

    async def container_update(self, pk: int, data: Item, partial: bool) -> Item:
        await self._sync()
        item = await super().container_update(pk, data, partial)
        await self._store(item)
        return item

    async def container_delete(self, pk: int) -> None:
        await self._sync()
        await super().container_delete(pk)
        if redis is not None:
            await redis.hdel(ITEMS_KEY, str(pk))

    # --- CRUD, counted
    async def perform_list(self, context):
        await executed(current_request(), "list")
        return await super().perform_list(context)

    async def perform_retrieve(self, context, pk: int):
        await executed(current_request(), "retrieve")
        return await super().perform_retrieve(context, pk)

    async def perform_create(self, context, data: Item):
        await executed(current_request(), "create")
        return await super().perform_create(context, data)

    async def perform_update(self, context, pk: int, data: Item, partial: bool = True):
        await executed(current_request(), "partial_update" if partial else "update")
        # Workaround of the stock CollectionViewSet bug: a PUT body without `id` is the model with
        # its default id 0, stored under key pk; a later autoinc create then reuses an id. The
        # record always keeps the pk of its URL.
        if not partial or "id" in data.model_fields_set:
            data = data.model_copy(update={"id": pk})
        return await super().perform_update(context, pk, data, partial)

    async def perform_destroy(self, context, pk: int):
        await executed(current_request(), "destroy")
        return await super().perform_destroy(context, pk)

    # --- custom actions
    @__router.post("/slow")
    async def slow(self, request: Request, data: NoteBody | None = None, sleep: float = 0.0) -> dict:
        executions = await executed(request, "slow")
        await asyncio.sleep(sleep)
        return {
            "action": "slow",
            "executions": executions,
            "slept": sleep,
            "note": data.note if data is not None else None,
            "served_by": SERVED_BY,
        }

    @__router.get("/tick")
    async def tick(self, request: Request, sleep: float = 0.0) -> dict:
        executions = await executed(request, "tick")
        await asyncio.sleep(sleep)
        return {"action": "tick", "executions": executions, "slept": sleep, "served_by": SERVED_BY}

    @__router.post("/cookie")
    async def cookie(self, request: Request) -> ViewSetResult[dict]:
        executions = await executed(request, "cookie")
        return ViewSetResult(
            body={"action": "cookie", "executions": executions, "served_by": SERVED_BY},
            cookies={"sid": f"s{executions}"},
        )

    @__router.post("/private")
    async def private(self, request: Request, _auth: None = Depends(require_fresh_token)) -> dict:
        """Needs `Authorization: Bearer fresh` (`require_fresh_token`); counted as `private`."""
        executions = await executed(request, "private")
        return {"action": "private", "executions": executions, "served_by": SERVED_BY}

    @__router.post("/conflict")
    async def conflict(self, request: Request) -> dict:
        executions = await executed(request, "conflict")
        raise HTTPException(status_code=409, detail=f"conflict #{executions}")

    @__router.post("/boom")
    async def boom(self, request: Request) -> dict:
        executions = await executed(request, "boom")
        raise RuntimeError(f"boom #{executions}")

    @__router.post("/gateway")
    async def gateway(self, request: Request, status: int = 503) -> dict:
        """A 5xx the application answers itself, with a JSON body holding detail: not to be repeated.
        503 is fastapi-viewsets' result_reader_stopped, 504 its result_timeout, any other status a
        plain HTTPException."""
        executions = await executed(request, "gateway")
        if status == 503:
            raise ResultReaderStoppedError(f"test-queue#{executions}")
        if status == 504:
            raise ResultTimeoutError(f"items.gateway#{executions}", 0.5)
        raise HTTPException(status_code=status, detail=f"gateway #{executions} answered {status}")

    @__router.post("/raw")
    async def raw(self, request: Request, sleep: float = 0.0) -> dict:
        """Reports the raw request body as the application received it - its length, sha256, content
        type, first bytes and (multipart) boundary-normalised digest - and every request header.
        Over muxws the body is the JSON the server re-encoded from the payload. Counted as `raw`;
        the Idempotency middleware fingerprints these same bytes."""
        executions = await executed(request, "raw")
        body = await request.body()
        content_type = request.headers.get("content-type")
        await asyncio.sleep(sleep)
        return {
            "action": "raw",
            "executions": executions,
            "method": request.method,
            "query": request.scope.get("query_string", b"").decode("latin-1"),
            "transport": request.scope.get(TRANSPORT_SCOPE_KEY, "rest"),
            "length": len(body),
            "sha256": hashlib.sha256(body).hexdigest(),
            "content_type": content_type,
            "preview": body[:64].decode("latin-1"),
            "multipart": multipart_report(body, content_type),
            "headers": header_map(request.scope),
            "idempotency_key": idempotency_key_values(request.scope),
            "served_by": SERVED_BY,
        }

    @__router.post("/cutjson")
    async def cutjson(self, request: Request) -> Response:
        """200 `application/json` whose body, `{"cut": `, is sent whole with its right
        content-length: syntactically cut JSON, not a network truncation. Counted as `cutjson`;
        the outcome is stored like any buffered response."""
        await executed(request, "cutjson")
        return Response(content=CUT_JSON, media_type="application/json")

    @__router.get("/big")
    async def big(self, request: Request, size: int = 1_000_000) -> Response:
        """A JSON answer of exactly `size` bytes (at least the envelope, at most 64 MiB):
        `{"action":"big","executions":N,"size":S,"fill":"xxx..."}`. Counted as `big`."""
        executions = await executed(request, "big")
        size = max(0, min(size, 64 * 1024 * 1024))
        head = f'{{"action":"big","executions":{executions},"size":{size},"fill":"'.encode()
        tail = b'"}'
        fill = max(0, size - len(head) - len(tail))
        return Response(content=head + b"x" * fill + tail, media_type="application/json")

    @__router.post("/echo")
    async def echo(self, request: Request) -> dict:
        """Answers the headers and the body the application saw."""
        executions = await executed(request, "echo")
        raw = await request.body()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", errors="replace")
        return {
            "action": "echo",
            "executions": executions,
            "method": request.method,
            "path": request.url.path,
            "query": request.scope.get("query_string", b"").decode("latin-1"),
            "transport": request.scope.get(TRANSPORT_SCOPE_KEY, "rest"),
            "headers": header_map(request.scope),
            "idempotency_key": idempotency_key_values(request.scope),
            "body": body,
            "served_by": SERVED_BY,
        }


def multipart_report(body: bytes, content_type: str | None) -> dict | None:
    """For a multipart/form-data body: its boundary (from the content type), whether the bytes are
    framed by it (they start with `--boundary CRLF` and end with `--boundary-- CRLF`), and the length
    and sha256 of the bytes with every occurrence of the boundary replaced by `BOUNDARY`, so that two
    sends of the same FormData (each with its own boundary) can be compared. None for other bodies."""
    if not content_type or not content_type.lower().startswith("multipart/form-data"):
        return None
    boundary = None
    for param in content_type.split(";")[1:]:
        name, _, value = param.strip().partition("=")
        if name.strip().lower() == "boundary":
            boundary = value.strip().strip('"')
    if not boundary:
        return {"boundary": None, "framed": False, "length": None, "sha256": None}
    token = boundary.encode("latin-1")
    normalized = body.replace(token, b"BOUNDARY")
    framed = body.startswith(b"--" + token + b"\r\n") and body.endswith(b"--" + token + b"--\r\n")
    return {
        "boundary": boundary,
        "framed": framed,
        "length": len(normalized),
        "sha256": hashlib.sha256(normalized).hexdigest(),
    }


# ------------------------------------------------------------------ events
class ImportFinished(Event):
    """The custom event of the source `imports` (published by /__test/events/publish)."""

    event_name = "import_finished"
    event_version = 1

    file: str
    rows: int


def _imports_authorizer(_request: Request, _context: Any, topic: str) -> bool:
    """Admits every key of `imports` but `secret`: `imports:secret` is refused with 403."""
    return topic != "imports:secret"


imports = source("imports", authorizer=_imports_authorizer)

_scoped_items: dict[int, Item] = {}


def _org_of(request: Request | None, _context: Any) -> str | None:
    """The scope key: the caller's X-Org header. FOR THE TEST ONLY: a real resolver answers a key a
    check of the gate run established (a verified membership), never a bare client value."""
    return request.headers.get("x-org") if request is not None else None


@event_scope(_org_of, name="orgs")
@route_viewset(router, base_path="/scoped", pk_field_name="id")
class ScopedViewSet(CollectionViewSet[int, Item], ViewSetMixin[int, Item]):
    """Items of one organisation (X-Org), whose events only that organisation's followers receive."""

    def __init__(self):
        super().__init__(_scoped_items, "id")


register_events(router)

from catalog import catalog_router  # noqa: E402
from big import big_router  # noqa: E402

# ------------------------------------------------------------------ the application
@asynccontextmanager
async def lifespan(_app: FastAPI):
    """Starts the event store (a RedisEventStore's reader carries other processes' events here)."""
    await start_events()
    try:
        yield
    finally:
        await stop_events()


app = FastAPI(title="fastapi-viewsets SDK test backend", lifespan=lifespan)
app.include_router(router)
app.include_router(catalog_router(redis=redis, executed=executed, current_request=current_request))
app.include_router(big_router(executed=executed, current_request=current_request))

app.add_middleware(RequestLog)
app.add_middleware(
    CORSMiddleware,
    allow_origin_regex=r".*",
    allow_credentials=True,
    allow_methods=["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    allow_headers=[
        "Idempotency-Key",
        "X-Trace",
        "Content-Type",
        "Authorization",
        "X-List-Shape",
        "X-Requested-With",
        "X-Test-A",
        "X-Test-B",
        "X-Test-C",
        "X-Org",
    ],
    expose_headers=["X-Served-By", "X-Trace", "Retry-After", "X-List-Shape", "Content-Length"],
    max_age=600,
)

test_router = APIRouter(prefix="/__test")


@test_router.get("/ready")
async def ready() -> dict:
    if redis is not None:
        await redis.ping()
    return {
        "ok": True,
        "served_by": SERVED_BY,
        "pid": os.getpid(),
        "redis": redis is not None,
        "lock_ttl": LOCK_TTL,
        "idempotency_ttl": IDEMPOTENCY_TTL,
        "ws_peers": len(_peers),
        "event_log_size": settings.viewsets_event_log_size,
        "event_log_ttl": settings.viewsets_event_log_ttl,
    }


@test_router.post("/events/publish")
async def events_publish(key: str = "7", n: int = 1, pad: int = 0) -> dict:
    """Publishes `n` (at most 1000) ImportFinished events to `imports:{key}`; answers their revs.
    `pad` (at most 1 MiB) lengthens each file name by that many characters: a push over the 64 KiB
    frame cap arrives in fragments."""
    revs = []
    padding = "x" * max(0, min(pad, 1 << 20))
    for index in range(max(0, min(n, 1000))):
        rev, _prev = await imports.publish(ImportFinished(file=f"{key}-{index}{padding}.csv", rows=index), key=key)
        revs.append(rev)
    return {"topic": f"imports:{key}", "revs": revs, "served_by": SERVED_BY}


@test_router.get("/counters")
async def counters() -> dict:
    return await read_counters()


@test_router.get("/log")
async def log() -> list:
    entries = await read_log()
    return sorted(entries, key=lambda entry: (entry["t"], entry["seq"]))


@test_router.post("/reset")
async def reset() -> dict:
    """Clears counters, request log and items (shared ones in Redis, this process's otherwise).
    Idempotency records are left alone: their keys are random."""
    global _log_seq
    _counters.clear()
    _log.clear()
    _log_seq = 0
    _items.clear()
    _scoped_items.clear()
    if redis is not None:
        await redis.delete(COUNTERS_KEY, LOG_KEY, LOG_KEY + ":seq", ITEMS_KEY, ITEMS_SEQ_KEY)
    return {"ok": True, "served_by": SERVED_BY}


# ------------------------------------------------------------------ muxws
# peer -> TCP transport of its WebSocket (None when it could not be found)
_peers: dict[Any, Any] = {}


def _allowed_origin(origin: str | None) -> bool:
    """Node clients send no Origin; test pages are served from other 127.0.0.1/localhost ports."""
    if origin is None:
        return True
    from muxws.origin import parse_origin

    parsed = parse_origin(origin)
    return parsed is not None and parsed[1] in ("127.0.0.1", "localhost", "[::1]")


@app.websocket("/ws")
async def muxws_endpoint(websocket: WebSocket) -> None:
    peer = await accept(websocket, allowed_origins=_allowed_origin)
    peer.on_stream(lambda payload, stream: process_command(payload, stream, connection=websocket, peer=peer))
    _peers[peer] = websocket.scope.get(TRANSPORT_KEY)
    try:
        await peer.serve()
    finally:
        _peers.pop(peer, None)


_closing: set[asyncio.Task] = set()


@test_router.post("/ws/goaway")
async def ws_goaway(drain: float = 10.0, reason: str = "server going away (test)") -> dict:
    """Every connected peer sends goaway, drains for up to `drain` seconds and closes (1000): the
    Python muxws peer's close(). Answers at once, without waiting for the drains."""
    peers = list(_peers)
    for peer in peers:
        task = asyncio.create_task(peer.close(reason=reason, drain=drain))
        _closing.add(task)
        task.add_done_callback(_closing.discard)
    return {"peers": len(peers), "served_by": SERVED_BY}


@test_router.post("/ws/close")
async def ws_close() -> dict:
    """Cuts every muxws socket of this process abruptly: TCP reset, no close frame (the client sees 1006)."""
    cut = 0
    for transport in list(_peers.values()):
        if transport is None or transport.is_closing():
            continue
        sock = transport.get_extra_info("socket")
        if sock is not None:
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            except OSError:
                pass
        transport.abort()
        cut += 1
    return {"sockets": cut, "served_by": SERVED_BY}


@test_router.get("/ws/peers")
async def ws_peers() -> dict:
    return {"peers": len(_peers), "served_by": SERVED_BY}


@test_router.get("/events/subscriptions")
async def events_subscriptions() -> dict:
    """The client topics each muxws socket of this process holds now (fastapi-viewsets'
    `delivery.topics_of`): `{"sockets": [[topic, ...], ...]}`, one sorted list per accepted socket,
    in no particular order - what the follower's subscribes and unsubscribes left on the server."""
    from fastapi_viewsets.events.delivery import topics_of

    return {"sockets": [sorted(topics_of(peer)) for peer in list(_peers)], "served_by": SERVED_BY}


app.include_router(test_router)


if __name__ == "__main__":
    import uvicorn

    uvicorn.run(app, host=HOST, port=int(os.environ.get("PORT", "8101")))
