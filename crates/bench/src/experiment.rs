//! E1–E6 as data: each experiment's title, the load its article used, its endpoints and its
//! steps (connections, duration or request count, connection mode, timeout, headers), at the
//! default length and at `--quick` length.
//!
//! Default lengths follow the articles where that is practical: E2 and E5 send exactly the
//! article's request counts, E3 runs wrk's 10 s and E4 autocannon's 20 s per step. E1's k6 ramp
//! (1 min to 100 VUs, 2 min to 500, 2 min to 1000, 1 min down: 6 min per server) becomes three
//! plateaus of 20 s at 100, 500 and 1000 connections, each after its own warm-up at the same
//! concurrency, run back to back on one server process, so the throughput at each level the
//! article reports is measured at that level and the RSS after the last plateau is the
//! "after" figure. `--quick` shortens every timed step to 2 s and divides request counts by
//! 10 (E5: by 25), for tests and smoke runs.
//!
//! E6 is TechEmpower's profile rather than an article's: its plaintext test (`/hello`, wrk's
//! pipeline script at depth 16, 15 s per step, `--timeout 8`) at 256, 1,024 and 4,096
//! connections (TFB also runs 16,384: past what one load process keeps open here beside a
//! server of 16,384 sockets within RLIMIT_NOFILE 20,000), and its JSON test (`/api/hello`, no
//! pipelining) at 16, 64, 256 and 512.

use std::time::Duration;

use loadgen::Mode;

/// The token `/api/private` accepts by default (servers are started without `AUTH_TOKEN`).
pub const TOKEN: &str = contract::body::DEFAULT_AUTH_TOKEN;

/// One experiment.
#[derive(Clone, Debug)]
pub struct Experiment {
    /// Lowercase id: `e1` … `e6`.
    pub id: &'static str,
    /// The id as servers.toml lists it: `E1` … `E6`.
    pub manifest_id: &'static str,
    /// A one-line title.
    pub title: &'static str,
    /// What the article ran, in a few words.
    pub article_load: &'static str,
    /// The article's repetitions (the default of `--repeat`).
    pub repeat: u32,
    /// Whether only servers that serve the event-loop scenarios take part.
    pub scenarios_only: bool,
    /// The endpoints, each with its extra request headers.
    pub endpoints: &'static [(&'static str, &'static [(&'static str, &'static str)])],
}

/// One step of an experiment against one server.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// Its id within the endpoint (`c100`, `async`, …).
    pub id: String,
    /// The request target (path and query).
    pub endpoint: String,
    /// Connections (concurrency).
    pub connections: usize,
    /// The measured duration of a time-bounded step.
    pub duration: Option<Duration>,
    /// The request count of a count-bounded step.
    pub requests: Option<u64>,
    /// How requests are sent: keep-alive (wrk, k6, autocannon), HTTP/1.0 with a new
    /// connection each (ab), HTTP/1.0 keep-alive (ab -k).
    pub mode: Mode,
    /// Requests written back to back on a connection before its answers are read (1: no
    /// pipelining; E6's plaintext: 16).
    pub pipeline: usize,
    /// Per-request timeout (the tool's).
    pub timeout: Duration,
    /// Extra request headers.
    pub headers: Vec<(String, String)>,
    /// The warm-up before it: the same load, for this long or this many requests.
    pub warmup: Warmup,
}

/// How long a warm-up runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Warmup {
    /// For this long.
    For(Duration),
    /// For this many requests.
    Requests(u64),
}

const NO_HEADERS: &[(&str, &str)] = &[];
const BEARER: &[(&str, &str)] = &[("Authorization", "Bearer bench-token")];

/// Every experiment, in order.
pub const ALL: [Experiment; 6] = [
    Experiment {
        id: "e1",
        manifest_id: "E1",
        title: "Express vs Fastify vs Koa under a ramp: 100, 500, 1000 connections on /api/hello and the Bearer-token /api/private",
        article_load: "k6 stages 1m:100, 2m:500, 2m:1000, 1m:0; 3 repetitions",
        repeat: 3,
        scenarios_only: false,
        endpoints: &[("/api/hello", NO_HEADERS), ("/api/private", BEARER)],
    },
    Experiment {
        id: "e2",
        manifest_id: "E2",
        title: "Express vs bare node:http: a new HTTP/1.0 connection per request on the query echo",
        article_load: "ab -n 10000 -c 100; 3 runs",
        repeat: 3,
        scenarios_only: false,
        endpoints: &[("/api?name=John&lastname=Doe", NO_HEADERS)],
    },
    Experiment {
        id: "e3",
        manifest_id: "E3",
        title: "Blazeio vs tuned node:http: keep-alive at 100/1,000/10,000 connections",
        article_load: "wrk -t1 -d10s --timeout 60s at -c100, -c1000, -c10000",
        repeat: 1,
        scenarios_only: false,
        endpoints: &[("/", NO_HEADERS), ("/my/ip", NO_HEADERS)],
    },
    Experiment {
        id: "e4",
        manifest_id: "E4",
        title: "Event-loop scenarios: async, sync, sync-offload, nexttick, timer at 100 connections",
        article_load: "autocannon -c 100 -d 20",
        repeat: 1,
        scenarios_only: true,
        endpoints: &[
            ("/api/async", NO_HEADERS),
            ("/api/sync", NO_HEADERS),
            ("/api/sync-offload", NO_HEADERS),
            ("/api/nexttick", NO_HEADERS),
            ("/api/timer", NO_HEADERS),
        ],
    },
    Experiment {
        id: "e5",
        manifest_id: "E5",
        title: "Node.js, Go, Python, OpenResty hello-world: HTTP/1.0 keep-alive at 1/10/100 connections",
        article_load: "ab -k -c 1/10/100 -n 50000",
        repeat: 1,
        scenarios_only: false,
        endpoints: &[("/hello", NO_HEADERS)],
    },
    Experiment {
        id: "e6",
        manifest_id: "E6",
        title: "The TechEmpower profile: plaintext (/hello, pipelined 16 deep) at 256/1,024/4,096 connections, JSON (/api/hello) at 16/64/256/512",
        article_load: "TFB: wrk -t1 -d15 --timeout 8 with pipeline.lua 16 at -c256..16384 (plaintext), without at -c16..512 (JSON)",
        repeat: 1,
        scenarios_only: false,
        endpoints: &[("/hello", NO_HEADERS), ("/api/hello", NO_HEADERS)],
    },
];

/// E6's pipelining depth on its plaintext test (TechEmpower's).
pub const TFB_PIPELINE: usize = 16;

/// The experiment called `id` (`e3` or `E3`).
pub fn find(id: &str) -> Option<&'static Experiment> {
    ALL.iter().find(|e| e.id.eq_ignore_ascii_case(id))
}

/// The ids, for messages: `e1, e2, e3, e4, e5, e6`.
pub fn ids() -> String {
    ALL.iter().map(|e| e.id).collect::<Vec<_>>().join(", ")
}

impl Experiment {
    /// Its steps, in the order they run against each server.
    pub fn steps(&self, quick: bool) -> Vec<Step> {
        let secs = |full: u64| Duration::from_secs(if quick { 2 } else { full });
        let warm = Warmup::For(Duration::from_secs(if quick { 1 } else { 2 }));
        let mut steps = Vec::new();
        for &(endpoint, headers) in self.endpoints {
            let step = |id: String, connections: usize| Step {
                id,
                endpoint: endpoint.to_string(),
                connections,
                duration: None,
                requests: None,
                mode: Mode::KeepAlive,
                pipeline: 1,
                timeout: Duration::from_secs(60),
                headers: headers
                    .iter()
                    .map(|&(n, v)| (n.to_string(), v.to_string()))
                    .collect(),
                warmup: warm,
            };
            match self.id {
                "e1" => {
                    for c in [100, 500, 1000] {
                        steps.push(Step {
                            duration: Some(secs(20)),
                            ..step(format!("c{c}"), c)
                        });
                    }
                }
                "e2" => {
                    let n = if quick { 1_000 } else { 10_000 };
                    steps.push(Step {
                        requests: Some(n),
                        mode: Mode::Http10,
                        timeout: Duration::from_secs(30),
                        warmup: Warmup::Requests(n / 10),
                        ..step("c100".into(), 100)
                    });
                }
                "e3" => {
                    for c in [100, 1000, 10_000] {
                        steps.push(Step {
                            duration: Some(secs(10)),
                            ..step(format!("c{c}"), c)
                        });
                    }
                }
                "e4" => {
                    let name = endpoint.trim_start_matches("/api/").to_string();
                    steps.push(Step {
                        duration: Some(secs(20)),
                        timeout: Duration::from_secs(10),
                        ..step(name, 100)
                    });
                }
                "e6" => {
                    let (counts, pipeline): (&[usize], usize) = if endpoint == "/hello" {
                        (&[256, 1024, 4096], TFB_PIPELINE)
                    } else {
                        (&[16, 64, 256, 512], 1)
                    };
                    for &c in counts {
                        steps.push(Step {
                            duration: Some(secs(15)),
                            timeout: Duration::from_secs(8),
                            pipeline,
                            ..step(format!("c{c}"), c)
                        });
                    }
                }
                _ => {
                    let n = if quick { 2_000 } else { 50_000 };
                    for c in [1, 10, 100] {
                        steps.push(Step {
                            requests: Some(n),
                            mode: Mode::Http10KeepAlive,
                            timeout: Duration::from_secs(30),
                            warmup: Warmup::Requests((n / 10).max(c as u64)),
                            ..step(format!("c{c}"), c)
                        });
                    }
                }
            }
        }
        steps
    }

    /// What a default run of one server takes, roughly (measured time and warm-ups; not
    /// start-up, and count-bounded steps counted at 10,000 requests/s).
    pub fn estimate(&self, quick: bool) -> Duration {
        self.steps(quick)
            .iter()
            .map(|s| {
                let run = s.duration.unwrap_or_else(|| {
                    Duration::from_millis(s.requests.unwrap_or(0) / 10) // at 10k/s
                });
                let warm = match s.warmup {
                    Warmup::For(d) => d,
                    Warmup::Requests(n) => Duration::from_millis(n / 10),
                };
                run + warm
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_articles_shapes() {
        let e3 = find("E3").unwrap().steps(false);
        assert_eq!(e3.len(), 6);
        assert_eq!(
            e3.iter().map(|s| s.connections).collect::<Vec<_>>(),
            [100, 1000, 10_000, 100, 1000, 10_000]
        );
        assert!(
            e3.iter()
                .all(|s| s.duration == Some(Duration::from_secs(10))
                    && s.mode == Mode::KeepAlive
                    && s.timeout == Duration::from_secs(60))
        );
        let e2 = find("e2").unwrap().steps(false);
        assert_eq!(
            (e2[0].requests, e2[0].connections, e2[0].mode),
            (Some(10_000), 100, Mode::Http10)
        );
        let e5 = find("e5").unwrap().steps(false);
        assert!(e5.iter().all(|s| s.requests == Some(50_000)
            && s.mode == Mode::Http10KeepAlive
            && s.endpoint == "/hello"));
        let e1 = find("e1").unwrap().steps(false);
        assert_eq!(e1.len(), 6);
        assert_eq!(e1[3].endpoint, "/api/private");
        assert_eq!(
            e1[3].headers,
            [("Authorization".to_string(), format!("Bearer {TOKEN}"))]
        );
        assert!(
            find("e4")
                .unwrap()
                .steps(false)
                .iter()
                .all(|s| { s.duration == Some(Duration::from_secs(20)) && s.connections == 100 })
        );
        let e6 = find("e6").unwrap().steps(false);
        let shape: Vec<(&str, usize, usize)> = e6
            .iter()
            .map(|s| (s.endpoint.as_str(), s.connections, s.pipeline))
            .collect();
        assert_eq!(
            shape,
            [
                ("/hello", 256, 16),
                ("/hello", 1024, 16),
                ("/hello", 4096, 16),
                ("/api/hello", 16, 1),
                ("/api/hello", 64, 1),
                ("/api/hello", 256, 1),
                ("/api/hello", 512, 1),
            ]
        );
        assert!(
            e6.iter()
                .all(|s| s.duration == Some(Duration::from_secs(15))
                    && s.timeout == Duration::from_secs(8)
                    && s.mode == Mode::KeepAlive)
        );
        assert!(
            ALL.iter()
                .filter(|e| e.id != "e6")
                .all(|e| e.steps(false).iter().all(|s| s.pipeline == 1))
        );
        assert!(find("e7").is_none());
    }

    #[test]
    fn quick_steps_are_short() {
        for e in &ALL {
            for s in e.steps(true) {
                assert!(s.duration.is_none_or(|d| d <= Duration::from_secs(2)));
                assert!(s.requests.is_none_or(|n| n <= 2_000));
                assert!(s.duration.is_some() != s.requests.is_some(), "{s:?}");
            }
            assert!(e.estimate(true) < Duration::from_secs(30), "{}", e.id);
        }
    }
}
