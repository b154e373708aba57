//! The commands, one file each: [`list`], [`verify`], [`run`](mod@run) (carries out a
//! [`Plan`](crate::plan::Plan): the run loop over repeats, servers and steps, and the results
//! file) and [`tools`] (`bench tools compare`: several load tools against one server).

pub mod list;
pub mod run;
pub mod tools;
pub mod verify;
