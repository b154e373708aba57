//! `bench`: the harness that reproduces the five experiments of EXPERIMENTS.md side by side.
//!
//! Layers, in the order a run passes through them (STYLE.md habit 9):
//!
//! - `cli` (options): the command line (`list`, `verify`, `run`, `report`);
//! - `experiments`: E1–E5 as data: endpoints, steps, load model, default tool;
//! - `servers`: servers.toml entries made runnable: build, start (pinned), stop, always;
//! - `sample`: RSS and CPU of a server's whole process tree from /proc;
//! - `load` and [`tools`]: the built-in load generator, or wrk/ab/oha/k6 driven and parsed;
//! - [`results`] (stats): the versioned results JSON, repeats with median and spread;
//! - [`report`]: markdown tables shaped like each experiment's own, and an SVG chart.
#![deny(missing_docs)]

pub mod report;
pub mod results;
pub mod tools;
