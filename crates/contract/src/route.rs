//! Which endpoint a request's method and target select.
//!
//! Paths match byte for byte: no percent-decoding, no normalisation. An absolute-form
//! target (`http://host/api/hello`) is matched on its path, and the query string never
//! changes which endpoint answers. Methods are case-sensitive: `GET` and `HEAD` only.

/// Every endpoint of the contract, the event-loop scenarios included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endpoint {
    /// `GET /api/hello`: `{"message":"Hello World"}`.
    ApiHello,
    /// `GET /`: 1,024 dots.
    Root,
    /// `GET /my/ip`: the peer's address.
    MyIp,
    /// `GET /api?name=A&lastname=B`: `Hey A B`.
    Echo,
    /// `GET /hello`: `Hello, World`.
    Hello,
    /// `GET /api/private`: the Bearer-token check.
    Private,
    /// `GET /api/async`: a 10 ms runtime timer.
    Async,
    /// `GET /api/sync`: a CPU loop on the request's thread.
    Sync,
    /// `GET /api/sync-offload`: the same loop on the blocking pool.
    SyncOffload,
    /// `GET /api/nexttick`: a chain of 1,000 tasks.
    NextTick,
    /// `GET /api/timer`: 200 zero-time sleeps, not awaited.
    Timer,
}

impl Endpoint {
    /// Every endpoint, the fixed ones first.
    pub const ALL: [Endpoint; 11] = [
        Endpoint::ApiHello,
        Endpoint::Root,
        Endpoint::MyIp,
        Endpoint::Echo,
        Endpoint::Hello,
        Endpoint::Private,
        Endpoint::Async,
        Endpoint::Sync,
        Endpoint::SyncOffload,
        Endpoint::NextTick,
        Endpoint::Timer,
    ];

    /// The endpoint's path, exactly as it must be requested.
    pub const fn path(self) -> &'static str {
        match self {
            Endpoint::ApiHello => "/api/hello",
            Endpoint::Root => "/",
            Endpoint::MyIp => "/my/ip",
            Endpoint::Echo => "/api",
            Endpoint::Hello => "/hello",
            Endpoint::Private => "/api/private",
            Endpoint::Async => "/api/async",
            Endpoint::Sync => "/api/sync",
            Endpoint::SyncOffload => "/api/sync-offload",
            Endpoint::NextTick => "/api/nexttick",
            Endpoint::Timer => "/api/timer",
        }
    }

    /// Whether this is one of the event-loop scenarios (served only by variants that list them).
    pub const fn is_scenario(self) -> bool {
        matches!(
            self,
            Endpoint::Async
                | Endpoint::Sync
                | Endpoint::SyncOffload
                | Endpoint::NextTick
                | Endpoint::Timer
        )
    }

    /// The `content-type` of this endpoint's answers (every endpoint has a body).
    pub const fn content_type(self) -> &'static str {
        match self {
            Endpoint::Root | Endpoint::MyIp | Endpoint::Echo | Endpoint::Hello => {
                crate::body::CT_TEXT
            }
            _ => crate::body::CT_JSON,
        }
    }

    /// The fixed body of this endpoint, or `None` where the body depends on the request
    /// (`/my/ip`, the query echo, `/api/private`).
    pub const fn fixed_body(self) -> Option<&'static [u8]> {
        use crate::body::*;
        match self {
            Endpoint::ApiHello => Some(HELLO_JSON),
            Endpoint::Root => Some(ROOT_BODY),
            Endpoint::Hello => Some(HELLO_TEXT),
            Endpoint::Async => Some(ASYNC_JSON),
            Endpoint::Sync | Endpoint::SyncOffload => Some(SYNC_JSON),
            Endpoint::NextTick => Some(NEXTTICK_JSON),
            Endpoint::Timer => Some(TIMER_JSON),
            Endpoint::MyIp | Endpoint::Echo | Endpoint::Private => None,
        }
    }

    /// The endpoint at exactly `path` (no query), if any. `scenarios` says whether the
    /// event-loop scenarios are served.
    pub fn from_path(path: &[u8], scenarios: bool) -> Option<Endpoint> {
        let e = match path {
            b"/api/hello" => Endpoint::ApiHello,
            b"/" => Endpoint::Root,
            b"/my/ip" => Endpoint::MyIp,
            b"/api" => Endpoint::Echo,
            b"/hello" => Endpoint::Hello,
            b"/api/private" => Endpoint::Private,
            b"/api/async" => Endpoint::Async,
            b"/api/sync" => Endpoint::Sync,
            b"/api/sync-offload" => Endpoint::SyncOffload,
            b"/api/nexttick" => Endpoint::NextTick,
            b"/api/timer" => Endpoint::Timer,
            _ => return None,
        };
        (scenarios || !e.is_scenario()).then_some(e)
    }
}

/// The request method, as far as the contract distinguishes methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// `GET`.
    Get,
    /// `HEAD`: answered like `GET`, without the body.
    Head,
    /// Anything else, `get` included (methods are case-sensitive).
    Other,
}

impl Method {
    /// Classifies a method token byte for byte.
    pub fn parse(method: &[u8]) -> Method {
        match method {
            b"GET" => Method::Get,
            b"HEAD" => Method::Head,
            _ => Method::Other,
        }
    }
}

/// What a request is answered with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// A known endpoint; `head` says the body is left out.
    Endpoint {
        /// The endpoint.
        endpoint: Endpoint,
        /// Whether the method was `HEAD`.
        head: bool,
    },
    /// A known path with a method other than `GET` or `HEAD`: 405.
    MethodNotAllowed,
    /// An unknown path: 404.
    NotFound,
}

/// Splits a request target into its path and its query (without the `?`).
///
/// An absolute-form target (`http://host:port/path?q`) yields its path; one without a
/// path (`http://host`) yields `/`. Any other form is returned as written.
#[inline]
pub fn split_target(target: &[u8]) -> (&[u8], Option<&[u8]>) {
    let origin = match target.first() {
        Some(b'/') => target,
        _ => absolute_path(target).unwrap_or(target),
    };
    match origin.iter().position(|&b| b == b'?') {
        Some(i) => (&origin[..i], Some(&origin[i + 1..])),
        None => (origin, None),
    }
}

/// The path-and-query part of an absolute-form target, or `None` when `target` is not one.
#[inline(never)]
fn absolute_path(target: &[u8]) -> Option<&[u8]> {
    if target.first() == Some(&b'/') {
        return None;
    }
    let scheme_end = target.windows(3).position(|w| w == b"://")?;
    let scheme = &target[..scheme_end];
    if scheme.is_empty()
        || !scheme
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(b))
    {
        return None;
    }
    let rest = &target[scheme_end + 3..];
    match rest.iter().position(|&b| b == b'/' || b == b'?') {
        Some(i) if rest[i] == b'/' => Some(&rest[i..]),
        // `http://host?q` has an empty path, which means `/`; the query still follows.
        Some(_) | None => Some(b"/"),
    }
}

/// Routes a request by its method token and its request target.
#[inline]
pub fn route(method: &[u8], target: &[u8], scenarios: bool) -> Route {
    let (path, _) = split_target(target);
    match Endpoint::from_path(path, scenarios) {
        None => Route::NotFound,
        Some(endpoint) => match Method::parse(method) {
            Method::Get => Route::Endpoint {
                endpoint,
                head: false,
            },
            Method::Head => Route::Endpoint {
                endpoint,
                head: true,
            },
            Method::Other => Route::MethodNotAllowed,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_round_trip() {
        for e in Endpoint::ALL {
            assert_eq!(Endpoint::from_path(e.path().as_bytes(), true), Some(e));
        }
    }

    #[test]
    fn scenarios_only_when_served() {
        assert_eq!(Endpoint::from_path(b"/api/async", false), None);
        assert_eq!(
            Endpoint::from_path(b"/api/async", true),
            Some(Endpoint::Async)
        );
    }

    #[test]
    fn no_normalisation() {
        for p in [
            &b"/api/hello/"[..],
            b"//",
            b"/API/hello",
            b"/api%2Fhello",
            b"",
            b"*",
            b"/api/hello%20",
        ] {
            assert_eq!(route(b"GET", p, true), Route::NotFound, "{p:?}");
        }
    }

    #[test]
    fn methods_are_case_sensitive() {
        assert_eq!(route(b"get", b"/hello", false), Route::MethodNotAllowed);
        assert_eq!(route(b"POST", b"/hello", false), Route::MethodNotAllowed);
        assert_eq!(
            route(b"HEAD", b"/hello", false),
            Route::Endpoint {
                endpoint: Endpoint::Hello,
                head: true
            }
        );
        assert_eq!(route(b"POST", b"/nope", false), Route::NotFound);
    }

    #[test]
    fn absolute_form_and_query() {
        assert_eq!(
            split_target(b"http://h/api/hello"),
            (&b"/api/hello"[..], None)
        );
        assert_eq!(
            split_target(b"http://h:8080/api?name=a"),
            (&b"/api"[..], Some(&b"name=a"[..]))
        );
        assert_eq!(split_target(b"http://h"), (&b"/"[..], None));
        assert_eq!(
            split_target(b"/hello?x=1"),
            (&b"/hello"[..], Some(&b"x=1"[..]))
        );
        assert_eq!(
            route(b"GET", b"/hello?x=1", false),
            Route::Endpoint {
                endpoint: Endpoint::Hello,
                head: false
            }
        );
        assert_eq!(split_target(b"/a://b"), (&b"/a://b"[..], None));
    }
}
