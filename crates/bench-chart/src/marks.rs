//! The marks of a figure someone other than the server may have set: `†` the load tool, `‡`
//! the machine, `§` the connections' round trips. A chart draws them beside its bars and
//! points and a report's tables after their cells, so both write them from here.

use bench_model::results::Run;

/// The mark of a figure the load tool may have set ([`Run::tool_bound`]).
pub const TOOL_MARK: &str = "†";
/// The mark of a figure the machine may have set ([`Run::disturbed`]).
pub const MACHINE_MARK: &str = "‡";
/// The mark of a closed-loop figure neither the server nor the tool set: the connections'
/// round trips did ([`Run::round_trips_bound`]).
pub const ROUND_TRIP_MARK: &str = "§";

/// Which figures someone other than the server may have set: the load tool (`†`), the
/// machine (`‡`), the connections' round trips (`§`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Marks {
    /// The load tool set the pace ([`Run::tool_set_pace`]).
    pub tool: bool,
    /// The machine did ([`Run::disturbed`]).
    pub machine: bool,
    /// Neither side did: the round trips ([`Run::round_trips_bound`]).
    pub round_trips: bool,
}

impl Marks {
    /// A run's marks.
    pub fn of(run: &Run) -> Marks {
        Marks {
            tool: run.tool_set_pace(),
            machine: run.disturbed,
            round_trips: run.round_trips_bound.is_some(),
        }
    }

    /// Whether there is any.
    pub fn any(self) -> bool {
        self.tool || self.machine || self.round_trips
    }

    /// ` †`, ` ‡`, ` §`, their combinations (` †‡`) or nothing.
    pub fn suffix(self) -> String {
        let mut m = String::new();
        if self.any() {
            m.push(' ');
        }
        if self.tool {
            m.push_str(TOOL_MARK);
        }
        if self.machine {
            m.push_str(MACHINE_MARK);
        }
        if self.round_trips {
            m.push_str(ROUND_TRIP_MARK);
        }
        m
    }
}
