//! The commands, one file each: [`list`], [`verify`], [`run`](mod@run) (carries out a
//! [`Plan`](crate::plan::Plan): the run loop over repeats, servers and steps, and the results
//! file), [`tools`] (`bench tools compare`: several load tools against one server) and
//! [`instructions`] (instructions per request under callgrind, and the CI guard's baseline)
//! and [`idle`] (a server's memory with N idle keep-alive connections); [`report`] (the
//! reports of results files); [`compare`] (what moved between two runs); [`calibrate`] (the
//! error rates of `compare`'s verdicts, simulated); [`noise`] (where each step's noise is, from
//! the repeats' timelines); [`publish`] runs them all in one sitting and publishes what they
//! measured.

pub mod calibrate;
pub mod compare;
pub mod idle;
pub mod instructions;
pub mod list;
pub mod noise;
pub mod publish;
pub mod report;
pub mod run;
pub mod tools;
pub mod verify;
