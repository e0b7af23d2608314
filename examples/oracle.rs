//! The long run of the differential test (`tests/oracle.rs`): the engine against its oracle,
//! `rulebook::reference`, on many seeded random games of every rules file.
//!
//!     cargo run --release --example oracle -- --games 200 [--from 1] [--cap 1000] [--variants] [FILE...]
//!
//! For each rules file (by default every one under `rules/`, `rules/classic/`,
//! `tests/constructs/`, `tests/reference/` and `tests/seen/`; else the files named), and for
//! every player count it takes (its smallest and largest when there are more than three),
//! it plays `--games` games with the seeds `--from`, `--from + 1`, ..., each at most `--cap`
//! decisions, and compares every decision's legal list with the reference's (texts and
//! values, in order), each listed option with the reference's guard, and each finished
//! game's scores and winners. With `--variants`, each variant of the file is played too (at
//! its smallest player count). It prints per file the decisions compared and skipped (by
//! kind) and the games stopped by an error, then every difference found (the first per file
//! and player count), and exits with status 1 when there is one.

use rulebook::engine::{ChanceMode, Config};
use rulebook::reference::diff::{play, Tally};
use std::time::Instant;

const FOLDERS: [&str; 5] = [
    "rules",
    "rules/classic",
    "tests/constructs",
    "tests/reference",
    "tests/seen",
];

struct Args {
    games: u64,
    from: u64,
    cap: u64,
    variants: bool,
    files: Vec<String>,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        games: 20,
        from: 1,
        cap: 1000,
        variants: false,
        files: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        let mut num = |name: &str| -> Result<u64, String> {
            it.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{name} takes a number"))
        };
        match x.as_str() {
            "--games" => a.games = num("--games")?,
            "--from" => a.from = num("--from")?,
            "--cap" => a.cap = num("--cap")?,
            "--variants" => a.variants = true,
            f if !f.starts_with("--") => a.files.push(f.to_string()),
            other => return Err(format!("unknown option {other}")),
        }
    }
    if a.files.is_empty() {
        for dir in FOLDERS {
            let entries = std::fs::read_dir(dir).map_err(|e| format!("{dir}: {e}"))?;
            for e in entries.flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "rules") {
                    a.files.push(p.display().to_string());
                }
            }
        }
        a.files.sort();
    }
    Ok(a)
}

fn main() {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let start = Instant::now();
    let mut total = Tally::default();
    let mut diffs = Vec::new();
    for path in &a.files {
        let Ok(text) = std::fs::read_to_string(path) else {
            eprintln!("{path}: cannot read");
            continue;
        };
        let Some(g) = rulebook::load(path, &text).game else {
            eprintln!("{path}: does not check");
            continue;
        };
        let t0 = Instant::now();
        let counts: Vec<u8> = if g.max_players - g.min_players <= 2 {
            (g.min_players..=g.max_players).collect()
        } else {
            vec![g.min_players, g.max_players]
        };
        let mut runs: Vec<(u8, Option<String>)> = counts.iter().map(|p| (*p, None)).collect();
        if a.variants {
            runs.extend((g.variants.iter()).map(|v| (g.min_players, Some(v.name.clone()))));
        }
        let mut tally = Tally::default();
        for (players, variant) in runs {
            for seed in a.from..a.from + a.games {
                let cfg = Config {
                    players,
                    variant: variant.clone(),
                    seed,
                    chance: ChanceMode::Seeded,
                    fuel: None,
                    set: Vec::new(),
                };
                if let Err(d) = play(&g, &cfg, a.cap, &mut tally) {
                    diffs.push(format!("{path}: {d}"));
                    break;
                }
            }
        }
        println!("{path}: {tally} [{:.1} s]", t0.elapsed().as_secs_f64());
        total.add(&tally);
    }
    println!("all: {total} in {:.1} s", start.elapsed().as_secs_f64());
    for d in &diffs {
        println!("\nDIFFERENCE {d}");
    }
    if !diffs.is_empty() {
        std::process::exit(1);
    }
}
