// The page side of tests/browser/events-life.test.mjs: a follower with a persisted cursor, driven by
// page.evaluate through small steps returning plain data. Loaded into tests/browser/runner.html by
// loadScenarios(); a step gets the runner's ctx ({ pkg, baseUrl, wsUrl, ctl }) and one argument.

/** What the steps share: the follower and what it delivered. */
const live = { follower: null, events: [], resyncs: [], modes: [] };
globalThis.live = live;

export const eventsLifeSteps = {
  /** Follows `imports:{key}` with `persist` (from 'now' unless a cursor is stored); resolves once it holds a cursor. */
  async followImports({ pkg, baseUrl }, { key, persist = true, pollIntervalMs = 200 }) {
    live.follower = pkg.follow(`imports:${key}`, {
      baseUrl,
      persist,
      pollIntervalMs,
      onEvent: (event) => void live.events.push({ rev: event.rev, prev: event.prev, rows: event.payload.rows }),
      onResync: (info) => void live.resyncs.push(info),
    });
    await live.follower.ready;
    return live.follower.cursor;
  },
  /** The follower's state and what it delivered. */
  followState() {
    return { cursor: live.follower?.cursor ?? null, mode: live.follower?.mode ?? null, events: live.events, resyncs: live.resyncs };
  },
  /** Closes the follower. */
  async closeFollower() {
    await live.follower?.close();
    return live.follower?.mode ?? null;
  },
};
