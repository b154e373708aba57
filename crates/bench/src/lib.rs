//! `bench`: the harness that reproduces the seven experiments of `docs/experiments.md` (E6:
//! TechEmpower's profile; E7: the open-loop profile, a ladder of offered rates) side by side:
//! the command line and what measures. What it measures and records is `bench-model`'s, the
//! load tools' command lines and parsers `bench-tools`', the reports `bench-report`'s; this
//! crate uses those three and none of them uses it.
//!
//! Its layers, in the order a run passes through them, each a module that uses only those
//! listed before it (and [`term`]):
//!
//! - [`cli`]: the command line (`list`, `verify`, `run`, `report`, `tools compare`, …), and
//!   [`error`], the errors its exit status depends on;
//! - [`provenance`]: the machine, the git revision and the programs' versions, read here;
//! - [`step`]: running one step: start and stop a server (process groups, pinning, signals),
//!   a load tool as a child process, /proc sampling and the machine beside it; the per-step
//!   body, [`step::run`], and its seams ([`step::Servers`], [`step::Launch`], [`step::Watch`])
//!   through which the tests give a fake server and recorded tool output;
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
pub mod error;
pub mod plan;
pub mod provenance;
pub mod session;
pub mod step;
pub mod term;
