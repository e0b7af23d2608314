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

/// Runs `rulebook` with `base` (a `simulate ... --json` command) as shards `0/n` .. of it,
/// shard 1 on two threads, checks each succeeds, and writes each shard's JSON to a file
/// named after `tag`; returns the files' paths in shard order.
#[allow(dead_code)] // not every test crate runs shards
pub fn shard_files(base: &[&str], n: usize, tag: &str) -> Vec<String> {
    (0..n)
        .map(|i| {
            let shard = format!("{i}/{n}");
            let mut args = base.to_vec();
            args.extend(["--shard", shard.as_str()]);
            if i == 1 {
                args.extend(["--threads", "2"]);
            }
            let (code, out, err) = rulebook(&args);
            assert_eq!(code, 0, "{err}");
            assert!(out.contains("\"shard\""), "{out}");
            let f = std::env::temp_dir().join(format!(
                "rulebook-{tag}-{}-shard{i}.json",
                std::process::id()
            ));
            std::fs::write(&f, &out).expect("written");
            f.display().to_string()
        })
        .collect()
}
