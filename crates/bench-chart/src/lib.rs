//! The bench harness's charts: what a chart shows, as data, and how it is drawn as SVG; with
//! the two other ways every report shows a figure, written ([`format`](mod@format)) and in a
//! terminal table ([`table`]). It reads no results file and knows no experiment (of the
//! results model, only what a chart shows of a run or of a step's timelines): `bench-report`
//! decides what a results file's charts show (which server is a row, which step a panel,
//! what a finding cites, which step's timeline) and puts the drawings on its page and in the
//! SVG file beside a results file.
//!
//! Files: `chart.rs` (the data: [`chart::Chart`], a bar chart of a row per server and a panel
//! per step; [`chart::RateChart`], lines against the offered rate), `timeline.rs`
//! ([`timeline::TimelineChart`], a step's rounds over their measured window, their dips and
//! what the machine did, and its caption), `draw.rs` (a chart as SVG for a [`draw::Layout`],
//! wide or narrow: text widths, wrapping, legends, colours) with `draw/` (`bars.rs`,
//! `rates.rs`, `timeline.rs`, `axis.rs`, and `check.rs`, the check that no text of a drawing
//! overlaps another or leaves it), `svg.rs` (a drawing as the page's element and figure, or
//! many as an SVG file), `format.rs` (how every figure is written), `table.rs` (a padded
//! plain-text table) and `marks.rs` (`†`, `‡`, `§`). Imports run one way: `format`, `marks`
//! ← `chart`, `timeline` ← `draw` ← `svg`.
#![deny(missing_docs)]

pub mod chart;
pub mod draw;
pub mod format;
pub mod marks;
pub mod svg;
pub mod table;
pub mod timeline;
