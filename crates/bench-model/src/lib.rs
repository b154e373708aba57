//! `bench-model`: what the bench harness measures and records, as data, with no runtime and no
//! process beside it.
//!
//! - [`experiment`]: E1–E7 as data: endpoints, steps, load model, default lengths, and what
//!   each experiment's report shows (tables, charts, findings, headline columns);
//! - [`noise`]: where a step's noise is: within a repeat, between repeats, shared by a round,
//!   and what its dips went with, read from the repeats' timelines;
//! - [`results`]: the versioned results JSON of each kind (`bench run`, instructions, tools
//!   compare, idle) with its provenance and UTC timestamps, loaded and written, and their
//!   statistics (the median of repeats, their spread);
//! - [`rules`]: the rules that say what a measured run is worth (failed, tool-bound,
//!   disturbed, kept up, too short), each one function beside its thresholds;
//! - [`schema`]: the committed JSON Schema of each kind of results file, and the check of a
//!   document against it;
//! - [`stats`]: the one median, the one standard deviation, and how a rate is written
//!   ([`stats::thousands`]);
//! - [`verdict`]: whether a figure moved between two runs, stayed the same within a margin,
//!   or cannot be told, with the error rates of each call measured ([`verdict::calibrate`]);
//!   E7's capacity with an interval ([`verdict::capacity`]);
//! - [`sustainable`]: E7's answer, the highest offered rate a server sustains, read from its
//!   rungs, and where the search for it goes next.
//!
//! `bench-tools` (the load tools' command lines and parsers) and `bench-report` (markdown,
//! SVG, the HTML page) read and write through it; `bench` (the command line) measures.
#![deny(missing_docs)]

pub mod experiment;
pub mod noise;
pub mod results;
pub mod rules;
pub mod schema;
pub mod stats;
pub mod sustainable;
pub mod verdict;
