//! `bench list`: every entry of servers.toml (and of a `--servers-file`), whether it can run here (binary built or
//! buildable, or a peer's runtime and files found, or what is missing), its style, what it is
//! the analogue of, its usual port and its experiments; then every load tool, installed or
//! not, with its version (`bench tools list`).

use crate::step::server::{Availability, Env, availability};
use bench_report::table::Table;

/// Prints the list to stdout.
pub fn run(env: &Env) -> anyhow::Result<()> {
    let manifest = env.manifest()?;
    let mut t = Table::new(&[
        "name",
        "kind",
        "runs here",
        "port",
        "experiments",
        "analogue",
        "style",
    ]);
    for s in &manifest.servers {
        let runs = match availability(s, env) {
            Availability::Ready(how) => format!("yes ({how})"),
            Availability::Buildable => "yes (cargo build --release builds it)".to_string(),
            Availability::Missing(why) => format!("no: {why}"),
        };
        let port = match (s.port, s.is_peer()) {
            (Some(p), _) => p.to_string(),
            (None, false) => serve::config::DEFAULT_ADDR
                .rsplit(':')
                .next()
                .unwrap_or("8080")
                .to_string(),
            (None, true) => "-".to_string(),
        };
        t.row(vec![
            s.name.clone(),
            kind(s, env),
            runs,
            port,
            s.experiments.join(" "),
            s.analogue.join(", "),
            clip(&s.style, 60),
        ]);
    }
    crate::term::out::text(&t);
    crate::say!("\nload tools (bench tools list):");
    crate::term::out::text(crate::session::tools_table(env));
    Ok(())
}

/// Rust variant or peer (and its runtime), and the file of an entry that is not servers.toml's
/// (`--servers-file`).
fn kind(s: &manifest::Server, env: &Env) -> String {
    let mut kind = if s.is_peer() {
        format!("peer ({})", s.runtime.as_deref().unwrap_or("?"))
    } else {
        "rust".to_string()
    };
    if s.file != env.root.join("servers.toml") {
        let file = s.file.file_name().unwrap_or(s.file.as_os_str());
        kind.push_str(&format!(" from {}", file.to_string_lossy()));
    }
    kind
}

/// `text` cut to `max` characters, with `…` when cut.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
    s.push('…');
    s
}
