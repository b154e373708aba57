//! `core`: every endpoint, judged by every rule of `docs/contract.md` "What every response
//! looks like".
//!
//! GET and HEAD of each endpoint, the 404s of unknown and non-normalised paths, the 405s, the
//! absolute-form target, the query echo's decoding rules, the Bearer check of `/api/private`,
//! and `/my/ip`. A HEAD check pipelines `GET /hello` behind the HEAD, so a HEAD answer that
//! carries a body shows up as a broken next response.

use contract::body::{CT_JSON, CT_TEXT, HELLO_JSON, HELLO_TEXT, ROOT_BODY, UNAUTHORIZED_JSON};

use super::{Check, Ctx, Family, Pace, fast};
use crate::Group::Core;
use crate::expect::{self, Expect, Judged};
use crate::report::Failure;

/// `GET target` (with `extra` fields) answers exactly `e`.
fn get_is(c: &Ctx<'_>, target: &str, extra: &[&str], e: Expect<'_>) -> Judged {
    let (_, resp) = c.roundtrip(&c.req("GET", target, extra), false)?;
    c.exact(&resp, &e)
}

/// `GET target` answers 200 with `content_type` and `body`.
fn get_ok(c: &Ctx<'_>, target: &str, extra: &[&str], content_type: &str, body: &[u8]) -> Judged {
    get_is(c, target, extra, Expect::ok(content_type, body))
}

/// `HEAD target` answers as `e` describes the GET (no body, the GET's length), and the
/// connection then serves a pipelined `GET /hello` correctly framed.
fn head_is(c: &Ctx<'_>, target: &str, extra: &[&str], e: Expect<'_>) -> Judged {
    let mut bytes = c.req("HEAD", target, extra);
    bytes.extend_from_slice(&c.get("/hello"));
    let mut conn = c.connect()?;
    c.send(&mut conn, &bytes)?;
    let resp = c.read(&mut conn, true)?;
    c.exact(&resp, &e.head(true))?;
    let next = c
        .read(&mut conn, false)
        .map_err(|f| f.at("the pipelined GET /hello after the HEAD answer"))?;
    expect::status(&next, 200, false)
        .and_then(|()| expect::body(&next, HELLO_TEXT))
        .map_err(|f| f.at("the pipelined GET /hello after the HEAD answer (a body after HEAD?)"))
}

/// The query echo: `GET /api?query` answers `Hey …` exactly `want`.
fn echo(c: &Ctx<'_>, query: &str, want: &str) -> Judged {
    let target = if query.is_empty() {
        "/api".to_owned()
    } else {
        format!("/api?{query}")
    };
    get_ok(c, &target, &[], CT_TEXT, want.as_bytes())
}

/// `method target` answers 404 with an empty body.
fn not_found(c: &Ctx<'_>, method: &str, target: &str) -> Judged {
    let extra: &[&str] = if method == "POST" {
        &["Content-Length: 0"]
    } else {
        &[]
    };
    let (_, resp) = c.roundtrip(&c.req(method, target, extra), false)?;
    c.exact(&resp, &Expect::empty(404))
}

/// `method target` answers 405 with `allow: GET, HEAD` and an empty body.
fn not_allowed(c: &Ctx<'_>, method: &str, target: &str) -> Judged {
    let extra: &[&str] = if matches!(method, "POST" | "PUT") {
        &["Content-Length: 0"]
    } else {
        &[]
    };
    let (_, resp) = c.roundtrip(&c.req(method, target, extra), false)?;
    c.exact(&resp, &Expect::empty(405))
}

/// `GET /api/private` with the given `Authorization` lines answers 401.
fn unauthorized(c: &Ctx<'_>, auth: &[&str]) -> Judged {
    get_is(
        c,
        "/api/private",
        auth,
        Expect::ok(CT_JSON, UNAUTHORIZED_JSON).status(401),
    )
}

/// `/my/ip` shows the client's own address, as the client sees it.
fn my_ip(c: &Ctx<'_>, head: bool) -> Judged {
    let mut conn = c.connect()?;
    let ip = conn
        .stream()
        .local_addr()
        .map_err(|e| Failure::new("the client's local address", e.to_string()))?
        .ip()
        .to_string();
    if head {
        drop(conn);
        return head_is(c, "/my/ip", &[], Expect::ok(CT_TEXT, ip.as_bytes()));
    }
    c.send(&mut conn, &c.get("/my/ip"))?;
    let resp = c.read(&mut conn, false)?;
    c.exact(&resp, &Expect::ok(CT_TEXT, ip.as_bytes()))
}

pub(super) const CHECKS: &[Check] = &[
    // GET of each endpoint.
    fast(
        "core.hello.get",
        Core,
        "GET /api/hello: 200, application/json, the hello JSON",
        |c| get_ok(c, "/api/hello", &[], CT_JSON, HELLO_JSON),
    )
    .needs(&["/api/hello"]),
    fast(
        "core.root.get",
        Core,
        "GET /: 200, text/plain, 1,024 dots",
        |c| get_ok(c, "/", &[], CT_TEXT, ROOT_BODY),
    )
    .needs(&["/"]),
    fast(
        "core.hello-text.get",
        Core,
        "GET /hello: 200, text/plain, Hello, World",
        |c| get_ok(c, "/hello", &[], CT_TEXT, HELLO_TEXT),
    ),
    fast(
        "core.echo.get",
        Core,
        "GET /api?name=A&lastname=B: Hey A B",
        |c| echo(c, "name=A&lastname=B", "Hey A B"),
    )
    .needs(&["/api"]),
    fast(
        "core.private.get",
        Core,
        "GET /api/private with the right Bearer token: 200",
        |c| {
            let auth = c.good_auth();
            get_ok(c, "/api/private", &[&auth], CT_JSON, HELLO_JSON)
        },
    )
    .needs(&["/api/private"]),
    Check {
        name: "core.my-ip.v4",
        group: Core,
        about: "GET /my/ip over IPv4: the client's address (127.0.0.1), never IPv4-mapped",
        pace: Pace::Fast,
        family: Family::V4,
        run: |c| my_ip(c, false),
        needs: &["/my/ip"],
    },
    Check {
        name: "core.my-ip.v6",
        group: Core,
        about: "GET /my/ip over IPv6: the client's address (::1)",
        pace: Pace::Fast,
        family: Family::V6,
        run: |c| my_ip(c, false),
        needs: &["/my/ip"],
    },
    // HEAD of each endpoint.
    fast(
        "core.hello.head",
        Core,
        "HEAD /api/hello: no body, GET's length and type",
        |c| head_is(c, "/api/hello", &[], Expect::ok(CT_JSON, HELLO_JSON)),
    )
    .needs(&["/api/hello"]),
    fast(
        "core.root.head",
        Core,
        "HEAD /: no body, content-length 1024",
        |c| head_is(c, "/", &[], Expect::ok(CT_TEXT, ROOT_BODY)),
    )
    .needs(&["/"]),
    fast(
        "core.hello-text.head",
        Core,
        "HEAD /hello: no body, GET's length and type",
        |c| head_is(c, "/hello", &[], Expect::ok(CT_TEXT, HELLO_TEXT)),
    ),
    fast(
        "core.echo.head",
        Core,
        "HEAD /api?name=A&lastname=B: no body, length 7",
        |c| {
            head_is(
                c,
                "/api?name=A&lastname=B",
                &[],
                Expect::ok(CT_TEXT, b"Hey A B"),
            )
        },
    )
    .needs(&["/api"]),
    fast(
        "core.private.head",
        Core,
        "HEAD /api/private with the token: no body, length 25",
        |c| {
            let auth = c.good_auth();
            head_is(c, "/api/private", &[&auth], Expect::ok(CT_JSON, HELLO_JSON))
        },
    )
    .needs(&["/api/private"]),
    fast(
        "core.private.head-401",
        Core,
        "HEAD /api/private without a token: 401, length 24",
        |c| {
            head_is(
                c,
                "/api/private",
                &[],
                Expect::ok(CT_JSON, UNAUTHORIZED_JSON).status(401),
            )
        },
    )
    .needs(&["/api/private"]),
    fast(
        "core.my-ip.head",
        Core,
        "HEAD /my/ip: no body, the GET's length",
        |c| my_ip(c, true),
    )
    .needs(&["/my/ip"]),
    fast(
        "core.not-found.head",
        Core,
        "HEAD of an unknown path: 404, content-length 0",
        |c| head_is(c, "/nope", &[], Expect::empty(404)),
    ),
    // Unknown and non-normalised paths.
    fast(
        "core.not-found.unknown",
        Core,
        "GET /nope: 404, empty, no content-type",
        |c| not_found(c, "GET", "/nope"),
    ),
    fast(
        "core.not-found.trailing-slash",
        Core,
        "GET /api/hello/: 404",
        |c| not_found(c, "GET", "/api/hello/"),
    ),
    fast("core.not-found.double-slash", Core, "GET //: 404", |c| {
        not_found(c, "GET", "//")
    }),
    fast(
        "core.not-found.case",
        Core,
        "GET /API/hello: 404 (paths are case-sensitive)",
        |c| not_found(c, "GET", "/API/hello"),
    ),
    fast(
        "core.not-found.encoded-slash",
        Core,
        "GET /api%2Fhello: 404 (no decoding)",
        |c| not_found(c, "GET", "/api%2Fhello"),
    ),
    fast(
        "core.not-found.post",
        Core,
        "POST to an unknown path: 404, not 405",
        |c| not_found(c, "POST", "/nope"),
    ),
    // Methods.
    fast(
        "core.method.post",
        Core,
        "POST /api/hello: 405, allow: GET, HEAD, empty",
        |c| not_allowed(c, "POST", "/api/hello"),
    )
    .needs(&["/api/hello"]),
    fast(
        "core.method.put",
        Core,
        "PUT /hello: 405, allow: GET, HEAD, empty",
        |c| not_allowed(c, "PUT", "/hello"),
    ),
    fast(
        "core.method.delete",
        Core,
        "DELETE /: 405, allow: GET, HEAD, empty",
        |c| not_allowed(c, "DELETE", "/"),
    )
    .needs(&["/"]),
    fast(
        "core.method.lowercase-get",
        Core,
        "get /api/hello: 405 (methods are case-sensitive)",
        |c| not_allowed(c, "get", "/api/hello"),
    )
    .needs(&["/api/hello"]),
    // Targets.
    fast(
        "core.absolute-form",
        Core,
        "GET http://HOST/api/hello: matched on its path",
        |c| {
            let target = format!("http://{}/api/hello", c.addr());
            get_ok(c, &target, &[], CT_JSON, HELLO_JSON)
        },
    )
    .needs(&["/api/hello"]),
    fast(
        "core.query-ignored",
        Core,
        "GET /hello?x=1: the query never changes the endpoint",
        |c| get_ok(c, "/hello?x=1", &[], CT_TEXT, HELLO_TEXT),
    ),
    // Query echo decoding.
    fast("core.echo.plus", Core, "+ decodes to a space", |c| {
        echo(c, "name=A+C&lastname=B+D", "Hey A C B D")
    })
    .needs(&["/api"]),
    fast("core.echo.percent", Core, "%XX decodes to a byte", |c| {
        echo(c, "name=%41%62&lastname=x%20y%2B", "Hey Ab x y+")
    })
    .needs(&["/api"]),
    fast(
        "core.echo.malformed-percent",
        Core,
        "a malformed % sequence stays as written",
        |c| echo(c, "name=%zz%41&lastname=%4", "Hey %zzA %4"),
    )
    .needs(&["/api"]),
    fast(
        "core.echo.first-wins",
        Core,
        "the first name and the first lastname count",
        |c| echo(c, "name=A&lastname=B&name=C&lastname=D", "Hey A B"),
    )
    .needs(&["/api"]),
    fast(
        "core.echo.missing-both",
        Core,
        "GET /api: both missing, Hey and two spaces",
        |c| echo(c, "", "Hey  "),
    )
    .needs(&["/api"]),
    fast(
        "core.echo.missing-name",
        Core,
        "a missing name is empty",
        |c| echo(c, "lastname=B", "Hey  B"),
    )
    .needs(&["/api"]),
    fast(
        "core.echo.missing-lastname",
        Core,
        "a missing lastname is empty",
        |c| echo(c, "name=A", "Hey A "),
    )
    .needs(&["/api"]),
    fast(
        "core.echo.encoded-key",
        Core,
        "names are decoded like values (n%61me=X)",
        |c| echo(c, "n%61me=X&lastn%61me=Y", "Hey X Y"),
    )
    .needs(&["/api"]),
    fast(
        "core.echo.invalid-utf8",
        Core,
        "bytes that are not UTF-8 become U+FFFD",
        |c| echo(c, "name=%FF&lastname=%C3%A9", "Hey \u{FFFD} \u{E9}"),
    )
    .needs(&["/api"]),
    fast(
        "core.echo.no-escaping",
        Core,
        "the body is plain text, nothing escaped",
        |c| echo(c, "name=%3Cb%3E&lastname=%22%26", "Hey <b> \"&"),
    )
    .needs(&["/api"]),
    fast(
        "core.echo.bare-key",
        Core,
        "a key without = counts, with an empty value",
        |c| echo(c, "lastname&lastname=B&name=A", "Hey A "),
    )
    .needs(&["/api"]),
    fast(
        "core.echo.equals-in-value",
        Core,
        "a value may contain =",
        |c| echo(c, "name=a=b&lastname=c", "Hey a=b c"),
    )
    .needs(&["/api"]),
    // Authorization.
    fast(
        "core.private.missing",
        Core,
        "no Authorization field: 401, the error JSON",
        |c| unauthorized(c, &[]),
    )
    .needs(&["/api/private"]),
    fast(
        "core.private.wrong-token",
        Core,
        "Bearer with another token: 401",
        |c| unauthorized(c, &["Authorization: Bearer wrong-token"]),
    )
    .needs(&["/api/private"]),
    fast(
        "core.private.basic-scheme",
        Core,
        "Basic with the token: 401",
        |c| {
            let line = format!("Authorization: Basic {}", c.target.auth_token);
            unauthorized(c, &[&line])
        },
    )
    .needs(&["/api/private"]),
    fast(
        "core.private.lowercase-bearer",
        Core,
        "bearer (lowercase) with the token: 401",
        |c| {
            let line = format!("Authorization: bearer {}", c.target.auth_token);
            unauthorized(c, &[&line])
        },
    )
    .needs(&["/api/private"]),
    fast(
        "core.private.two-fields",
        Core,
        "two Authorization fields, both right: 401",
        |c| {
            let line = c.good_auth();
            unauthorized(c, &[&line, &line])
        },
    )
    .needs(&["/api/private"]),
    fast(
        "core.private.short-token",
        Core,
        "the token less its last byte: 401",
        |c| {
            let mut short = c.target.auth_token.clone();
            short.pop();
            let line = format!("Authorization: Bearer {short}");
            unauthorized(c, &[&line])
        },
    )
    .needs(&["/api/private"]),
    fast(
        "core.private.long-token",
        Core,
        "the token plus one byte: 401",
        |c| {
            let line = format!("{}x", c.good_auth());
            unauthorized(c, &[&line])
        },
    )
    .needs(&["/api/private"]),
];
