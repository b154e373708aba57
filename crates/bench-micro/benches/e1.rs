//! E1's two micro-benchmarks, in-process (no sockets), each iteration 100,000 operations so
//! criterion's time per iteration reads directly as E1's "cost of 100,000 …" figures.
//!
//! - `routes/*`: 100,000 path matches over the same 34-route table (13 with path parameters,
//!   1 in 16 lookups a miss) with axum's router (matchit, the matcher `axum::Router` uses),
//!   actix's router (actix-router, the matcher `actix_web::App` uses, a scan over resource
//!   definitions) and a plain `match` on the path's segments.
//! - `token/*`: 100,000 requests to `/api/private` with the right Bearer token through the
//!   real application of each framework, with the token middleware (`server_axum`'s
//!   `require_bearer` layer, `server_actix`'s `require_bearer` route middleware) and without
//!   it, in-process (`tower::ServiceExt::oneshot`, `actix_web::test::call_service`); the
//!   difference is the middleware's cost.
//!
//! Run: `cargo bench -p bench-micro --bench e1` (a crate of its own, so that neither a server
//! crate nor the harness depends on another server crate for a benchmark).

use std::hint::black_box;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, header};
use axum::middleware::from_fn_with_state;
use axum::routing::get;
use criterion::{Criterion, criterion_group, criterion_main};
use tower::ServiceExt;

/// Operations per criterion iteration.
const OPS: usize = 100_000;

/// A realistic API's route table: `{name}` marks a path parameter.
const ROUTES: [&str; 34] = [
    "/",
    "/hello",
    "/health",
    "/metrics",
    "/my/ip",
    "/api",
    "/api/hello",
    "/api/private",
    "/api/async",
    "/api/sync",
    "/api/users",
    "/api/users/{id}",
    "/api/users/{id}/posts",
    "/api/users/{id}/posts/{post}",
    "/api/users/{id}/followers",
    "/api/posts",
    "/api/posts/{id}",
    "/api/posts/{id}/comments",
    "/api/comments/{id}",
    "/api/products",
    "/api/products/{id}",
    "/api/products/{id}/reviews",
    "/api/orders",
    "/api/orders/{id}",
    "/api/orders/{id}/items",
    "/api/cart",
    "/api/cart/items",
    "/api/auth/login",
    "/api/auth/logout",
    "/api/auth/refresh",
    "/api/search",
    "/api/categories",
    "/api/categories/{slug}",
    "/static/{file}",
];

/// The lookups, cycled to 100,000: every route once with concrete parameters, plus misses.
const LOOKUPS: [&str; 16] = [
    "/api/hello",
    "/api/users/42",
    "/api/users/42/posts/7",
    "/",
    "/api/products/1234/reviews",
    "/api/orders",
    "/api/categories/books",
    "/static/app.js",
    "/api/auth/login",
    "/api/posts/9/comments",
    "/hello",
    "/api/cart/items",
    "/my/ip",
    "/api/search",
    "/api/comments/3",
    "/api/nope",
];

/// The plain-`match` router: the route index of `path`, by its segments.
fn plain_match(path: &str) -> Option<usize> {
    let mut seg = path.strip_prefix('/')?.split('/');
    let s = (seg.next(), seg.next(), seg.next(), seg.next(), seg.next());
    Some(match s {
        (Some(""), None, ..) => 0,
        (Some("hello"), None, ..) => 1,
        (Some("health"), None, ..) => 2,
        (Some("metrics"), None, ..) => 3,
        (Some("my"), Some("ip"), None, ..) => 4,
        (Some("static"), Some(_), None, ..) => 33,
        (Some("api"), rest, a, b, c) => match (rest, a, b, c) {
            (None, ..) => 5,
            (Some("hello"), None, ..) => 6,
            (Some("private"), None, ..) => 7,
            (Some("async"), None, ..) => 8,
            (Some("sync"), None, ..) => 9,
            (Some("users"), None, ..) => 10,
            (Some("users"), Some(_), None, _) => 11,
            (Some("users"), Some(_), Some("posts"), None) => 12,
            (Some("users"), Some(_), Some("posts"), Some(_)) => 13,
            (Some("users"), Some(_), Some("followers"), None) => 14,
            (Some("posts"), None, ..) => 15,
            (Some("posts"), Some(_), None, _) => 16,
            (Some("posts"), Some(_), Some("comments"), None) => 17,
            (Some("comments"), Some(_), None, _) => 18,
            (Some("products"), None, ..) => 19,
            (Some("products"), Some(_), None, _) => 20,
            (Some("products"), Some(_), Some("reviews"), None) => 21,
            (Some("orders"), None, ..) => 22,
            (Some("orders"), Some(_), None, _) => 23,
            (Some("orders"), Some(_), Some("items"), None) => 24,
            (Some("cart"), None, ..) => 25,
            (Some("cart"), Some("items"), None, _) => 26,
            (Some("auth"), Some("login"), None, _) => 27,
            (Some("auth"), Some("logout"), None, _) => 28,
            (Some("auth"), Some("refresh"), None, _) => 29,
            (Some("search"), None, ..) => 30,
            (Some("categories"), None, ..) => 31,
            (Some("categories"), Some(_), None, _) => 32,
            _ => return None,
        },
        _ => return None,
    })
}

fn routes(c: &mut Criterion) {
    let mut matchit = matchit::Router::new();
    for (i, r) in ROUTES.iter().enumerate() {
        matchit.insert(*r, i).expect("a valid matchit route");
    }
    let mut actix = actix_router::Router::<usize>::build();
    for (i, r) in ROUTES.iter().enumerate() {
        actix.path(*r, i);
    }
    let actix = actix.finish();

    // The three routers agree on every lookup before they are timed.
    for path in LOOKUPS {
        let m = matchit.at(path).ok().map(|m| *m.value);
        let a = actix
            .recognize(&mut actix_router::Path::new(path))
            .map(|(v, _)| *v);
        assert_eq!(m, a, "{path}");
        assert_eq!(m, plain_match(path), "{path}");
    }

    let mut g = c.benchmark_group("routes");
    g.sample_size(20);
    g.bench_function("axum-matchit", |b| {
        b.iter(|| {
            let mut hits = 0usize;
            for path in LOOKUPS.iter().cycle().take(OPS) {
                if let Ok(m) = matchit.at(black_box(path)) {
                    hits += *m.value;
                }
            }
            hits
        })
    });
    g.bench_function("actix-router", |b| {
        b.iter(|| {
            let mut hits = 0usize;
            for path in LOOKUPS.iter().cycle().take(OPS) {
                let mut p = actix_router::Path::new(*black_box(path));
                if let Some((v, _)) = actix.recognize(&mut p) {
                    hits += *v;
                }
            }
            hits
        })
    });
    g.bench_function("plain-match", |b| {
        b.iter(|| {
            let mut hits = 0usize;
            for path in LOOKUPS.iter().cycle().take(OPS) {
                if let Some(v) = plain_match(black_box(path)) {
                    hits += v;
                }
            }
            hits
        })
    });
    g.finish();
}

/// The token of the benchmark requests (the contract's default).
const TOKEN: &str = "Bearer bench-token";

fn axum_app(with_token: bool) -> axum::Router {
    let token = server_axum::middleware::Token(Arc::from(&b"bench-token"[..]));
    let route = get(|| async { axum::Json(contract::json::HELLO) });
    let route = if with_token {
        route.route_layer(from_fn_with_state(
            token,
            server_axum::middleware::require_bearer,
        ))
    } else {
        route
    };
    axum::Router::new().route("/api/private", route)
}

fn token(c: &mut Criterion) {
    let mut g = c.benchmark_group("token");
    g.sample_size(10);

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for (name, with) in [("axum-none", false), ("axum-middleware", true)] {
        let app = axum_app(with);
        g.bench_function(name, |b| {
            b.iter(|| {
                rt.block_on(async {
                    for _ in 0..OPS {
                        let mut req = Request::get("/api/private")
                            .header(header::AUTHORIZATION, TOKEN)
                            .body(Body::empty())
                            .unwrap();
                        req.extensions_mut()
                            .insert(ConnectInfo(SocketAddr::from(([127, 0, 0, 1], 1))));
                        let res = app.clone().oneshot(req).await.unwrap();
                        assert_eq!(res.status(), 200);
                    }
                })
            })
        });
    }

    let sys = actix_web::rt::System::new();
    for (name, with) in [("actix-none", false), ("actix-middleware", true)] {
        let srv = sys.block_on(actix_web::test::init_service(actix_app(with)));
        g.bench_function(name, |b| {
            b.iter(|| {
                sys.block_on(async {
                    for _ in 0..OPS {
                        let req = actix_web::test::TestRequest::get()
                            .uri("/api/private")
                            .insert_header(("authorization", TOKEN))
                            .to_request();
                        let res = actix_web::test::call_service(&srv, req).await;
                        assert_eq!(res.status(), 200);
                    }
                })
            })
        });
    }
    g.finish();
}

fn actix_app(
    with_token: bool,
) -> actix_web::App<
    impl actix_web::dev::ServiceFactory<
        actix_web::dev::ServiceRequest,
        Config = (),
        Response = actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    use actix_web::{middleware::from_fn, web};
    let hello = || async { web::Json(contract::json::HELLO) };
    let route = web::get().to(hello);
    let route = if with_token {
        route.wrap(from_fn(server_actix::middleware::require_bearer))
    } else {
        route
    };
    actix_web::App::new()
        .app_data(web::Data::new(server_actix::middleware::Token(
            b"bench-token"[..].into(),
        )))
        .service(web::resource("/api/private").route(route))
}

criterion_group!(benches, routes, token);
criterion_main!(benches);
