//! `bench`: the harness that reproduces the five experiments of EXPERIMENTS.md side by side.
//!
//! Layers, in the order a run passes through them (STYLE.md habit 9):
//!
//! - [`cli`] (options): the command line (`list`, `verify`, `run`, `report`);
//! - [`experiments`]: E1–E5 as data: endpoints, steps, load model, default lengths;
//! - [`servers`]: servers.toml entries made runnable: build, start (pinned), stop, always;
//!   [`procs`] (process groups, /proc), [`pin`] (CPU affinity) and [`signals`] beneath it;
//! - [`sample`]: RSS and CPU of a server's whole process tree from /proc;
//! - [`load`] and [`tools`]: every load tool (the built-in `loadgen` binary, wrk, ab, oha,
//!   k6) run as a pinned, killable child process, its output parsed;
//! - [`results`] (stats): the versioned results JSON, repeats with median and spread;
//! - [`report`]: markdown tables shaped like each experiment's own, and an SVG chart;
//! - [`instructions`]: instructions per request under callgrind, beside the timed runs.
//!
//! The commands themselves: [`list`], [`verify`], [`run`](mod@run); [`progress`], [`table`]
//! and [`out`] are their terminal output.
#![deny(missing_docs)]

pub mod cli;
pub mod experiments;
pub mod instructions;
pub mod list;
pub mod load;
pub mod out;
pub mod pin;
pub mod procs;
pub mod progress;
pub mod report;
pub mod results;
pub mod run;
pub mod sample;
pub mod servers;
pub mod signals;
pub mod table;
pub mod tools;
pub mod verify;
