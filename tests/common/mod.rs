//! What several test crates share: running the `rulebook` binary.

use std::process::Command;

/// Runs the `rulebook` binary built for the tests with `args`: its exit code (-1 when killed
/// by a signal), standard output and standard error.
pub fn rulebook(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rulebook"))
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
