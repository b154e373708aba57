//! Every check passes against a correct server and fails against a deliberately wrong one.
//!
//! The in-test server (`support`) runs as a child process with one [`Fault`] at a time. The
//! table [`FAULTS`] says which checks each fault must fail: `Exactly` for faults that break one
//! rule (the set of failures must be exactly that), `AtLeast` for faults whose effect is broad
//! (a stray header on every response, a server that dies). A last test proves that the table
//! covers every check in `conformance::checks()`, so a new check without a fault fails here.

mod support;

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use conformance::{Group, Options, Pace, Report, Target, checks};
use support::{Fault, Server};

/// The heavy check holds 10,000 client sockets: only one run at a time in this process.
static HEAVY: Mutex<()> = Mutex::new(());

/// Not a test: the entry of the server child process (a no-op in a normal test run).
#[test]
fn child_server() {
    support::child_main();
}

/// Options for testing this crate: a 3 s idle period (the in-test server's head timeout is 2 s,
/// so a server that starts that timer at the end of a response fails it), strict error answers.
fn test_options() -> Options {
    Options {
        idle_secs: 3,
        timeout: Duration::from_secs(2),
        strict_errors: true,
        ..Options::default()
    }
}

enum Expect {
    Exactly(&'static [&'static str]),
    AtLeast(&'static [&'static str]),
}

impl Expect {
    fn names(&self) -> &'static [&'static str] {
        match self {
            Expect::Exactly(n) | Expect::AtLeast(n) => n,
        }
    }
}

use Expect::{AtLeast, Exactly};

/// `(fault, over IPv6, checks it must fail)`. Slow faults first, so they overlap the rest.
const FAULTS: &[(Fault, bool, Expect)] = &[
    (Fault::SlowlorisPerRead, false, Exactly(&["bad.slowloris"])),
    (
        Fault::HeadTimerFromResponse,
        false,
        Exactly(&["bad.idle-keep-alive"]),
    ),
    // Response fields.
    (
        Fault::ExtraServerHeader,
        false,
        AtLeast(&[
            "core.hello.get",
            "core.root.get",
            "core.not-found.unknown",
            "core.method.post",
            "core.hello.head",
            "core.private.missing",
            "core.echo.plus",
        ]),
    ),
    (
        Fault::DateRfc850,
        false,
        AtLeast(&[
            "core.hello.get",
            "core.not-found.unknown",
            "core.method.put",
        ]),
    ),
    (
        Fault::WrongReasonPhrase,
        false,
        Exactly(&[
            "core.not-found.head",
            "core.not-found.unknown",
            "core.not-found.trailing-slash",
            "core.not-found.double-slash",
            "core.not-found.case",
            "core.not-found.encoded-slash",
            "core.not-found.post",
            "conn.pipelined-16",
        ]),
    ),
    (
        Fault::NotFoundHasContentType,
        false,
        Exactly(&[
            "core.not-found.head",
            "core.not-found.unknown",
            "core.not-found.trailing-slash",
            "core.not-found.double-slash",
            "core.not-found.case",
            "core.not-found.encoded-slash",
            "core.not-found.post",
        ]),
    ),
    (
        Fault::NotFoundNoContentLength,
        false,
        Exactly(&[
            "core.not-found.head",
            "core.not-found.unknown",
            "core.not-found.trailing-slash",
            "core.not-found.double-slash",
            "core.not-found.case",
            "core.not-found.encoded-slash",
            "core.not-found.post",
            "conn.pipelined-16",
        ]),
    ),
    (
        Fault::NoAllowHeader,
        false,
        Exactly(&[
            "core.method.post",
            "core.method.put",
            "core.method.delete",
            "core.method.lowercase-get",
        ]),
    ),
    (
        Fault::HeadSendsBody,
        false,
        Exactly(&[
            "core.hello.head",
            "core.root.head",
            "core.hello-text.head",
            "core.echo.head",
            "core.private.head",
            "core.private.head-401",
            "core.my-ip.head",
            "conn.pipelined-16",
        ]),
    ),
    // Routing and methods.
    (Fault::PostAllowed, false, Exactly(&["core.method.post"])),
    (Fault::Any405, false, Exactly(&["core.not-found.post"])),
    (
        Fault::MethodsCaseInsensitive,
        false,
        Exactly(&["core.method.lowercase-get"]),
    ),
    (
        Fault::StripTrailingSlash,
        false,
        Exactly(&[
            "core.not-found.trailing-slash",
            "core.not-found.double-slash",
        ]),
    ),
    (
        Fault::CollapseSlashes,
        false,
        Exactly(&["core.not-found.double-slash"]),
    ),
    (
        Fault::CaseInsensitivePaths,
        false,
        Exactly(&["core.not-found.case"]),
    ),
    (
        Fault::PercentDecodePath,
        false,
        Exactly(&["core.not-found.encoded-slash"]),
    ),
    (
        Fault::NoAbsoluteForm,
        false,
        Exactly(&["core.absolute-form", "rfc9112.host.absolute-form"]),
    ),
    (
        Fault::QueryOnlyStrippedForApi,
        false,
        Exactly(&["core.query-ignored"]),
    ),
    // Bodies.
    (
        Fault::HelloBodyWrong,
        false,
        Exactly(&["core.hello.get", "core.absolute-form"]),
    ),
    (
        Fault::RootBodyShort,
        false,
        Exactly(&["core.root.get", "core.root.head", "conn.pipelined-16"]),
    ),
    (
        Fault::HelloTextWrongType,
        false,
        Exactly(&[
            "core.hello-text.get",
            "core.hello-text.head",
            "core.query-ignored",
        ]),
    ),
    (
        Fault::MappedShownRaw,
        false,
        Exactly(&["core.my-ip.v4", "core.my-ip.head"]),
    ),
    (
        Fault::V6Expanded,
        true,
        Exactly(&["core.my-ip.v6", "core.my-ip.head"]),
    ),
    // Query echo.
    (
        Fault::EchoSwapped,
        false,
        Exactly(&[
            "core.echo.get",
            "core.echo.plus",
            "core.echo.percent",
            "core.echo.malformed-percent",
            "core.echo.first-wins",
            "core.echo.missing-name",
            "core.echo.missing-lastname",
            "core.echo.encoded-key",
            "core.echo.invalid-utf8",
            "core.echo.no-escaping",
            "core.echo.bare-key",
            "core.echo.equals-in-value",
            "conn.pipelined-16",
        ]),
    ),
    (Fault::EchoPlusLiteral, false, Exactly(&["core.echo.plus"])),
    (
        Fault::EchoNoPercentDecode,
        false,
        Exactly(&[
            "core.echo.percent",
            "core.echo.malformed-percent",
            "core.echo.encoded-key",
            "core.echo.invalid-utf8",
            "core.echo.no-escaping",
        ]),
    ),
    (
        Fault::EchoMalformedDropped,
        false,
        Exactly(&["core.echo.malformed-percent"]),
    ),
    (
        Fault::EchoLastWins,
        false,
        Exactly(&["core.echo.first-wins", "core.echo.bare-key"]),
    ),
    (
        Fault::EchoMissingOmitted,
        false,
        Exactly(&[
            "core.echo.missing-both",
            "core.echo.missing-name",
            "core.echo.missing-lastname",
            "core.echo.bare-key",
        ]),
    ),
    (
        Fault::EchoKeysRaw,
        false,
        Exactly(&["core.echo.encoded-key"]),
    ),
    (
        Fault::EchoInvalidUtf8Dropped,
        false,
        Exactly(&["core.echo.invalid-utf8"]),
    ),
    (
        Fault::EchoHtmlEscape,
        false,
        Exactly(&["core.echo.no-escaping"]),
    ),
    (
        Fault::EchoBareKeyIgnored,
        false,
        Exactly(&["core.echo.bare-key"]),
    ),
    (
        Fault::EchoSplitAllEquals,
        false,
        Exactly(&["core.echo.equals-in-value"]),
    ),
    // Authorization.
    (
        Fault::PrivateWrongToken,
        false,
        Exactly(&["core.private.get", "core.private.head", "conn.pipelined-16"]),
    ),
    (
        Fault::PrivateAlwaysOk,
        false,
        Exactly(&[
            "core.private.missing",
            "core.private.wrong-token",
            "core.private.basic-scheme",
            "core.private.lowercase-bearer",
            "core.private.two-fields",
            "core.private.short-token",
            "core.private.long-token",
            "core.private.head-401",
            "conn.pipelined-16",
        ]),
    ),
    (
        Fault::SchemeCaseInsensitive,
        false,
        Exactly(&["core.private.lowercase-bearer"]),
    ),
    (
        Fault::IgnoreScheme,
        false,
        Exactly(&["core.private.basic-scheme", "core.private.lowercase-bearer"]),
    ),
    (
        Fault::FirstAuthorizationWins,
        false,
        Exactly(&["core.private.two-fields"]),
    ),
    (
        Fault::PrefixCompare,
        false,
        Exactly(&["core.private.short-token"]),
    ),
    (
        Fault::StartsWithCompare,
        false,
        Exactly(&["core.private.long-token"]),
    ),
    // Connections.
    (
        Fault::CloseAfter50,
        false,
        Exactly(&["conn.keep-alive-100"]),
    ),
    (
        Fault::Http10KeepsOpen,
        false,
        Exactly(&["conn.http10-close"]),
    ),
    (
        Fault::Http10IgnoresKeepAlive,
        false,
        Exactly(&["conn.http10-keep-alive"]),
    ),
    (
        Fault::IgnoreConnectionClose,
        false,
        Exactly(&[
            "conn.http11-close",
            "conn.close-token-case",
            "conn.close-mid-pipeline",
        ]),
    ),
    (
        Fault::AnswersAfterClose,
        false,
        Exactly(&["conn.close-mid-pipeline"]),
    ),
    (
        Fault::CloseCaseSensitive,
        false,
        Exactly(&["conn.close-token-case"]),
    ),
    (
        Fault::AlwaysKeepAliveHeader,
        false,
        AtLeast(&[
            "conn.no-connection-field",
            "conn.http11-keep-alive-field",
            "core.hello.get",
        ]),
    ),
    (
        Fault::KeepAliveHeaderWhenAsked,
        false,
        Exactly(&["conn.http11-keep-alive-field"]),
    ),
    (Fault::PipelineCap8, false, Exactly(&["conn.pipelined-16"])),
    (
        Fault::HeadEndInLastReadOnly,
        false,
        Exactly(&["conn.one-byte-writes", "conn.split-crlfcrlf"]),
    ),
    (
        Fault::ParseFirstReadOnly,
        false,
        Exactly(&["conn.one-byte-writes", "conn.split-request-line"]),
    ),
    // Bad input.
    (
        Fault::BadRequestNoClose,
        false,
        Exactly(&[
            "bad.request-line",
            "bad.header-line",
            "bad.both-cl-te",
            "bad.two-cl",
            "bad.cl-invalid",
            "rfc9112.host.missing",
            "rfc9112.host.twice",
            "rfc9112.host.invalid",
            "rfc9112.field.space-before-colon",
            "rfc9112.field.obs-fold",
            "rfc9112.field.ws-before-first",
            "rfc9112.field.bare-cr",
            "rfc9112.line.target-whitespace",
            "rfc9112.line.version-case",
            "rfc9112.te.chunked-not-final",
            "rfc9112.te.http10",
            "rfc9112.cl.plus-sign",
            "rfc9112.cl.same-values",
            "rfc9112.chunk.size-overflow",
        ]),
    ),
    (
        Fault::HeadLimit16k,
        false,
        Exactly(&["bad.head-over-limit"]),
    ),
    (
        Fault::HeadLimit7k,
        false,
        Exactly(&["bad.head-under-limit"]),
    ),
    (
        Fault::IgnoreContentLength,
        false,
        Exactly(&[
            "bad.body-discarded",
            "bad.body-max-discarded",
            "rfc9112.cl.same-values",
            "rfc9112.line.bare-lf",
        ]),
    ),
    (
        Fault::BodyLimitOffByOne,
        false,
        Exactly(&["bad.body-max-discarded"]),
    ),
    (Fault::NoBodyLimit, false, Exactly(&["bad.body-too-large"])),
    (
        Fault::ChunkedIgnored,
        false,
        Exactly(&[
            "bad.chunked-discarded",
            "bad.chunked-smuggle",
            "bad.chunked-too-large",
            "rfc9112.chunk.size-overflow",
            "rfc9112.chunk.extensions",
            "rfc9112.chunk.trailer",
        ]),
    ),
    (
        Fault::NoChunkedLimit,
        false,
        Exactly(&["bad.chunked-too-large"]),
    ),
    (Fault::ClWinsOverTe, false, Exactly(&["bad.both-cl-te"])),
    (Fault::FirstClWins, false, Exactly(&["bad.two-cl"])),
    (Fault::ClLenientParse, false, Exactly(&["bad.cl-invalid"])),
    (
        Fault::UnknownTeIgnored,
        false,
        Exactly(&["bad.te-gzip", "bad.te-list"]),
    ),
    (Fault::TeContainsChunked, false, Exactly(&["bad.te-list"])),
    (Fault::AnyHttp1Version, false, Exactly(&["bad.version-1.2"])),
    (
        Fault::VersionErrorNoClose,
        false,
        Exactly(&[
            "bad.version-1.2",
            "bad.version-2.0",
            "bad.version-3.0",
            "bad.h2-preface",
        ]),
    ),
    (
        Fault::DieOnPartialHead,
        false,
        AtLeast(&["bad.vanish-mid-head", "bad.alive-after"]),
    ),
    (
        Fault::DieOnReset,
        false,
        AtLeast(&["bad.reset-mid-head", "bad.alive-after"]),
    ),
    (
        Fault::DieOnWriteError,
        false,
        AtLeast(&["bad.vanish-mid-response", "bad.alive-after"]),
    ),
    // RFC 9112.
    (
        Fault::HostMissingAllowed,
        false,
        Exactly(&["rfc9112.host.missing"]),
    ),
    (
        Fault::HostTwiceAllowed,
        false,
        Exactly(&["rfc9112.host.twice"]),
    ),
    (
        Fault::HostValueUnchecked,
        false,
        Exactly(&["rfc9112.host.invalid"]),
    ),
    (
        Fault::HostRequiredOn10,
        false,
        Exactly(&["rfc9112.host.http10-optional"]),
    ),
    (
        Fault::AbsoluteFormHostChecked,
        false,
        Exactly(&["rfc9112.host.absolute-form"]),
    ),
    (
        Fault::SpaceBeforeColonStripped,
        false,
        Exactly(&["rfc9112.field.space-before-colon"]),
    ),
    (
        Fault::FoldAsField,
        false,
        Exactly(&["rfc9112.field.obs-fold", "rfc9112.field.ws-before-first"]),
    ),
    (
        Fault::BareCrAsLineEnd,
        false,
        Exactly(&["rfc9112.field.bare-cr"]),
    ),
    (
        Fault::HeadEndCrlfOnly,
        false,
        Exactly(&["rfc9112.line.bare-lf"]),
    ),
    (
        Fault::LeadingCrlfRejected,
        false,
        Exactly(&["rfc9112.line.leading-crlf"]),
    ),
    (
        Fault::TargetSpaceEncoded,
        false,
        Exactly(&["rfc9112.line.target-whitespace"]),
    ),
    (
        Fault::VersionCaseInsensitive,
        false,
        Exactly(&["rfc9112.line.version-case"]),
    ),
    (
        Fault::TeNotFinal501,
        false,
        Exactly(&["rfc9112.te.chunked-not-final"]),
    ),
    (
        Fault::Http10TeKeptAlive,
        false,
        Exactly(&["rfc9112.te.http10"]),
    ),
    (
        Fault::ClRustParse,
        false,
        Exactly(&["rfc9112.cl.plus-sign"]),
    ),
    (
        Fault::ClSameValuesIgnored,
        false,
        Exactly(&["rfc9112.cl.same-values"]),
    ),
    (
        Fault::ChunkSizeWraps,
        false,
        Exactly(&["rfc9112.chunk.size-overflow"]),
    ),
    (
        Fault::ChunkExtRejected,
        false,
        Exactly(&["rfc9112.chunk.extensions"]),
    ),
    (
        Fault::TrailerRejected,
        false,
        Exactly(&["rfc9112.chunk.trailer"]),
    ),
    (
        Fault::BodyEofIgnored,
        false,
        Exactly(&["rfc9112.cl.incomplete"]),
    ),
    // Scenarios and load.
    (Fault::AsyncNoWait, false, Exactly(&["scenario.async"])),
    (
        Fault::ScenarioWrongType,
        false,
        Exactly(&[
            "scenario.async",
            "scenario.sync",
            "scenario.sync-offload",
            "scenario.nexttick",
            "scenario.timer",
        ]),
    ),
    (
        Fault::ConnectionCap1000,
        false,
        Exactly(&["heavy.10k-concurrent"]),
    ),
];

/// Runs the fast checks, plus the slow ones named in `extra`, against a server with `fault`.
fn run_against(fault: Fault, v6: bool, extra: &[&str]) -> Report {
    let server = Server::start(fault, v6);
    let only = checks()
        .iter()
        .filter(|c| c.pace != Pace::Slow || extra.contains(&c.name))
        .map(|c| c.name.to_owned())
        .collect();
    let opts = Options {
        only,
        parallelism: 6,
        ..test_options()
    };
    let heavy = extra.iter().any(|n| n.starts_with("heavy."));
    let _guard = heavy.then(|| HEAVY.lock().unwrap_or_else(|e| e.into_inner()));
    conformance::run(&Target::new(server.addr), &opts)
}

#[test]
fn correct_server_passes_every_check() {
    let server = Server::start(Fault::None, false);
    let _guard = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
    let report = conformance::run(&Target::new(server.addr), &test_options());
    report.print();
    assert!(report.all_passed(), "failed: {:?}", report.failed_names());
    let expected = checks()
        .iter()
        .filter(|c| c.applies_to(server.addr))
        .count();
    assert_eq!(report.results.len(), expected);
    assert!(report.get("heavy.10k-concurrent").is_some());
    assert!(report.get("bad.slowloris").is_some());
}

#[test]
fn correct_server_passes_over_ipv6() {
    let report = run_against(Fault::None, true, &["bad.idle-keep-alive"]);
    report.print();
    assert!(report.all_passed(), "failed: {:?}", report.failed_names());
    assert!(report.get("core.my-ip.v6").is_some());
    assert!(report.get("core.my-ip.v4").is_none());
}

#[test]
fn every_fault_fails_its_checks() {
    let next = AtomicUsize::new(0);
    let problems = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                while let Some((fault, v6, expect)) =
                    FAULTS.get(next.fetch_add(1, Ordering::Relaxed))
                {
                    let report = run_against(*fault, *v6, expect.names());
                    let failed: BTreeSet<&str> = report.failed_names().into_iter().collect();
                    let want: BTreeSet<&str> = expect.names().iter().copied().collect();
                    let ok = match expect {
                        Exactly(_) => failed == want,
                        AtLeast(_) => want.is_subset(&failed),
                    };
                    if !ok {
                        let missing: Vec<_> = want.difference(&failed).collect();
                        let extra: Vec<_> = failed.difference(&want).collect();
                        let detail: Vec<String> = report
                            .results
                            .iter()
                            .filter(|r| missing.contains(&&r.name) || extra.contains(&&r.name))
                            .map(|r| r.to_string())
                            .collect();
                        problems.lock().unwrap().push(format!(
                            "{}: did not fail {missing:?}; also failed {extra:?}\n  {}",
                            fault.name(),
                            detail.join("\n  ")
                        ));
                    }
                }
            });
        }
    });
    let problems = problems.into_inner().unwrap();
    assert!(
        problems.is_empty(),
        "{} faults misjudged:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn every_check_fails_under_some_fault() {
    let covered: BTreeSet<&str> = FAULTS
        .iter()
        .flat_map(|(_, _, e)| e.names().iter().copied())
        .collect();
    let all: BTreeSet<&str> = checks().iter().map(|c| c.name).collect();
    let uncovered: Vec<_> = all.difference(&covered).collect();
    let unknown: Vec<_> = covered.difference(&all).collect();
    assert!(
        uncovered.is_empty(),
        "checks no fault makes fail: {uncovered:?}"
    );
    assert!(
        unknown.is_empty(),
        "table names unknown checks: {unknown:?}"
    );
    // Every fault but the correct server appears in the table exactly once.
    for fault in Fault::ALL.iter().filter(|f| **f != Fault::None) {
        let n = FAULTS.iter().filter(|(f, _, _)| f == fault).count();
        assert_eq!(n, 1, "{} appears {n} times in FAULTS", fault.name());
    }
}

#[test]
fn check_names_are_unique_and_grouped() {
    let mut seen = BTreeSet::new();
    for check in checks() {
        assert!(seen.insert(check.name), "duplicate {}", check.name);
        let prefix = match check.group {
            Group::Core => "core.",
            Group::Connection => "conn.",
            Group::BadInput => "bad.",
            Group::Rfc9112 => "rfc9112.",
            Group::Scenarios => "scenario.",
            Group::Heavy => "heavy.",
        };
        assert!(
            check.name.starts_with(prefix),
            "{} in {}",
            check.name,
            check.group
        );
    }
}

#[test]
fn skipped_checks_print_as_exceptions() {
    let server = Server::start(Fault::HelloBodyWrong, false);
    let opts = Options {
        only: vec![
            "core.hello.get".into(),
            "core.root.get".into(),
            "core.absolute-form".into(),
        ],
        ..test_options()
    }
    .skip("core.hello.get", "documented exception");
    let report = conformance::run(&Target::new(server.addr), &opts);
    let text = report.to_string();
    assert!(
        text.contains("EXCEPTION core.hello.get: documented exception"),
        "{text}"
    );
    assert!(text.contains("PASS core.root.get"), "{text}");
    assert!(
        text.contains("FAIL core.absolute-form: expected body"),
        "{text}"
    );
    assert!(text.ends_with("\n1 passed, 1 failed, 1 skipped"), "{text}");
}
