//! [`Fallback`]: when the calls of a muxws peer go over REST instead (issue 26, "One key across
//! transports"). Sans-IO: every entry point takes `now`; the moment the rule wants to be woken is
//! [`Fallback::poll_timeout`].
//!
//! The rule, one place: a peer with a fallback "cannot be had", and its calls' next attempts go
//! over REST with the same key and the first attempt's headers, when
//! - it has not been connected for `after_ms` (since its socket was lost, or since it started
//!   dialling and never connected);
//! - a dial ended without a socket (the upgrade was refused, or nothing answered): at once;
//! - it closed for good: at once, and for good.
//!
//! It ends when a connection is established (never once closed for good). Between sockets and
//! within `after_ms` the calls wait for the reconnect, as without a fallback. Which attempt goes
//! where is decided as each is sent: one attempt is out at a time (the engine abandons the previous
//! one first), so no call is on both transports at once.
//!
//! The muxws module holds one per peer and drives it from the peer's own events; its driver is
//! told each change ([`Fallback::poll_change`]).

/// The fallback state of one muxws peer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fallback {
    /// How long the peer may be away before its calls go over REST; `None`: no fallback.
    after_ms: Option<u64>,
    /// Not connected since then (`None` while connected).
    away_since: Option<u64>,
    /// Calls go over REST now.
    on: bool,
    /// Closed for good: on, never off again.
    for_good: bool,
    /// What the driver was told last.
    told: bool,
}

impl Fallback {
    /// A peer without a fallback: [`Fallback::rest`] is always false.
    pub const fn off() -> Self {
        Fallback {
            after_ms: None,
            away_since: None,
            on: false,
            for_good: false,
            told: false,
        }
    }

    /// A fallback after `after_ms` away, for a peer that starts dialling at `now` (not connected).
    pub fn new(after_ms: u64, now: u64) -> Self {
        Fallback {
            after_ms: Some(after_ms),
            away_since: Some(now),
            ..Self::off()
        }
    }

    /// A connection is established: calls go over the socket again (unless closed for good).
    pub fn connected(&mut self) {
        self.away_since = None;
        self.on = self.for_good;
    }

    /// The socket was lost (the peer dials again): the wait of `after_ms` starts, unless it runs.
    pub fn lost(&mut self, now: u64) {
        self.away_since.get_or_insert(now);
    }

    /// A dial ended without a socket (the upgrade refused, nothing listening): at once.
    pub fn refused(&mut self, now: u64) {
        self.lost(now);
        self.on |= self.after_ms.is_some();
    }

    /// The peer closed for good: at once, for good.
    pub fn closed_for_good(&mut self) {
        if self.after_ms.is_some() {
            self.for_good = true;
            self.on = true;
        }
    }

    /// When [`Fallback::handle_timeout`] is due: `after_ms` after the peer went away, while it is
    /// away and not yet falling back.
    pub fn poll_timeout(&self) -> Option<u64> {
        match (self.on, self.after_ms, self.away_since) {
            (false, Some(after), Some(since)) => Some(since.saturating_add(after)),
            _ => None,
        }
    }

    /// The timer fired: the fallback starts when the peer has been away for `after_ms`.
    pub fn handle_timeout(&mut self, now: u64) {
        if self.poll_timeout().is_some_and(|due| due <= now) {
            self.on = true;
        }
    }

    /// The calls' next attempts go over REST.
    pub fn rest(&self) -> bool {
        self.on
    }

    /// The fallback started (`Some(true)`) or ended (`Some(false)`) since the last call; `None`
    /// when nothing changed.
    pub fn poll_change(&mut self) -> Option<bool> {
        (self.on != self.told).then(|| {
            self.told = self.on;
            self.on
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Fallback;

    #[test]
    fn off_never_falls_back() {
        let mut f = Fallback::off();
        f.refused(0);
        f.lost(0);
        f.handle_timeout(u64::MAX);
        f.closed_for_good();
        assert!(!f.rest());
        assert_eq!(f.poll_timeout(), None);
        assert_eq!(f.poll_change(), None);
    }

    #[test]
    fn never_connected_falls_back_after_after_ms() {
        let mut f = Fallback::new(3000, 100);
        assert_eq!(f.poll_timeout(), Some(3100));
        f.handle_timeout(3099);
        assert!(!f.rest());
        f.handle_timeout(3100);
        assert!(f.rest());
        assert_eq!(f.poll_change(), Some(true));
        assert_eq!(f.poll_change(), None);
        assert_eq!(f.poll_timeout(), None);
        f.connected();
        assert!(!f.rest());
        assert_eq!(f.poll_change(), Some(false));
    }

    #[test]
    fn connected_in_time_cancels_the_wait() {
        let mut f = Fallback::new(3000, 0);
        f.connected();
        assert_eq!(f.poll_timeout(), None);
        f.handle_timeout(10_000);
        assert!(!f.rest());
        // lost at 5000: the wait counts from the loss, and a second loss does not restart it
        f.lost(5000);
        f.lost(6000);
        assert_eq!(f.poll_timeout(), Some(8000));
        f.connected();
        assert_eq!(f.poll_change(), None);
    }

    #[test]
    fn a_refused_dial_falls_back_at_once() {
        let mut f = Fallback::new(3000, 0);
        f.refused(10);
        assert!(f.rest());
        assert_eq!(f.poll_change(), Some(true));
        f.connected();
        assert!(!f.rest());
        f.refused(20);
        assert!(f.rest());
    }

    #[test]
    fn closed_for_good_falls_back_for_good() {
        let mut f = Fallback::new(3000, 0);
        f.connected();
        f.closed_for_good();
        assert!(f.rest());
        f.connected();
        assert!(f.rest());
        assert_eq!(f.poll_change(), Some(true));
        assert_eq!(f.poll_change(), None);
    }

    #[test]
    fn on_and_off_within_one_poll_tells_nothing() {
        let mut f = Fallback::new(0, 0);
        f.refused(0);
        f.connected();
        assert_eq!(f.poll_change(), None);
    }
}
