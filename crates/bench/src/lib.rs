//! `bench`: the harness that reproduces the seven experiments of `docs/experiments.md` (E6:
//! TechEmpower's profile; E7: the open-loop profile, a ladder of offered rates) side by side:
//! the command line and what measures. What it measures and records is `bench-model`'s, the
//! load tools' command lines and parsers `bench-tools`', one step's body `bench-step`'s, the
//! reports `bench-report`'s; this crate uses those four and none of them uses it.
//!
//! Its layers, in the order a run passes through them, each a module that uses only those
//! listed before it (and [`term`]):
//!
//! - [`cli`]: the command line (`list`, `verify`, `run`, `report`, `tools compare`, …);
//! - [`provenance`]: the machine, the git revision and the programs' versions, read here;
//! - [`step`] (the `bench-step` crate): running one step: start and stop a server (process
//!   groups, pinning, signals), a load tool as a child process, /proc sampling, the machine
//!   beside it and the run's timeline; the per-step body, [`step::run`], and its seams
//!   ([`step::Servers`], [`step::Launch`], [`step::Watch`]) through which the tests give a fake
//!   server and recorded tool output; and [`error`], the errors a command's exit status
//!   depends on;
//! - [`session`]: what every measuring command does alike around its steps (the command it
//!   records, the servers it can run and their build, the preflight and the CPU split, the
//!   tools here, the results an interruption kept);
//! - [`plan`]: what a run will do (servers × steps × repeats, or a running target), and every
//!   refusal before anything starts.
//!
//! The commands that put them together are in [`cmd`], one file each; [`term`] is their
//! terminal output (the `say!` macro, tables, the progress line).
#![deny(missing_docs)]

pub mod cli;
pub mod cmd;
pub use bench_step::error;
pub mod plan;
pub mod provenance;
pub mod session;
pub use bench_step as step;
pub use bench_step::say;
pub mod term;
