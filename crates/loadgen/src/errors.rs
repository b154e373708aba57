//! What can go wrong with a request: [`ErrorKind`], and [`Errors`], the counts by kind (and of
//! error statuses by class) that a thread's stats, a timeline's interval and the report keep.

/// The kinds of failed request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The connection could not be opened (refused, unreachable, connect timed out).
    Connect,
    /// Reading failed, or the server closed before a whole response arrived.
    Read,
    /// Writing the request failed.
    Write,
    /// No whole response within the timeout.
    Timeout,
    /// The bytes were not a valid HTTP/1.x response.
    Framing,
}

/// Counts of failed requests by kind, and of error statuses by class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Errors {
    /// See [`ErrorKind::Connect`].
    pub connect: u64,
    /// See [`ErrorKind::Read`].
    pub read: u64,
    /// See [`ErrorKind::Write`].
    pub write: u64,
    /// See [`ErrorKind::Timeout`].
    pub timeout: u64,
    /// See [`ErrorKind::Framing`].
    pub framing: u64,
    /// Whole responses with a 4xx status.
    pub status_4xx: u64,
    /// Whole responses with a 5xx status.
    pub status_5xx: u64,
}

impl Errors {
    /// Adds `n` failures of `kind`.
    pub fn add(&mut self, kind: ErrorKind, n: u64) {
        let slot = match kind {
            ErrorKind::Connect => &mut self.connect,
            ErrorKind::Read => &mut self.read,
            ErrorKind::Write => &mut self.write,
            ErrorKind::Timeout => &mut self.timeout,
            ErrorKind::Framing => &mut self.framing,
        };
        *slot += n;
    }

    /// Requests that got no whole response (every kind but the statuses).
    pub fn transport(&self) -> u64 {
        self.connect + self.read + self.write + self.timeout + self.framing
    }

    /// Every failure, error statuses included.
    pub fn total(&self) -> u64 {
        self.transport() + self.status_4xx + self.status_5xx
    }

    pub(crate) fn merge(&mut self, o: &Errors) {
        self.connect += o.connect;
        self.read += o.read;
        self.write += o.write;
        self.timeout += o.timeout;
        self.framing += o.framing;
        self.status_4xx += o.status_4xx;
        self.status_5xx += o.status_5xx;
    }
}
