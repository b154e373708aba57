//! `bench`: the harness that reproduces the seven experiments of `docs/experiments.md` (E6:
//! TechEmpower's profile; E7: the open-loop profile, a ladder of offered rates) side by side.
//!
//! Its layers, in the order a run passes through them, each a module that uses only those
//! listed before it (and [`term`]):
//!
//! - [`cli`]: the command line (`list`, `verify`, `run`, `report`, `tools compare`);
//! - [`experiment`]: E1–E7 as data: endpoints, steps, load model, default lengths;
//! - [`plan`]: what a run will do (servers × steps × repeats, or a running target), and every
//!   refusal before anything starts;
//! - [`step`]: running one step: start and stop a server (process groups, pinning, signals),
//!   a load tool as a child process and its output parser, /proc sampling; the per-step
//!   body, [`step::run`];
//! - [`results`]: the versioned results JSON (schema only), with its provenance (machine,
//!   git, versions) and UTC timestamps beside it;
//! - [`report`]: markdown tables shaped like each experiment's own, SVG charts, and one
//!   self-contained HTML page of many results files.
//!
//! The commands that put them together are in [`cmd`] (`list`, `verify`, `run`, `tools`);
//! [`term`] is their terminal output (the `say!` macro, tables, the progress line).
#![deny(missing_docs)]

pub mod cli;
pub mod cmd;
pub mod experiment;
pub mod plan;
pub mod report;
pub mod results;
pub mod step;
pub mod term;
