#!/usr/bin/env python3
"""
A fault-injecting HTTP/1.1 + WebSocket proxy for the SDK's end-to-end tests. Standard library only.

    python3 faultproxy.py --listen 8110 --upstream 8101 [--upstream 127.0.0.1:8102 ...]

Binds 127.0.0.1 only. `--listen 0` picks a free port. Once listening it prints one JSON line on
stdout: {"listening": <port>, "upstreams": [...]}.

Routing: each new client connection is assigned the next upstream round-robin, and every request on
that connection goes there, each over a fresh upstream connection, unless a pin sends it elsewhere.
Keep-alive is supported on the client side (Content-Length and chunked bodies are parsed).
A WebSocket upgrade answered 101 becomes a raw byte tunnel in both directions.

Control API, answered by the proxy itself (with CORS headers, so a browser page may call it):

    GET /__fault                                   listing: faults, pins, upstreams, tunnels, counts
    GET /__fault?mode=MODE[&count=N][&path=/items/slow][&method=POST][&retry_after=S]
    GET /__fault?mode=clear                        drops every queued fault and pin
    GET /__fault?mode=kill_ws                      cuts every open WebSocket tunnel now
    GET /__fault?mode=refuse_ws                    answers every later WebSocket upgrade 403 (open
                                                   tunnels stay), until allow_ws or clear
    GET /__fault?mode=allow_ws                     upgrades reach the backend again
    GET /__fault?mode=silence_ws                   silences every open WebSocket tunnel (see below)
    GET /__fault?mode=unsilence_ws                 lets silenced tunnels and requests go on
    GET /__fault?mode=pin&upstream=I[&count=N][&path=..][&method=..]
                                                   the next N matching requests go to upstream I
    GET /__fault?mode=unpin                        drops the pins
    GET /__fault?mode=log[&clear=1]                the recent requests the proxy handled

A fault matches a request by method (any method but OPTIONS when not given) and path prefix (every
path when not given); the first queued fault that matches is used once, `count` times in all.
Requests to /__fault never match. Modes:

    drop_before        read the request, close the client connection, forward nothing
    drop_after         forward, read the whole answer, close the client connection without it
    reset_after        as drop_after, but the client gets a TCP RST (SO_LINGER 0)
    status:NNN         answer NNN (HTML body, CORS headers) without forwarding
    status_after:NNN   forward, discard the real answer, answer NNN
    delay:S            forward at once, hold the answer S seconds, then send it
    delay_before:S     hold the request S seconds, then forward it
    drop_during:S      forward; if no answer came within S seconds close both connections
    truncate_after     forward; send the head and half of the body, then close
    ws_drop:S          (a WebSocket upgrade) cut the tunnel S seconds after it opened
    silence            read the request, forward nothing, answer nothing, keep the client
                       connection open; at `unsilence_ws` or `clear` close it without an answer

`silence_ws` silences the WebSocket tunnels open at that moment (tunnels opened later are not):
nothing is forwarded in either direction and nothing is closed - the bytes each side sends (an
end of stream included) are held, unread, while both TCP connections stay open, as on a line that
went dead without a reset. `unsilence_ws` or `clear` lets the held bytes go on.

`retry_after=S` adds `Retry-After: S` to a synthetic answer. A synthetic answer is
`content-type: text/html` with `<html><body><h1>NNN Reason</h1></body></html>` and the CORS
headers of the request's Origin. An upstream that cannot be reached is answered 502 the same way.
"""

import argparse
import asyncio
import json
import signal
import socket
import struct
import sys
import threading
import time

from collections import deque
from http import HTTPStatus
from urllib.parse import parse_qs, urlsplit

CONTROL_PATH = "/__fault"
HEAD_LIMIT = 256 * 1024
READ_LIMIT = 4 * 1024 * 1024

PAYLOAD_MODES = ("status", "status_after", "delay", "delay_before", "drop_during", "ws_drop")
PLAIN_MODES = ("drop_before", "drop_after", "reset_after", "truncate_after", "silence")


class ProtocolError(Exception):
    pass


# ------------------------------------------------------------------ HTTP messages
class Head:
    """A request or response head: the start line and the header lines, kept as received."""

    def __init__(self, start: str, headers: list[tuple[str, str]]):
        self.start = start
        self.headers = headers

    def get(self, name: str, default: str | None = None) -> str | None:
        name = name.lower()
        for key, value in self.headers:
            if key.lower() == name:
                return value
        return default

    def tokens(self, name: str) -> set[str]:
        name = name.lower()
        found = set()
        for key, value in self.headers:
            if key.lower() == name:
                found.update(token.strip().lower() for token in value.split(","))
        return found

    def encode(self) -> bytes:
        lines = [self.start, *(f"{key}: {value}" for key, value in self.headers)]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def read_head(reader: asyncio.StreamReader) -> Head | None:
    """The next head, or None at a clean end of stream before any byte of it."""
    try:
        raw = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as error:
        if not error.partial.strip():
            return None
        raise ProtocolError("connection closed inside a head") from error
    except asyncio.LimitOverrunError as error:
        raise ProtocolError("head too large") from error
    if len(raw) > HEAD_LIMIT:
        raise ProtocolError("head too large")
    lines = raw.decode("latin-1").split("\r\n")
    while lines and lines[0] == "":  # tolerate stray CRLFs between messages
        lines.pop(0)
    if not lines:
        return None
    headers = []
    for line in lines[1:]:
        if not line:
            continue
        if ":" not in line:
            raise ProtocolError(f"bad header line {line!r}")
        key, value = line.split(":", 1)
        headers.append((key.strip(), value.strip()))
    return Head(lines[0], headers)


async def read_chunked(reader: asyncio.StreamReader) -> bytes:
    """A chunked body, raw (chunk sizes, extensions and trailers included)."""
    parts = []
    while True:
        line = await reader.readuntil(b"\r\n")
        parts.append(line)
        size_text = line.split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError as error:
            raise ProtocolError(f"bad chunk size {size_text!r}") from error
        if size == 0:
            while True:  # trailers, up to the empty line
                trailer = await reader.readuntil(b"\r\n")
                parts.append(trailer)
                if trailer == b"\r\n":
                    return b"".join(parts)
        parts.append(await reader.readexactly(size + 2))


async def read_body(reader: asyncio.StreamReader, head: Head, *, until_eof: bool) -> bytes:
    """The raw body that follows `head`. `until_eof`: a response without framing runs to EOF."""
    if "chunked" in head.tokens("transfer-encoding"):
        return await read_chunked(reader)
    length = head.get("content-length")
    if length is not None:
        try:
            size = int(length)
        except ValueError as error:
            raise ProtocolError(f"bad content-length {length!r}") from error
        return await reader.readexactly(size) if size else b""
    if until_eof:
        return await reader.read()
    return b""


def request_parts(head: Head) -> tuple[str, str, str]:
    parts = head.start.split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        raise ProtocolError(f"bad request line {head.start!r}")
    return parts[0].upper(), parts[1], parts[2]


def response_status(head: Head) -> int:
    parts = head.start.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/"):
        raise ProtocolError(f"bad status line {head.start!r}")
    return int(parts[1])


def status_phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Status"


def cors_headers(request: Head | None) -> list[tuple[str, str]]:
    origin = request.get("origin") if request is not None else None
    headers = [
        ("access-control-allow-origin", origin or "*"),
        ("access-control-expose-headers", "Retry-After, X-Fault"),
        ("vary", "Origin"),
    ]
    if origin:
        headers.append(("access-control-allow-credentials", "true"))
    return headers


def synthetic(status: int, request: Head | None, *, fault: str, retry_after: str | None = None, close=False) -> bytes:
    phrase = status_phrase(status)
    body = f"<html><body><h1>{status} {phrase}</h1></body></html>".encode()
    headers = [
        ("content-type", "text/html"),
        ("content-length", str(len(body))),
        *cors_headers(request),
        ("x-fault", fault),
        ("connection", "close" if close else "keep-alive"),
    ]
    if retry_after is not None:
        headers.append(("retry-after", retry_after))
    return Head(f"HTTP/1.1 {status} {phrase}", headers).encode() + body


def json_answer(status: int, payload, request: Head | None, *, close: bool = False) -> bytes:
    body = json.dumps(payload).encode()
    headers = [
        ("content-type", "application/json"),
        ("content-length", str(len(body))),
        ("cache-control", "no-store"),
        *cors_headers(request),
        ("connection", "close" if close else "keep-alive"),
    ]
    return Head(f"HTTP/1.1 {status} {status_phrase(status)}", headers).encode() + body


def control_preflight(request: Head) -> bytes:
    headers = [
        ("content-length", "0"),
        *cors_headers(request),
        ("access-control-allow-methods", "GET, POST, OPTIONS"),
        ("access-control-allow-headers", request.get("access-control-request-headers") or "*"),
        ("access-control-max-age", "600"),
        ("connection", "keep-alive"),
    ]
    return Head("HTTP/1.1 204 No Content", headers).encode()


def cut(writer: asyncio.StreamWriter | None, *, rst: bool) -> None:
    """Closes a connection at once: with `rst`, as a TCP reset."""
    if writer is None:
        return
    transport = writer.transport
    if transport.is_closing():
        return
    if rst:
        sock = transport.get_extra_info("socket")
        if sock is not None:
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            except OSError:
                pass
        transport.abort()
    else:
        transport.close()


# ------------------------------------------------------------------ faults and pins
class Rule:
    """A queued fault or pin: matched by method and path prefix, used `remaining` more times."""

    _ids = 0

    def __init__(self, mode: str, *, count: int, method: str | None, path: str, **extra):
        Rule._ids += 1
        self.id = Rule._ids
        self.mode = mode
        self.remaining = count
        self.used = 0
        self.method = method.upper() if method else None
        self.path = path or "/"
        self.extra = extra
        self.created = time.time()

    def matches(self, method: str, path: str) -> bool:
        if self.remaining <= 0:
            return False
        if self.method is None:
            if method == "OPTIONS":
                return False
        elif self.method != method:
            return False
        return path.startswith(self.path)

    def take(self) -> None:
        self.remaining -= 1
        self.used += 1

    def describe(self) -> dict:
        return {
            "id": self.id,
            "mode": self.mode,
            "remaining": self.remaining,
            "used": self.used,
            "method": self.method,
            "path": self.path,
            **self.extra,
        }


class Tunnel:
    _ids = 0

    def __init__(self, client: asyncio.StreamWriter, upstream: asyncio.StreamWriter, path: str, index: int):
        Tunnel._ids += 1
        self.id = Tunnel._ids
        self.client = client
        self.upstream = upstream
        self.path = path
        self.upstream_index = index
        self.opened = time.time()
        # set while bytes may flow; cleared by silence_ws
        self.flowing = asyncio.Event()
        self.flowing.set()

    def cut(self) -> None:
        cut(self.client, rst=True)
        cut(self.upstream, rst=True)
        self.flowing.set()  # a silenced tunnel's pumps wake up, see the end and finish


class Proxy:
    def __init__(self, upstreams: list[tuple[str, int]], verbose: bool = True):
        self.upstreams = upstreams
        self.verbose = verbose
        self.faults: list[Rule] = []
        self.pins: list[Rule] = []
        self.fired: deque[dict] = deque(maxlen=200)
        self.requests: deque[dict] = deque(maxlen=1000)
        self.tunnels: set[Tunnel] = set()
        # refuse_ws: every WebSocket upgrade is answered 403 (a proxy that blocks WebSockets).
        self.refuse_upgrades = False
        self.refused_upgrades = 0
        # Client connections waiting for their next request. Queuing a fault closes them (and the
        # control connection): a browser resends a request by itself, once, when a REUSED keep-alive
        # connection closes before any answer, which would hide the fault from the client under test.
        # On a fresh connection it reports the loss.
        self.idle: set[asyncio.StreamWriter] = set()
        self.next_upstream = 0
        self.connections = 0
        # Set by unsilence_ws / clear: held `silence` requests end and silenced tunnels go on.
        self.unsilenced = asyncio.Event()
        self.tasks: set[asyncio.Task] = set()

    def log(self, text: str) -> None:
        if self.verbose:
            print(f"[faultproxy] {text}", file=sys.stderr, flush=True)

    # --- control
    def control(self, request: Head, target: str) -> bytes:
        query = {key: values[-1] for key, values in parse_qs(urlsplit(target).query, keep_blank_values=True).items()}
        mode = query.get("mode")
        try:
            if mode is None:
                return json_answer(200, self.listing(), request)
            if mode == "clear":
                dropped = len(self.faults) + len(self.pins)
                self.faults.clear()
                self.pins.clear()
                self.refuse_upgrades = False
                released = self.unsilence()
                return json_answer(200, {"ok": True, "cleared": dropped, "unsilenced": released}, request)
            if mode == "silence_ws":
                silenced = 0
                for tunnel in self.tunnels:
                    if tunnel.flowing.is_set():
                        tunnel.flowing.clear()
                        silenced += 1
                self.log(f"silence_ws: silenced {silenced} tunnel(s)")
                return json_answer(200, {"ok": True, "silenced": silenced}, request)
            if mode == "unsilence_ws":
                return json_answer(200, {"ok": True, "unsilenced": self.unsilence()}, request)
            if mode == "kill_ws":
                tunnels = list(self.tunnels)
                for tunnel in tunnels:
                    tunnel.cut()
                self.log(f"kill_ws: cut {len(tunnels)} tunnel(s)")
                return json_answer(200, {"ok": True, "killed": len(tunnels)}, request)
            if mode in ("refuse_ws", "allow_ws"):
                self.refuse_upgrades = mode == "refuse_ws"
                self.log(f"{mode}: WebSocket upgrades {'refused' if self.refuse_upgrades else 'allowed'}")
                return json_answer(200, {"ok": True, "refused": self.refused_upgrades}, request)
            if mode == "unpin":
                dropped = len(self.pins)
                self.pins.clear()
                return json_answer(200, {"ok": True, "cleared": dropped}, request)
            if mode == "log":
                entries = list(self.requests)
                if query.get("clear") in ("1", "true"):
                    self.requests.clear()
                return json_answer(200, {"requests": entries}, request)
            count = int(query.get("count", "1"))
            method = query.get("method") or None
            path = query.get("path") or "/"
            if mode == "pin":
                index = int(query["upstream"])
                if not 0 <= index < len(self.upstreams):
                    raise ValueError(f"upstream {index} out of range 0..{len(self.upstreams) - 1}")
                rule = Rule("pin", count=count, method=method, path=path, upstream=index)
                self.pins.append(rule)
                return json_answer(200, {"ok": True, "queued": rule.describe()}, request)
            name, _, argument = mode.partition(":")
            extra = {}
            if name in PAYLOAD_MODES:
                if not argument:
                    raise ValueError(f"{name} needs an argument, e.g. {name}:2")
                value = int(argument) if name in ("status", "status_after") else float(argument)
                if name in ("status", "status_after") and not 100 <= value <= 599:
                    raise ValueError(f"bad status {argument}")
                extra["arg"] = value
            elif name not in PLAIN_MODES or argument:
                raise ValueError(f"unknown mode {mode!r}")
            if query.get("retry_after"):
                extra["retry_after"] = query["retry_after"]
            rule = Rule(mode, count=count, method=method, path=path, **extra)
            rule.extra["kind"] = name
            self.faults.append(rule)
            self.log(f"queued {rule.describe()}")
            for idle in list(self.idle):
                cut(idle, rst=False)
            self.idle.clear()
            return json_answer(200, {"ok": True, "queued": rule.describe()}, request, close=True)
        except (ValueError, KeyError) as error:
            return json_answer(400, {"ok": False, "error": str(error)}, request)

    def unsilence(self) -> int:
        """Lets every silenced tunnel go on and ends every held `silence` request; answers how many
        tunnels were silenced."""
        released = 0
        for tunnel in self.tunnels:
            if not tunnel.flowing.is_set():
                tunnel.flowing.set()
                released += 1
        self.unsilenced.set()
        self.unsilenced = asyncio.Event()
        if released:
            self.log(f"unsilenced {released} tunnel(s)")
        return released

    def listing(self) -> dict:
        return {
            "faults": [rule.describe() for rule in self.faults if rule.remaining > 0],
            "pins": [rule.describe() for rule in self.pins if rule.remaining > 0],
            "fired": list(self.fired),
            "upstreams": [f"{host}:{port}" for host, port in self.upstreams],
            "ws_tunnels": [
                {
                    "id": t.id,
                    "path": t.path,
                    "upstream": t.upstream_index,
                    "age": round(time.time() - t.opened, 3),
                    "silenced": not t.flowing.is_set(),
                }
                for t in self.tunnels
            ],
            "connections": self.connections,
        }

    def take_fault(self, method: str, path: str) -> Rule | None:
        for rule in self.faults:
            if rule.matches(method, path):
                rule.take()
                self.fired.append({**rule.describe(), "request": f"{method} {path}", "t": time.time()})
                self.faults = [r for r in self.faults if r.remaining > 0]
                return rule
        return None

    def take_pin(self, method: str, path: str) -> int | None:
        for rule in self.pins:
            if rule.matches(method, path):
                rule.take()
                self.pins = [r for r in self.pins if r.remaining > 0]
                return rule.extra["upstream"]
        return None

    # --- connections
    async def handle_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        assigned = self.next_upstream % len(self.upstreams)
        self.next_upstream += 1
        task = asyncio.current_task()
        if task is not None:
            self.tasks.add(task)
        try:
            while True:
                self.idle.add(writer)
                try:
                    head = await read_head(reader)
                finally:
                    self.idle.discard(writer)
                if head is None:
                    break
                keep_open = await self.handle_request(head, reader, writer, assigned)
                if not keep_open:
                    break
        except (ProtocolError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError) as error:
            self.log(f"client connection ended: {type(error).__name__}: {error}")
        except asyncio.CancelledError:
            pass
        finally:
            cut(writer, rst=False)
            if task is not None:
                self.tasks.discard(task)

    async def send(self, writer: asyncio.StreamWriter, data: bytes) -> None:
        writer.write(data)
        await writer.drain()

    async def handle_request(
        self, head: Head, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, assigned: int
    ) -> bool:
        """Serves one request; answers whether the client connection stays open."""
        method, target, version = request_parts(head)
        path = urlsplit(target).path or "/"
        body = await read_body(reader, head, until_eof=False)
        client_close = "close" in head.tokens("connection") or version == "HTTP/1.0"
        entry = {"t": round(time.time(), 3), "method": method, "path": target, "fault": None, "upstream": None}

        if path == CONTROL_PATH or path.startswith(CONTROL_PATH + "/"):
            answer = control_preflight(head) if method == "OPTIONS" else self.control(head, target)
            closing = b"connection: close" in answer.split(b"\r\n\r\n", 1)[0].lower()
            if closing:
                # Let the client see its idle connections close before it can issue the next request.
                await asyncio.sleep(0.1)
            await self.send(writer, answer)
            return not client_close and not closing

        self.requests.append(entry)
        pinned = self.take_pin(method, path)
        index = assigned if pinned is None else pinned
        entry["upstream"] = index
        fault = self.take_fault(method, path)
        kind = fault.extra["kind"] if fault else None
        arg = fault.extra.get("arg") if fault else None
        retry_after = fault.extra.get("retry_after") if fault else None
        if fault is not None:
            entry["fault"] = fault.mode
            self.log(f"{method} {target}: fault {fault.mode}")

        if kind == "drop_before":
            cut(writer, rst=False)
            return False
        if kind == "silence":
            await self.unsilenced.wait()
            cut(writer, rst=False)
            return False
        if kind == "status":
            await self.send(writer, synthetic(arg, head, fault=fault.mode, retry_after=retry_after, close=client_close))
            return not client_close
        if kind == "delay_before":
            await asyncio.sleep(arg)

        is_upgrade = "upgrade" in head.tokens("connection") and "websocket" in head.tokens("upgrade")
        if is_upgrade and self.refuse_upgrades:
            self.refused_upgrades += 1
            entry["fault"] = "refuse_ws"
            await self.send(writer, synthetic(403, head, fault="refuse_ws", close=True))
            return False

        host, port = self.upstreams[index]
        try:
            up_reader, up_writer = await asyncio.open_connection(host, port, limit=READ_LIMIT)
        except OSError as error:
            self.log(f"{method} {target}: upstream {host}:{port} unreachable: {error}")
            entry["error"] = "upstream_unreachable"
            await self.send(writer, synthetic(502, head, fault="upstream_unreachable", close=client_close))
            return not client_close

        try:
            await self.send(up_writer, head.encode() + body)
            if kind == "drop_during":
                try:
                    response = await asyncio.wait_for(self.read_response(up_reader, method), arg)
                except asyncio.TimeoutError:
                    cut(writer, rst=False)
                    cut(up_writer, rst=False)
                    return False
            else:
                response = await self.read_response(up_reader, method)
            if response is None:
                # the upstream closed without an answer: pass that on
                cut(writer, rst=False)
                return False
            response_head, response_body, status = response
            entry["status"] = status

            if is_upgrade and status == 101:
                await self.send(writer, response_head.encode())
                await self.tunnel(reader, writer, up_reader, up_writer, target, index, arg if kind == "ws_drop" else None)
                return False

            if kind in ("drop_after", "reset_after"):
                cut(writer, rst=kind == "reset_after")
                return False
            if kind == "status_after":
                await self.send(
                    writer, synthetic(arg, head, fault=fault.mode, retry_after=retry_after, close=client_close)
                )
                return not client_close
            if kind == "delay":
                await asyncio.sleep(arg)
            raw = response_head.encode() + response_body
            if kind == "truncate_after":
                head_bytes = len(response_head.encode())
                await self.send(writer, raw[: head_bytes + len(response_body) // 2])
                cut(writer, rst=False)
                return False
            await self.send(writer, raw)
            upstream_close = "close" in response_head.tokens("connection")
            framed = (
                response_head.get("content-length") is not None
                or "chunked" in response_head.tokens("transfer-encoding")
                or method == "HEAD"
                or status in (204, 304)
            )
            return not (client_close or upstream_close or not framed)
        finally:
            cut(up_writer, rst=False)

    async def read_response(self, up_reader: asyncio.StreamReader, method: str):
        """(head, raw body, status) of the upstream's final answer, or None when it closed first.
        Interim 1xx answers other than 101 are skipped."""
        while True:
            try:
                head = await read_head(up_reader)
            except ProtocolError:
                return None
            if head is None:
                return None
            status = response_status(head)
            if 100 <= status < 200 and status != 101:
                continue
            if status == 101 or method == "HEAD" or status in (204, 304):
                return head, b"", status
            try:
                body = await read_body(up_reader, head, until_eof=True)
            except (asyncio.IncompleteReadError, ProtocolError):
                return None
            return head, body, status

    async def tunnel(self, reader, writer, up_reader, up_writer, path: str, index: int, drop_after: float | None):
        tunnel = Tunnel(writer, up_writer, path, index)
        self.tunnels.add(tunnel)
        self.log(f"ws tunnel {tunnel.id} opened to upstream {index} ({path})")

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while True:
                    await tunnel.flowing.wait()
                    data = await source.read(65536)
                    # silenced meanwhile: hold what was read (an end of stream too) until unsilenced
                    await tunnel.flowing.wait()
                    if not data:
                        break
                    sink.write(data)
                    await sink.drain()
            except (ConnectionError, OSError):
                pass

        timer = None
        if drop_after is not None:
            timer = asyncio.get_running_loop().call_later(drop_after, tunnel.cut)
        pumps = [asyncio.ensure_future(pump(reader, up_writer)), asyncio.ensure_future(pump(up_reader, writer))]
        try:
            await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in pumps:
                task.cancel()
            if timer is not None:
                timer.cancel()
            self.tunnels.discard(tunnel)
            cut(writer, rst=False)
            cut(up_writer, rst=False)
            self.log(f"ws tunnel {tunnel.id} closed")


def parse_upstream(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return (host or "127.0.0.1"), int(port)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    parser.add_argument("--listen", type=int, default=8110, help="port on 127.0.0.1; 0 picks a free one")
    parser.add_argument("--upstream", action="append", required=True, help="PORT or HOST:PORT; repeatable")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--parent-watch", action="store_true", help="exit when stdin reaches EOF")
    args = parser.parse_args()

    upstreams = [parse_upstream(text) for text in args.upstream]
    for host, _ in upstreams:
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise SystemExit(f"upstream host {host!r}: only loopback upstreams are allowed")
    proxy = Proxy(upstreams, verbose=not args.quiet)
    server = await asyncio.start_server(proxy.handle_client, "127.0.0.1", args.listen, limit=READ_LIMIT)
    port = server.sockets[0].getsockname()[1]
    print(json.dumps({"listening": port, "upstreams": [f"{h}:{p}" for h, p in upstreams]}), flush=True)

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    if args.parent_watch:
        # the harness holds our stdin open; its end (the harness died) stops the proxy
        threading.Thread(
            target=lambda: (sys.stdin.buffer.read(), loop.call_soon_threadsafe(stop.set)), daemon=True
        ).start()
    await stop.wait()
    server.close()
    for tunnel in list(proxy.tunnels):
        tunnel.cut()


if __name__ == "__main__":
    asyncio.run(main())
