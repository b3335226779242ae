//! The launch trace: named marks on the process's clock, printed by the desktop shell when the
//! benchmarks ask for them ([`LAUNCH_TRACE`]). Imports mark their build here too.

use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// Environment variable asking for the launch trace: `1` prints it, `exit` prints it and quits
/// (read by the launch benchmark, `scripts/bench-app.sh`).
pub const LAUNCH_TRACE: &str = "RETE_LAUNCH_TRACE";

static STARTED: OnceLock<Instant> = OnceLock::new();
static MARKS: Mutex<Vec<(&'static str, f64)>> = Mutex::new(Vec::new());

/// Starts the trace's clock (the first call wins).
pub fn start() {
    STARTED.get_or_init(Instant::now);
}

/// Milliseconds since [`start`] (the launch trace's clock inside the process).
pub fn since_start_ms() -> f64 {
    STARTED
        .get()
        .map_or(0.0, |t| t.elapsed().as_secs_f64() * 1e3)
}

/// Records a mark (ms since [`start`]); a name is recorded once, the first time.
pub fn mark(name: &'static str) {
    if let Ok(mut marks) = MARKS.lock() {
        if !marks.iter().any(|(n, _)| *n == name) {
            marks.push((name, since_start_ms()));
        }
    }
}

/// The marks so far.
pub fn marks() -> Vec<(&'static str, f64)> {
    MARKS.lock().map(|m| m.clone()).unwrap_or_default()
}

/// Whether the launch trace was asked for.
pub fn enabled() -> bool {
    std::env::var_os(LAUNCH_TRACE).is_some()
}
