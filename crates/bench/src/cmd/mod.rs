//! The commands, one file each: [`list`], [`verify`] and [`run`](mod@run) (carries out a
//! [`Plan`](crate::plan::Plan): the run loop over repeats, servers and steps, and the results
//! file).

pub mod list;
pub mod run;
pub mod verify;
