//! What the tests of a step and of a whole run put in place of a real server and a real load
//! tool: a [`Fake`] server (alive for so many questions, then gone), a [`Recorded`] tool
//! (hands out canned outputs, recorded from the real tool here, and remembers what it was
//! asked to run), and a [`Fakes`] launcher that starts fake servers for `bench run`'s loop.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::ExitStatus;
use std::rc::Rc;
use std::time::Duration;

use manifest::Server;

use super::child::{Failure, Output};
use super::{Launch, Servers, Started, Watch};

/// A server that is alive for the first `alive` questions, then gone.
pub struct Fake {
    /// How many more times [`Watch::alive`] says yes.
    pub alive: usize,
    /// The PID it gives to sample (`None`: nothing is sampled).
    pub pid: Option<i32>,
    /// Where its stop is told (`stop NAME`), when [`Fakes`] started it.
    stops: Option<(String, Rc<RefCell<Vec<String>>>)>,
    /// Where it says it listens.
    addr: SocketAddr,
}

impl Fake {
    /// A server alive for `alive` questions, sampled at `pid`.
    pub fn new(alive: usize, pid: Option<i32>) -> Fake {
        Fake {
            alive,
            pid,
            stops: None,
            addr: SocketAddr::from(([127, 0, 0, 1], 9)),
        }
    }
}

impl Watch for Fake {
    fn pid(&self) -> Option<i32> {
        self.pid
    }
    fn alive(&mut self) -> bool {
        let yes = self.alive > 0;
        self.alive = self.alive.saturating_sub(1);
        yes
    }
    fn last_stderr(&self) -> Option<String> {
        Some("fake: gone".into())
    }
}

impl Started for Fake {
    fn addr(&self) -> SocketAddr {
        self.addr
    }
    fn command(&self) -> Vec<String> {
        vec!["fake".into()]
    }
    fn stop(&mut self) -> Vec<i32> {
        if let Some((name, log)) = &self.stops {
            log.borrow_mut().push(format!("stop {name}"));
        }
        Vec::new()
    }
    fn watch(&mut self) -> &mut dyn Watch {
        self
    }
}

/// Starts a [`Fake`] per server, alive for `alive` questions each, and logs every start and
/// stop in order (`start NAME`, `stop NAME`); `fail` names a server that cannot start.
#[derive(Default)]
pub struct Fakes {
    /// How many questions each fake server stays alive for.
    pub alive: usize,
    /// A server whose start fails.
    pub fail: Option<String>,
    /// The starts and stops, in order.
    pub log: Rc<RefCell<Vec<String>>>,
    /// Where the fake servers say they listen (`None`: 127.0.0.1:9, where nothing does).
    pub addr: Option<SocketAddr>,
}

impl Fakes {
    /// The servers started, in order.
    pub fn started(&self) -> Vec<String> {
        let log = self.log.borrow();
        let starts = log.iter().filter_map(|e| e.strip_prefix("start "));
        starts.map(str::to_string).collect()
    }
}

impl Servers for Fakes {
    fn start(&mut self, server: &Server) -> anyhow::Result<Box<dyn Started>> {
        if self.fail.as_deref() == Some(server.name.as_str()) {
            anyhow::bail!("{}: did not start (fake)", server.name);
        }
        self.log.borrow_mut().push(format!("start {}", server.name));
        let mut fake = Fake::new(self.alive, None);
        fake.stops = Some((server.name.clone(), Rc::clone(&self.log)));
        if let Some(addr) = self.addr {
            fake.addr = addr;
        }
        Ok(Box::new(fake))
    }
}

/// Hands out canned results and remembers what it was asked to run.
#[derive(Default)]
pub struct Recorded {
    /// The outputs still to hand out, in order.
    pub answers: VecDeque<Result<Output, Failure>>,
    /// Every argv it was asked to run.
    pub argvs: Vec<Vec<String>>,
    /// How long each run takes, and the process whose usage, sampled meanwhile, stands for
    /// the tool's; `None`: no time, no usage.
    pub runs_for: Option<(Duration, i32)>,
    /// When set, answers every run from its argv instead of from `answers` (a tool whose
    /// output depends on what it was asked, such as the rate offered).
    pub respond: Option<Respond>,
}

impl Launch for Recorded {
    fn launch(
        &mut self,
        argv: &[String],
        _limit: Duration,
        tick: &mut dyn FnMut(),
    ) -> Result<Output, Failure> {
        tick();
        self.argvs.push(argv.to_vec());
        let usage = self.runs_for.and_then(|(d, pid)| {
            let sampler = super::sample::Sampler::start(pid, Duration::from_millis(50));
            std::thread::sleep(d);
            sampler.finish()
        });
        let answer = match self.respond {
            Some(respond) => respond(argv),
            None => self
                .answers
                .pop_front()
                .unwrap_or_else(|| Err(Failure::Other(anyhow::anyhow!("no more answers")))),
        };
        answer.map(|o| Output {
            usage: usage.or(o.usage),
            ..o
        })
    }
}

/// A tool that answers from its argv ([`Recorded::respond`]).
pub type Respond = fn(&[String]) -> Result<Output, Failure>;

/// A tool's output: exit `code`, `stdout`, `stderr`, one second long.
pub fn exited(code: i32, stdout: &str, stderr: &str) -> Result<Output, Failure> {
    Ok(Output {
        stdout: stdout.into(),
        stderr: stderr.into(),
        status: ExitStatus::from_raw(code << 8),
        started: std::time::Instant::now(),
        elapsed: Duration::from_secs(1),
        usage: None,
        cpu_s: None,
    })
}

/// loadgen's report of a real 50-connection keep-alive run.
pub fn report() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../bench-tools/tests/data/loadgen-c50-keepalive.json");
    std::fs::read_to_string(p).unwrap()
}
