//! The `App`: one resource per endpoint, each with a `GET` and a `HEAD` route and a 405
//! default service; a 404 default service for every other path.
//!
//! actix answers `HEAD` with the `GET` length and no body, writes `date` and
//! `content-length` itself and nothing else. What differs from the contract is fixed the
//! actix way: its 405 has no `allow` field, so every resource has a default service that
//! answers 405 with `allow: GET, HEAD`; and the query echo reads the raw query string,
//! because `web::Query`'s decoder differs from the contract's on malformed `%` sequences.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::from_fn;
use actix_web::{App, Error, HttpRequest, HttpResponse, Responder, Route, guard, web};
use contract::json::{self, HELLO, Message, Outcome};
use contract::route::Endpoint;
use contract::{body, peer, query};
use serve::{Config, scenario};

use crate::middleware::{Token, request_cycle, require_bearer};

/// The application: every endpoint of the contract, the scenarios included.
pub fn app(
    config: &Config,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody + use<>>,
        Error = Error,
        InitError = (),
    > + use<>,
> {
    App::new()
        .app_data(web::Data::new(Token(config.auth_token.as_bytes().into())))
        .service(resource(Endpoint::ApiHello, get_or_head().to(api_hello)))
        .service(resource(Endpoint::Root, get_or_head().to(root)))
        .service(resource(Endpoint::MyIp, get_or_head().to(my_ip)))
        .service(resource(Endpoint::Echo, get_or_head().to(echo)))
        .service(resource(Endpoint::Hello, get_or_head().to(hello)))
        .service(resource(
            Endpoint::Private,
            get_or_head().to(private).wrap(from_fn(require_bearer)),
        ))
        .service(resource(Endpoint::Async, get_or_head().to(async_wait)))
        .service(resource(Endpoint::Sync, get_or_head().to(sync)))
        .service(resource(
            Endpoint::SyncOffload,
            get_or_head().to(sync_offload),
        ))
        .service(resource(Endpoint::NextTick, get_or_head().to(nexttick)))
        .service(resource(Endpoint::Timer, get_or_head().to(timer)))
        .default_service(web::to(not_found))
        .wrap(from_fn(request_cycle))
}

/// An endpoint's resource: `route` (made from [`get_or_head`]) and the contract's 405 for any
/// other method.
fn resource(endpoint: Endpoint, route: Route) -> actix_web::Resource {
    web::resource(endpoint.path())
        .route(route)
        .default_service(web::to(method_not_allowed))
}

/// A route for `GET` and `HEAD` (actix answers `HEAD` with the length and without the body).
fn get_or_head() -> Route {
    web::route().guard(guard::Any(guard::Get()).or(guard::Head()))
}

async fn not_found() -> HttpResponse {
    HttpResponse::NotFound().finish()
}

async fn method_not_allowed() -> HttpResponse {
    HttpResponse::MethodNotAllowed()
        .insert_header((header::ALLOW, body::ALLOW))
        .finish()
}

async fn api_hello() -> web::Json<Message> {
    web::Json(HELLO)
}

async fn root() -> &'static str {
    body::ROOT_TEXT
}

async fn hello() -> &'static str {
    body::HELLO_STR
}

async fn my_ip(req: HttpRequest) -> String {
    req.peer_addr()
        .map(|a| peer::canonical(a.ip()).to_string())
        .unwrap_or_default()
}

async fn echo(req: HttpRequest) -> String {
    let q = req.query_string();
    // An empty query string and none at all are the same to the echo.
    let body = query::echo_body((!q.is_empty()).then_some(q.as_bytes()));
    String::from_utf8_lossy(&body).into_owned()
}

async fn private() -> impl Responder {
    web::Json(HELLO)
}

async fn async_wait() -> web::Json<Outcome<&'static str>> {
    scenario::wait_async().await;
    web::Json(json::ASYNC)
}

async fn sync() -> web::Json<Outcome<u64>> {
    // Deliberately on this worker's thread, blocking its event loop: that is the experiment.
    let sum = scenario::sync_sum();
    web::Json(json::sum(sum))
}

async fn sync_offload() -> Result<web::Json<Outcome<u64>>, Error> {
    let sum = web::block(scenario::sync_sum).await?;
    Ok(web::Json(json::sum(sum)))
}

async fn nexttick() -> web::Json<Outcome<()>> {
    scenario::nexttick_chain().await;
    web::Json(json::NEXTTICK)
}

async fn timer() -> web::Json<Outcome<()>> {
    // Into the worker's local set, where the connections are (see the function's docs).
    scenario::spawn_timers_local();
    web::Json(json::TIMER)
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::StatusCode;
    use actix_web::test;

    async fn get_body(path: &str, auth: Option<&str>) -> (StatusCode, Option<String>, Vec<u8>) {
        let srv = test::init_service(app(&Config::default())).await;
        // HTTP/1.1 without Host is refused (RFC 9112 §3.2), in-process too.
        let mut req = test::TestRequest::get()
            .uri(path)
            .insert_header((header::HOST, "localhost"))
            .peer_addr("127.0.0.1:9".parse().unwrap());
        if let Some(a) = auth {
            req = req.insert_header((header::AUTHORIZATION, a));
        }
        let res = test::call_service(&srv, req.to_request()).await;
        let ct = res
            .headers()
            .get(header::CONTENT_TYPE)
            .map(|v| v.to_str().unwrap().to_owned());
        let status = res.status();
        (status, ct, test::read_body(res).await.to_vec())
    }

    /// Every serialised body is byte for byte the contract's.
    #[actix_web::test]
    async fn bodies_are_the_contracts() {
        for e in Endpoint::ALL {
            let Some(want) = e.fixed_body() else { continue };
            let (status, ct, got) = get_body(e.path(), None).await;
            assert_eq!(status, StatusCode::OK, "{e:?}");
            assert_eq!(ct.as_deref(), Some(e.content_type()), "{e:?}");
            assert_eq!(got, want, "{e:?}");
        }
        let (s, _, b) = get_body("/api/private", Some("Bearer bench-token")).await;
        assert_eq!((s, b.as_slice()), (StatusCode::OK, body::HELLO_JSON));
        let (s, ct, b) = get_body("/api/private", None).await;
        assert_eq!(
            (s, ct.as_deref(), b.as_slice()),
            (
                StatusCode::UNAUTHORIZED,
                Some(body::CT_JSON),
                body::UNAUTHORIZED_JSON
            )
        );
        let (_, _, b) = get_body("/my/ip", None).await;
        assert_eq!(b, b"127.0.0.1");
        let (_, _, b) = get_body("/api?name=A&lastname=B", None).await;
        assert_eq!(b, b"Hey A B");
    }
}
