//! The step's body driven end to end with a fake server and recorded tool output (`fake.rs`):
//! what it measures, how it judges, and what it refuses.

use loadgen::Mode;

use super::fake::{Fake, Recorded, exited, report};
use super::*;

fn step(mode: Mode) -> Step {
    Step {
        id: "c50".into(),
        endpoint: "/hello".into(),
        connections: 50,
        duration: Some(Duration::from_secs(2)),
        requests: None,
        mode,
        pipeline: 1,
        timeout: Duration::from_secs(5),
        headers: Vec::new(),
        warmup: Warmup::For(Duration::from_secs(1)),
        probe: None,
        rate: None,
    }
}

/// Runs `step` once with `answers`, against `server` if any.
fn once(
    step: &Step,
    answers: Vec<Result<Output, Failure>>,
    server: Option<&mut dyn Watch>,
    keepalive: Option<Result<(), String>>,
) -> (anyhow::Result<Vec<String>>, StepResult, Recorded) {
    once_settling(step, answers, server, keepalive, Duration::ZERO)
}

/// [`once`], waiting at most `settle` for the server to go idle (before and after the
/// warm-up).
fn once_settling(
    step: &Step,
    answers: Vec<Result<Output, Failure>>,
    server: Option<&mut dyn Watch>,
    keepalive: Option<Result<(), String>>,
    settle: Duration,
) -> (anyhow::Result<Vec<String>>, StepResult, Recorded) {
    let length = recorded_length(&answers);
    once_measuring(step, answers, server, keepalive, settle, length, true)
}

/// The server's answer as long as the recorded runs' responses (the last that parses),
/// for the tests that are not of the length rule.
fn recorded_length(answers: &[Result<Output, Failure>]) -> Result<answer::Length, String> {
    let read = answers
        .iter()
        .rev()
        .filter_map(|a| a.as_ref().ok())
        .find_map(|o| measured(Tool::Builtin, o).ok())
        .map_or(1143, |r| r.bytes_per_response.round() as usize);
    Ok(answer::Length {
        head: read.saturating_sub(12),
        body: 12,
    })
}

/// [`once_settling`], the server's answer before the load being `length`.
fn once_measuring(
    step: &Step,
    answers: Vec<Result<Output, Failure>>,
    server: Option<&mut dyn Watch>,
    keepalive: Option<Result<(), String>>,
    settle: Duration,
    length: Result<answer::Length, String>,
    quick: bool,
) -> (anyhow::Result<Vec<String>>, StepResult, Recorded) {
    let launch = Recorded {
        answers: answers.into(),
        ..Recorded::default()
    };
    run_recorded(step, launch, server, keepalive, settle, length, quick)
}

/// The step body on `launch`'s canned outputs, as [`once_measuring`] describes.
fn run_recorded(
    step: &Step,
    mut launch: Recorded,
    server: Option<&mut dyn Watch>,
    keepalive: Option<Result<(), String>>,
    settle: Duration,
    length: Result<answer::Length, String>,
    quick: bool,
) -> (anyhow::Result<Vec<String>>, StepResult, Recorded) {
    let mut result = results_for(std::slice::from_ref(step)).remove(0);
    let mut subject = Subject::new(SocketAddr::from(([127, 0, 0, 1], 9)), server);
    subject.keepalive = keepalive;
    subject.lengths.insert(length_key(step), length);
    let mut load = Load {
        tool: Tool::Builtin,
        loadgen: Path::new("/x/loadgen"),
        quick,
        cpus: 1,
        retries: 0,
        settle,
        launch: &mut launch,
    };
    let got = run(
        &mut load,
        &mut subject,
        step,
        &mut result,
        &mut Progress::new(),
        "test",
    );
    (got, result, launch)
}

#[test]
fn a_step_whose_responses_are_not_the_contracts_length_is_invalid() {
    let s = step(Mode::KeepAlive);
    let answers = || vec![exited(0, "", ""), exited(0, &report(), "")];
    // The recorded run read 1,143 bytes a response; a server whose answer is a 19-byte
    // head and the contract's 1,024-byte body must send 1,043.
    let short = Ok(answer::Length {
        head: 19,
        body: 1024,
    });
    let (got, r, _) = once_measuring(&s, answers(), None, None, Duration::ZERO, short, true);
    let why = "its responses were 1143 bytes each on average as builtin counts them, not the 1043 they must be (a 19-byte head and the contract's 1024-byte body)";
    assert_eq!(got.unwrap(), vec![format!("/hello c50: {why}")]);
    assert_eq!((r.valid, r.invalid_reason.as_deref()), (false, Some(why)));
    // The run is kept, marked invalid.
    assert_eq!(r.repeats.len(), 1);
    // No answer before the load: said in the run's notes, the step not judged by it.
    let (got, r, _) = once_measuring(
        &s,
        answers(),
        None,
        None,
        Duration::ZERO,
        Err("connection refused".into()),
        true,
    );
    assert_eq!(got.unwrap(), Vec::<String>::new());
    assert!(r.valid);
    assert!(r.repeats[0].notes.contains(
        &"the responses' length was not checked: one request before the load got no answer (connection refused)".to_string()
    ));
}

#[test]
fn a_count_bounded_step_runs_its_count_until_its_windows_fill_the_least_length() {
    // ab -n's kind of step: a count, no length. Each recorded run is a 2 s window.
    let mut s = step(Mode::KeepAlive);
    s.duration = None;
    s.requests = Some(168_996);
    let answers = || {
        let mut a = vec![exited(0, "", "")];
        a.extend((0..5).map(|_| exited(0, &report(), "")));
        a
    };
    let length = || {
        Ok(answer::Length {
            head: 119,
            body: 1024,
        })
    };
    let (got, r, launch) =
        once_measuring(&s, answers(), None, None, Duration::ZERO, length(), false);
    assert_eq!(got.unwrap(), Vec::<String>::new());
    // The warm-up, then 2 + 2 + 2 s: three runs to pass 5 s, and no fourth.
    assert_eq!(launch.argvs.len(), 4, "{:?}", launch.argvs);
    let run = &r.repeats[0];
    assert_eq!(run.rounds, Some(3));
    assert_eq!(run.requests, 3 * 168_996);
    assert_eq!(run.duration_s, 6.0);
    assert!(r.valid, "{r:?}");
    // --quick: the count once.
    let (_, r, launch) = once_measuring(&s, answers(), None, None, Duration::ZERO, length(), true);
    assert_eq!(launch.argvs.len(), 2);
    assert_eq!(
        (r.repeats[0].rounds, r.repeats[0].requests),
        (None, 168_996)
    );
}

#[test]
fn the_length_a_step_expects_is_read_from_the_servers_answer_of_its_kind() {
    // A real server: server-prebuilt's own binary is not built for this crate's tests, so
    // a listener that answers one fixed response stands in for it.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        let mut seen = Vec::new();
        for _ in 0..2 {
            let (mut c, _) = listener.accept().unwrap();
            let mut buf = [0u8; 1024];
            let n = std::io::Read::read(&mut c, &mut buf).unwrap();
            seen.push(String::from_utf8_lossy(&buf[..n]).to_string());
            let head = "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n";
            std::io::Write::write_all(&mut c, format!("{head}Hello, World").as_bytes()).unwrap();
        }
        seen
    });
    let mut subject = Subject::new(addr, None);
    let mut s = step(Mode::Http10KeepAlive);
    let l = subject.length(&s).unwrap();
    assert_eq!(l, answer::Length { head: 39, body: 12 });
    assert_eq!((l.counted(true), l.counted(false)), (51, 12));
    // Read once per kind of request: the same step again asks nothing.
    assert_eq!(subject.length(&s), Ok(l));
    s.mode = Mode::Close;
    assert!(subject.length(&s).is_ok());
    let seen = server.join().unwrap();
    assert!(seen[0].starts_with("GET /hello HTTP/1.0\r\n"), "{seen:?}");
    assert!(seen[0].contains("Connection: Keep-Alive\r\n"), "{seen:?}");
    assert!(seen[1].starts_with("GET /hello HTTP/1.1\r\n"), "{seen:?}");
    assert!(seen[1].contains("Connection: close\r\n"), "{seen:?}");
    // Nobody there: why, for the run's notes.
    let mut gone = Subject::new(SocketAddr::from(([127, 0, 0, 1], 9)), None);
    assert!(gone.length(&s).is_err());
}

#[test]
fn a_good_step_warms_up_then_measures_and_samples() {
    let s = step(Mode::KeepAlive);
    let mut server = Fake::new(2, Some(std::process::id() as i32));
    let answers = vec![exited(0, "", ""), exited(0, &report(), "")];
    let (got, r, launch) = once(&s, answers, Some(&mut server), None);
    assert_eq!(got.unwrap(), Vec::<String>::new());
    assert!(r.valid, "{r:?}");
    assert_eq!(launch.argvs.len(), 2);
    // The warm-up is the same load for the warm-up's length.
    let d = |argv: &[String]| argv[argv.iter().position(|a| a == "-d").unwrap() + 1].clone();
    assert_eq!(
        (d(&launch.argvs[0]), d(&launch.argvs[1])),
        ("1s".into(), "2s".into())
    );
    assert_eq!(r.tool_command, launch.argvs[1]);
    assert_eq!(r.tool_command[0], "/x/loadgen");
    assert_eq!(r.repeats.len(), 1);
    let run = &r.repeats[0];
    assert!(run.requests > 0 && run.requests_per_s > 0.0);
    // Sampled: this test's own process stands in for the server's tree.
    assert!(run.rss_kb.is_some_and(|r| r.start > 0), "{run:?}");
    assert!(run.server_cpu_s.is_some() && run.cpu_us_per_request.is_some());
    // No usage of the tool (a recorded output): its CPU is unknown, not zero.
    assert_eq!((run.tool_cpu_percent, run.tool_cpus), (None, Some(1)));
}

#[test]
fn a_probe_runs_beside_the_measured_run_and_alone_for_the_baseline() {
    let mut s = step(Mode::KeepAlive);
    s.probe = Some(bench_model::experiment::probe(Duration::from_secs(2), true));
    let answers = vec![
        exited(0, "", ""),
        exited(0, &report(), ""),
        exited(0, &report(), ""),
    ];
    let (got, r, launch) = once(&s, answers, None, None);
    assert_eq!(got.unwrap(), Vec::<String>::new());
    assert_eq!(launch.argvs.len(), 3, "warm-up, load, probe");
    let probe = launch.argvs[2].join(" ");
    assert_eq!(
        probe,
        "/x/loadgen http://127.0.0.1:9/api/hello -c 1 -d 1s --mode keep-alive \
         --timeout 5s --warmup 500ms --json --no-progress"
    );
    // Only the measured run asks for a timeline: the warm-up's and the probe's are never read.
    let asks = |i: usize| launch.argvs[i].iter().any(|a| a == "--interval");
    assert_eq!((asks(0), asks(1), asks(2)), (false, true, false));
    assert_eq!(r.tool_command, launch.argvs[1]);
    let p = r.repeats[0].probe.as_deref().expect("the probe's run");
    assert!(p.requests_per_s > 0.0 && p.latency_us.p99.is_some());
    assert_eq!(p.tool_cpus, Some(1));

    // A probe that fails leaves the step's run and says so in its notes.
    let answers = vec![
        exited(0, "", ""),
        exited(0, &report(), ""),
        exited(1, "", "loadgen: refused\n"),
    ];
    let (got, r, _) = once(&s, answers, None, None);
    assert_eq!(got.unwrap(), Vec::<String>::new());
    assert!(r.valid && r.repeats[0].probe.is_none());
    assert!(
        r.repeats[0]
            .notes
            .iter()
            .any(|n| n.starts_with("the probe on /api/hello: builtin failed")),
        "{:?}",
        r.repeats[0].notes
    );

    // No connections: the probe alone, no warm-up; its run is the step's and the probe's.
    s.connections = 0;
    let mut server = Fake::new(2, Some(std::process::id() as i32));
    let (got, r, launch) = once(&s, vec![exited(0, &report(), "")], Some(&mut server), None);
    assert_eq!(got.unwrap(), Vec::<String>::new());
    assert_eq!(launch.argvs.len(), 1);
    // The probe's load, as the measured run with its timeline.
    assert_eq!(
        launch.argvs[0].join(" "),
        probe.replace(" --json", " --interval 500ms --json")
    );
    let run = &r.repeats[0];
    let p = run.probe.as_deref().unwrap();
    assert_eq!(p.requests_per_s, run.requests_per_s);
    assert!(run.rss_kb.is_some() && p.rss_kb.is_none());
}

#[test]
fn a_probe_measured_after_the_load_voids_the_step() {
    let mut s = step(Mode::KeepAlive);
    s.probe = Some(bench_model::experiment::probe(Duration::from_secs(2), true));
    let later = |o: Result<Output, Failure>, by: Duration| {
        o.map(|mut o| {
            o.started += by;
            o
        })
    };
    // The load's window ends about 1 s in; the probe's starts 5 s in: after the load.
    let answers = vec![
        exited(0, "", ""),
        exited(0, &report(), ""),
        later(exited(0, &report(), ""), Duration::from_secs(5)),
    ];
    let (got, r, _) = once(&s, answers, None, None);
    let problems = got.unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("/hello c50: the probe's measured window (4.0–6.0 s) is not inside the load's (0.0–1.0 s)"),
        "{problems:?}"
    );
    assert!(!r.valid);
    let w = r.repeats[0].windows.unwrap();
    assert!(!w.probe_inside(), "{w:?}");
    // Beside it: inside, and recorded.
    let answers = vec![
        exited(0, "", ""),
        exited(0, &report(), ""),
        exited(0, &report(), ""),
    ];
    let (got, r, _) = once(&s, answers, None, None);
    assert_eq!(got.unwrap(), Vec::<String>::new());
    assert!(r.valid && r.repeats[0].windows.unwrap().probe_inside());
}

#[test]
fn a_rung_offers_its_rate_and_the_ladder_stops_where_the_server_cannot_keep_up() {
    let mut s = step(Mode::KeepAlive);
    s.rate = Some(2000.0);
    let recorded = |name: &str| {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../bench-tools/tests/data")
            .join(name);
        std::fs::read_to_string(p).unwrap()
    };
    // loadgen -R 2000 against a server that kept up.
    let answers = vec![
        exited(0, "", ""),
        exited(0, &recorded("loadgen-R2000-c100.json"), ""),
    ];
    let (got, mut r, launch) = once(&s, answers, None, None);
    assert_eq!(got.unwrap(), Vec::<String>::new());
    for argv in &launch.argvs {
        let a = argv.join(" ");
        assert!(a.contains(" -R 2000 "), "warm-up and run at the rate: {a}");
    }
    assert_eq!(r.offered_requests_per_s, Some(2000.0));
    let run = &r.repeats[0];
    assert_eq!(run.offered_requests_per_s, Some(2000.0));
    assert!(run.latency_uncorrected_us.is_some());
    assert_eq!(rung(&mut r), None, "kept up: the ladder goes on");
    assert_eq!(r.saturation, None);

    // -R 60000 answered at 8,536 a second: its saturation, the ladder stops.
    s.rate = Some(60_000.0);
    let answers = vec![
        exited(0, "", ""),
        exited(0, &recorded("loadgen-R60000-c100-behind.json"), ""),
    ];
    let (_, mut r, _) = once(&s, answers, None, None);
    let why = rung(&mut r).unwrap();
    assert!(
        why.starts_with("its saturation: achieved 8,536 of 60,000"),
        "{why}"
    );
    assert!(r.valid);
    assert_eq!(
        r.saturation.as_deref(),
        Some(why.trim_start_matches("its saturation: "))
    );

    // The same where the tool was the limit: invalid, not the server's saturation.
    r.saturation = None;
    r.repeats[0].tool_bound = true;
    r.repeats[0].tool_busiest_thread_percent = Some(97.0);
    let why = rung(&mut r).unwrap();
    assert!(!r.valid && r.saturation.is_none());
    assert!(
        why.starts_with("the load tool was the limit at this rate (achieved 8,536 of 60,000")
            && why
                .ends_with(", its busiest thread at 97 %), so this is not the server's saturation"),
        "{why}"
    );
    assert_eq!(r.invalid_reason.as_deref(), Some(why.as_str()));
    // An invalid rung, or one that gave no run, stops it too.
    assert!(
        rung(&mut r)
            .unwrap()
            .starts_with("invalid: the load tool was the limit")
    );
    r.repeats.clear();
    assert!(rung(&mut r).is_some());
}

/// The § rule on a whole step: a closed-loop run where neither side was busy is marked;
/// the same at an offered rate is not (the rate sets an open-loop run's pace by design),
/// which needs the rate recorded before the rule is asked.
#[test]
fn a_run_at_an_offered_rate_is_never_marked_as_set_by_the_round_trips() {
    // The server and the tool: an idle process (`sleep`, never this test binary, whose
    // other tests run beside it), sampled while the fake tool runs 1.2 s (long enough to
    // be measured): both far under 90 % of a CPU whatever the host does.
    // Stopped when the test ends, passed or failed: no process left behind.
    struct Idle(std::process::Child);
    impl Drop for Idle {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let idle = Idle(
        std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap(),
    );
    let pid = idle.0.id() as i32;
    let measure = |s: &Step, stdout: &str| {
        let answers = vec![exited(0, "", ""), exited(0, stdout, "")];
        let length = recorded_length(&answers);
        let launch = Recorded {
            answers: answers.into(),
            runs_for: Some((Duration::from_millis(1200), pid)),
            ..Recorded::default()
        };
        let mut server = Fake::new(4, Some(pid));
        let (got, mut result, _) = run_recorded(
            s,
            launch,
            Some(&mut server),
            None,
            Duration::ZERO,
            length,
            true,
        );
        assert_eq!(got.unwrap(), Vec::<String>::new());
        let run = result.repeats.remove(0);
        assert!(run.unmeasured.is_none(), "{run:?}");
        assert!(run.tool_cpu_percent.is_some_and(|p| p < 90.0), "{run:?}");
        assert!(run.server_cpu_percent.is_some_and(|p| p < 90.0), "{run:?}");
        run
    };
    let mut s = step(Mode::KeepAlive);
    let run = measure(&s, &report());
    assert!(
        run.round_trips_bound
            .as_deref()
            .is_some_and(|w| w.starts_with("neither side set the pace")),
        "{run:?}"
    );
    s.rate = Some(2000.0);
    let recorded = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../bench-tools/tests/data/loadgen-R2000-c100.json");
    let run = measure(&s, &std::fs::read_to_string(recorded).unwrap());
    assert_eq!(run.offered_requests_per_s, Some(2000.0));
    assert_eq!(run.round_trips_bound, None, "{run:?}");
    drop(idle);
}

#[test]
fn a_server_gone_before_the_step_runs_nothing() {
    let s = step(Mode::KeepAlive);
    let mut server = Fake::new(0, None);
    let (got, r, launch) = once(&s, vec![], Some(&mut server), None);
    let problems = got.unwrap();
    assert_eq!(
        problems,
        ["/hello c50: the server had exited before this step (fake: gone)"]
    );
    assert!(launch.argvs.is_empty());
    assert!(!r.valid && r.repeats.is_empty());
}

#[test]
fn a_server_gone_during_the_step_keeps_the_run_but_voids_it() {
    let s = step(Mode::KeepAlive);
    let mut server = Fake::new(1, None);
    let answers = vec![exited(0, "", ""), exited(0, &report(), "")];
    let (got, r, _) = once(&s, answers, Some(&mut server), None);
    assert_eq!(
        got.unwrap(),
        ["/hello c50: the server exited during this step (fake: gone)"]
    );
    assert!(!r.valid);
    assert_eq!(r.repeats.len(), 1);
    assert_eq!(r.repeats[0].rss_kb, None, "not sampled without a pid");
}

#[test]
fn a_failed_or_overrun_tool_voids_the_step_and_the_run_goes_on() {
    let s = step(Mode::KeepAlive);
    let answers = vec![exited(0, "", ""), exited(1, "", "loadgen: refused\n")];
    let (got, r, _) = once(&s, answers, None, None);
    let problems = got.unwrap();
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].starts_with("/hello c50: builtin failed (exit status: 1): loadgen: refused"),
        "{problems:?}"
    );
    assert!(!r.valid && r.repeats.is_empty());

    // An overrun warm-up is no problem; an overrun measured run is.
    let answers = vec![
        Err(Failure::Overran(Duration::from_secs(3))),
        Err(Failure::Overran(Duration::from_secs(33))),
    ];
    let (got, r, _) = once(&s, answers, None, None);
    assert_eq!(got.unwrap(), ["/hello c50: builtin ran past 33 s"]);
    assert_eq!(r.invalid_reason.as_deref(), Some("builtin ran past 33 s"));

    // Output that is not a report.
    let answers = vec![exited(0, "", ""), exited(0, "{", "")];
    let (got, r, _) = once(&s, answers, None, None);
    assert!(got.unwrap()[0].contains("cannot read the JSON report"));
    assert!(!r.valid);
}

#[test]
fn a_tool_that_cannot_start_stops_the_run() {
    let s = step(Mode::KeepAlive);
    let answers = vec![Err(Failure::Other(anyhow::anyhow!("cannot run loadgen")))];
    let (got, _, launch) = once(&s, answers, None, None);
    assert_eq!(got.unwrap_err().to_string(), "cannot run loadgen");
    assert_eq!(launch.argvs.len(), 1, "stopped at the warm-up");
}

#[test]
fn no_keepalive_voids_an_http10_keepalive_step_but_it_still_runs() {
    let s = step(Mode::Http10KeepAlive);
    let answers = vec![exited(0, "", ""), exited(0, &report(), "")];
    let (got, r, _) = once(&s, answers, None, Some(Err("closed".into())));
    assert_eq!(got.unwrap(), Vec::<String>::new());
    assert_eq!(
        r.invalid_reason.as_deref(),
        Some("no HTTP/1.0 keep-alive (ab -k's mode), so the run measures reconnects: closed")
    );
    assert_eq!(r.repeats.len(), 1);
}

#[test]
fn decisions() {
    let mut run = Run {
        requests: 5,
        ..Run::default()
    };
    let u = Usage {
        rss_start_kb: 10,
        rss_peak_kb: 30,
        rss_end_kb: 20,
        cpu_s: 0.0123456,
        user_s: Some(0.0023456),
        kernel_s: Some(0.01),
        wall_s: 2.0,
        processes: 1,
        ..Usage::default()
    };
    add_usage(&mut run, &u);
    assert_eq!(
        run.rss_kb.map(|r| (r.start, r.peak, r.end)),
        Some((10, 30, 20))
    );
    assert_eq!(run.server_cpu_s, Some(0.012));
    assert_eq!(run.server_cpu_percent, Some(0.62));
    assert_eq!(run.cpu_us_per_request, Some(2469.12));
    assert_eq!(
        (run.cpu_user_us_per_request, run.cpu_kernel_us_per_request),
        (Some(469.12), Some(2000.0))
    );

    // The tool's own CPU: a multi-threaded tool is bound at 90 % of the CPUs it could use.
    let busy = |cpu_s: f64, busiest_thread_s: f64| Usage {
        cpu_s,
        busiest_thread_s,
        wall_s: 2.0,
        ..Usage::default()
    };
    let mut r = Run::default();
    add_tool_usage(&mut r, Tool::K6.threads(2), 2, Some(&busy(3.5, 1.0)));
    assert_eq!(
        (r.tool_cpu_percent, r.tool_cpus, r.tool_bound),
        (Some(175.0), Some(2), false)
    );
    add_tool_usage(&mut r, Tool::K6.threads(2), 2, Some(&busy(3.6, 1.0)));
    assert!(r.tool_bound, "180 % of 2 CPUs");
    // wrk -t1, the built-in generator: one thread of the two CPUs it is given.
    for tool in [Tool::Wrk, Tool::Builtin, Tool::Ab, Tool::Autocannon] {
        let mut r = Run::default();
        add_tool_usage(&mut r, tool.threads(2), 2, Some(&busy(1.9, 1.85)));
        assert_eq!((r.tool_cpus, r.tool_bound), (Some(1), true), "{tool}");
        add_tool_usage(&mut r, tool.threads(2), 2, Some(&busy(1.9, 1.7)));
        assert!(!r.tool_bound, "{tool}: its busiest thread used 85 %");
    }
    // Not seen: no figure and no verdict (the built-in generator's own note is a note).
    let mut r = Run {
        tool_bound: true,
        ..Run::default()
    };
    add_tool_usage(&mut r, Tool::Builtin.threads(1), 1, None);
    assert_eq!((r.tool_cpu_percent, r.tool_bound), (None, false));
    // Requests left unsent (3 %): the generator fell behind when the harness saw it busy
    // to its limit, whatever it said of itself; with time to spare, the server held them.
    let unsent = |fell_behind: bool| Run {
        tool_bound: fell_behind,
        tool_fell_behind: fell_behind,
        unsent_requests: Some(300),
        intended_requests: Some(10_000),
        ..Run::default()
    };
    let mut r = unsent(false);
    add_tool_usage(&mut r, Tool::Builtin.threads(2), 2, Some(&busy(1.9, 1.85)));
    assert!(r.tool_bound && r.tool_fell_behind);
    let mut r = unsent(true);
    add_tool_usage(&mut r, Tool::Builtin.threads(2), 2, Some(&busy(0.4, 0.4)));
    assert!(!r.tool_bound && !r.tool_fell_behind);
    // Not measured: the generator's own verdict stands.
    let mut r = unsent(true);
    add_tool_usage(&mut r, Tool::Builtin.threads(2), 2, None);
    assert!(r.tool_bound && r.tool_fell_behind);

    // Rounds of a count: added up, rates over the whole.
    let round = |requests: u64, d: f64, p99: u64, status: u64| Run {
        requests,
        duration_s: d,
        requests_per_s: requests as f64 / d,
        transfer_bytes_per_s: 100.0 * requests as f64 / d,
        latency_us: bench_model::results::Latency {
            p99: Some(p99),
            max: Some(p99 * 2),
            ..Default::default()
        },
        errors: bench_model::results::Errors {
            status,
            ..Default::default()
        },
        ..Run::default()
    };
    let m = merge_rounds(vec![
        round(1000, 0.5, 100, 0),
        round(1000, 1.5, 300, 2),
        round(1000, 1.0, 200, 1),
    ]);
    assert_eq!(
        (m.requests, m.duration_s, m.requests_per_s),
        (3000, 3.0, 1000.0)
    );
    assert_eq!(m.transfer_bytes_per_s, 100_000.0);
    assert_eq!((m.latency_us.p99, m.latency_us.max), (Some(200), Some(600)));
    assert_eq!(m.errors.status, 3);

    let mut r = results_for(&[step(Mode::KeepAlive)]).remove(0);
    invalidate(&mut r, "first");
    invalidate(&mut r, "second");
    assert_eq!(
        (r.valid, r.invalid_reason.as_deref()),
        (false, Some("first"))
    );
}

/// A process tree that spins on a CPU for `busy_s` seconds, then sleeps; killed when
/// dropped. The loop forks nothing: a loop that ran `date` each turn spent its time in
/// short-lived children, which a busy machine starved until the tree read as idle (seen
/// in a test run beside two cargo builds).
struct Spinner(std::process::Child);

impl Spinner {
    fn start(busy_s: u32) -> Spinner {
        let script = format!("timeout {busy_s} sh -c 'while :; do :; done'; exec sleep 60");
        let child = std::process::Command::new("sh")
            .args(["-c", &script])
            .spawn()
            .unwrap();
        Spinner(child)
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_step_waits_for_the_server_to_finish_the_last_ones_work() {
    // Busy for about 2 s (a whole second or two, by the clock's seconds), then idle.
    let spin = Spinner::start(2);
    let mut server = Fake::new(1, Some(spin.0.id() as i32));
    let subject = Subject::new(SocketAddr::from(([127, 0, 0, 1], 9)), Some(&mut server));
    let t0 = std::time::Instant::now();
    let note = settle(
        SETTLE_LIMIT,
        &subject,
        &mut Progress::new(),
        "x",
        After::StepBefore,
    )
    .unwrap()
    .expect("it waited, and says so");
    assert!(!note.never);
    let note = note.note;
    let waited = t0.elapsed().as_secs_f64();
    assert!((0.9..15.0).contains(&waited), "{waited} s: {note}");
    assert!(
        note.contains("waited") && note.contains("go idle"),
        "{note}"
    );
    // Idle now: no wait, no note.
    assert_eq!(
        settle(
            SETTLE_LIMIT,
            &subject,
            &mut Progress::new(),
            "x",
            After::StepBefore
        )
        .unwrap(),
        None
    );
    // Not watched, or told not to wait: no wait.
    assert_eq!(
        settle(
            Duration::ZERO,
            &subject,
            &mut Progress::new(),
            "x",
            After::WarmUp
        )
        .unwrap(),
        None
    );
}

#[test]
fn a_server_that_never_settles_is_said_to_share_the_step_with_its_backlog() {
    let spin = Spinner::start(30);
    let mut server = Fake::new(1, Some(spin.0.id() as i32));
    let subject = Subject::new(SocketAddr::from(([127, 0, 0, 1], 9)), Some(&mut server));
    let t0 = std::time::Instant::now();
    let note = settle(
        Duration::from_secs(1),
        &subject,
        &mut Progress::new(),
        "x",
        After::StepBefore,
    )
    .unwrap()
    .expect("a note");
    assert!(t0.elapsed() < Duration::from_secs(5));
    assert!(note.never);
    let note = note.note;
    assert!(
        note.contains("still busy from the step before") && note.contains("after 1 s"),
        "{note}"
    );
}

/// The warm-up's backlog: a server still busy after the warm-up (here a busy loop that
/// never stops) is waited for a second time, and one that never goes idle marks the step.
#[test]
fn a_server_still_busy_after_its_warm_up_marks_the_step() {
    let spin = Spinner::start(30);
    let mut server = Fake::new(usize::MAX, Some(spin.0.id() as i32));
    let answers = vec![exited(0, "", ""), exited(0, &report(), "")];
    let (got, result, _) = once_settling(
        &step(Mode::KeepAlive),
        answers,
        Some(&mut server),
        None,
        Duration::from_secs(1),
    );
    got.unwrap();
    let r = &result.repeats[0];
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("still busy from its warm-up")),
        "{:?}",
        r.notes
    );
    assert!(r.disturbed, "{r:?}");
    assert!(
        r.disturbed_reason
            .as_deref()
            .is_some_and(|w| w.contains("never went idle after its warm-up")),
        "{:?}",
        r.disturbed_reason
    );
}
