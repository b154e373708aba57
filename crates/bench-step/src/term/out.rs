//! Writing to stdout without panicking: `println!` panics when stdout is a closed pipe
//! (`bench verify | head`), and the harness must still stop what it started and finish its
//! run. [`say!`](crate::say) is `println!` that ignores write errors; [`text`] is `print!`.

use std::fmt::Display;
use std::io::Write;

/// Writes `t` to stdout as it is, ignoring errors (a closed pipe).
pub fn text(t: impl Display) {
    let _ = write!(std::io::stdout().lock(), "{t}");
}

/// `println!` that ignores write errors (a closed pipe).
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::term::out::text(format_args!("{}\n", format_args!($($arg)*)))
    };
}
