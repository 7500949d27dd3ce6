// Control of the real test stack over HTTP only (fault proxy `/__fault`, backend `/__test/*`), so the
// same scenarios drive it from Node and from a browser page.

export function control(baseUrl) {
  async function call(method, path) {
    const response = await fetch(`${baseUrl}${path}`, { method });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return text ? JSON.parse(text) : null;
  }
  const ctl = {
    /** Queues a fault on the proxy: mode e.g. 'drop_after', 'status:503'; opts {count, path, method, ...}. */
    fault: (mode, opts = {}) => {
      const params = new URLSearchParams({ mode });
      for (const [name, value] of Object.entries(opts)) if (value !== undefined) params.set(name, String(value));
      return call('GET', `/__fault?${params}`);
    },
    clearFaults: () => call('GET', '/__fault?mode=clear'),
    killWs: () => call('GET', '/__fault?mode=kill_ws'),
    /** Every later WebSocket upgrade answered 403 (open tunnels stay), until `allowWs()` or `clearFaults()`. */
    refuseWs: () => call('GET', '/__fault?mode=refuse_ws'),
    allowWs: () => call('GET', '/__fault?mode=allow_ws'),
    /** Silences every open WebSocket tunnel: nothing forwarded either way, nothing closed, until
     *  `unsilenceWs()` or `clearFaults()`. Answers `{silenced: n}`. */
    silenceWs: () => call('GET', '/__fault?mode=silence_ws'),
    /** Lets silenced tunnels (and held `silence` requests) go on. */
    unsilenceWs: () => call('GET', '/__fault?mode=unsilence_ws'),
    /** The proxy's listing: queued faults, pins, open tunnels (`ws_tunnels`, with `silenced`). */
    proxyState: () => call('GET', '/__fault'),
    counters: () => call('GET', '/__test/counters'),
    log: () => call('GET', '/__test/log'),
    reset: () => call('POST', '/__test/reset'),
    /** The catalog (tests/backend/catalog.py) back to its twelve books, ids 1–12; the next id is 13. */
    seedCatalog: () => call('POST', '/__test/catalog/seed'),
    goaway: (drain = 10) => call('POST', `/__test/ws/goaway?drain=${drain}`),
    closeSockets: () => call('POST', '/__test/ws/close'),
    /** The request-log entries that carried `key` (as its Structured Field string). */
    async entriesOf(key) {
      const entries = await ctl.log();
      return entries.filter((entry) => entry.idempotency_key === `"${key}"`);
    },
    /** How many times the action of the call with `key` ran on the server. */
    async runsOf(key) {
      return (await ctl.entriesOf(key)).filter((entry) => entry.ran).length;
    },
  };
  return ctl;
}

/** Collects the activity events of the calls whose keys `keys()` lists, until `stop()`. */
export function recordActivity(pkg) {
  const events = [];
  const stop = pkg.onCallActivity((event) => events.push(event));
  return {
    events,
    stop,
    of: (key) => events.filter((event) => event.key === key).map((event) => event.type),
    retriesOf: (key) => events.filter((event) => event.key === key && event.type === 'retry'),
  };
}

/** Resolves after `ms`. */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check()` holds, looking every 20 ms; past `ms`, throws an Error whose message is `what()`. */
export async function waitUntil(check, what, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(what());
    await sleep(20);
  }
}
