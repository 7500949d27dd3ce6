// What the follower's unit test files against a hostile server of the suite's own share
// (follow-defects, follow-promises): topic logs as the backend keeps them, the scripted muxws server
// answering subscribes and polls from them, pushes, and waits in fake time. Not a test file itself
// (its name matches none of `node --test`'s patterns).
import assert from 'node:assert/strict';

/** A log of one topic as the backend keeps it (the last `size` events), at `rev`. */
export function topicLog(rev = 1000, size = 32) {
  const log = { rev, kept: [] };
  log.publish = (payload = null) => {
    const event = { rev: log.rev + 1, prev: log.rev, event: 'records_changed', version: 1, payload };
    log.rev = event.rev;
    log.kept.push(event);
    if (log.kept.length > size) log.kept.shift();
    return event;
  };
  // as the backend's since(): [] at the rev, the chain from a kept rev, else null (the cursor is no rev it holds)
  log.answer = (cursor) => {
    if (cursor === null || cursor === log.rev) return { rev: log.rev, events: [] };
    const at = log.kept.findIndex((event) => event.prev === cursor);
    return { rev: log.rev, events: at < 0 ? null : log.kept.slice(at) };
  };
  return log;
}

/** Options of a peer that reconnects after 100 ms, without jitter. */
export const peerOptions = { reconnect: { initialDelayMs: 100, jitter: 0 } };

/**
 * The helpers bound to a file's fake `clock` and scripted muxws `server` (kit.mjs's muxwsSetup());
 * pushed streams are numbered from `firstStream` on.
 */
export function followKit({ clock, server }, { firstStream = 1000 } = {}) {
  let stream = firstStream;
  return {
    /** The muxws server answers subscribes and polls from `logs` (by topic); `subscribe` may script the subscribe's answer. */
    serveLogs(logs, { subscribe } = {}) {
      server.answer = (open) => {
        const path = open.headers[':path'];
        if (path === '/events/subscribe') return subscribe?.(open) ?? { status: 200, payload: { rev: logs[open.payload.topic].rev } };
        if (path === '/events/unsubscribe') return { status: 204, payload: null };
        if (path === '/events/poll') {
          const topics = {};
          for (const [topic, cursor] of Object.entries(open.payload.cursors)) topics[topic] = logs[topic].answer(cursor);
          return { status: 200, payload: { topics, poll_after_ms: 0 } };
        }
        return { status: 404, payload: null };
      };
    },

    /** Pushes `event` of `topic` on `socket` (`end` false: the server never ends its half). */
    push(socket, topic, event, end = true) {
      socket.push({ type: 'open', stream: (stream += 2), end, headers: { ':event': event.event, ':version': 1, ':topic': topic, ':rev': event.rev, ':prev': event.prev }, payload: event.payload });
    },

    /** `promise`'s value once it settles, fake time passing in steps of `step` ms, at most `ms`; a rejection is thrown; never settling fails. */
    async within(promise, ms = 60_000, step = 100, what = 'it') {
      const seen = { done: false };
      promise.then((value) => Object.assign(seen, { done: true, value }), (error) => Object.assign(seen, { done: true, error, failed: true }));
      for (let waited = 0; !seen.done && waited <= ms; waited += step) await clock.advance(step);
      if (!seen.done) assert.fail(`${what} did not settle within ${ms} ms of fake time`);
      if (seen.failed) throw seen.error;
      return seen.value;
    },
  };
}
