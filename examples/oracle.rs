//! The long run of the differential test (`tests/oracle.rs`): the engine against its oracle,
//! `rulebook::reference`, on many seeded random games of every rules file.
//!
//!     cargo run --release --example oracle -- --games 200 [--from 1] [--cap 1000] [--variants] [--external] [FILE...]
//!     cargo run --release --example oracle -- --mutants 2000 [--seed 1]
//!
//! For each rules file (by default every one under `rules/`, `rules/classic/`,
//! `tests/constructs/`, `tests/reference/` and `tests/seen/`; else the files named), and for
//! every player count it takes (its smallest and largest when there are more than three),
//! it plays `--games` games with the seeds `--from`, `--from + 1`, ..., each at most `--cap`
//! decisions, and compares every decision's legal list with the reference's (texts and
//! values, in order), each listed option with the reference's guard, and each finished
//! game's scores and winners. With `--variants`, each variant of the file is played too (at
//! its smallest player count). With `--external`, chance is external: every roll and shuffle
//! waits for an outcome, and each chance event's outcomes and weights are compared too. It
//! prints per file the decisions compared and skipped (by
//! kind) and the games stopped by an error, then every difference found (the first per file
//! and variant), and exits with status 1 when there is one.
//!
//! With `--mutants N`, it makes N seeded token-level mutants of the corpus instead (the
//! fuzzer's `fuzz/mutate.rs`: numbers, names and tokens changed) and plays two short games
//! (200 decisions at most) of each one that checks, at its smallest player count, each in a
//! thread of its own: a difference is written with its mutant to
//! `target/oracle/mutant-K.rules` (and `.txt`); a panic (the engine's or the reference's) is
//! reported as such, a finding for the fuzzer.

#[allow(dead_code)]
#[path = "fuzz/mutate.rs"]
mod mutate;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
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
    external: bool,
    mutants: u64,
    seed: u64,
    files: Vec<String>,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        games: 20,
        from: 1,
        cap: 1000,
        variants: false,
        external: false,
        mutants: 0,
        seed: 1,
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
            "--external" => a.external = true,
            "--mutants" => a.mutants = num("--mutants")?,
            "--seed" => a.seed = num("--seed")?,
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
    if a.mutants > 0 {
        mutants(&a);
        return;
    }
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
                    chance: if a.external {
                        ChanceMode::External
                    } else {
                        ChanceMode::Seeded
                    },
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

/// `--mutants N`: mutants of the corpus that check, each played twice and compared.
fn mutants(a: &Args) {
    let start = Instant::now();
    let corpus = mutate::Corpus::load(std::path::Path::new("."));
    let mut rng = ChaCha8Rng::seed_from_u64(a.seed);
    let (mut checked, mut found, mut panics) = (0u64, 0u64, 0u64);
    let mut total = Tally::default();
    let out = std::path::Path::new("target/oracle");
    for k in 0..a.mutants {
        let (text, what) = mutate::mutant(&mut rng, &corpus);
        let Some(g) = rulebook::load("mutant.rules", &text).game else {
            continue;
        };
        checked += 1;
        let seed = a.seed;
        let played = std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || {
                let mut tally = Tally::default();
                for s in [seed, seed + 1] {
                    let cfg = Config {
                        players: g.min_players,
                        variant: None,
                        seed: s,
                        chance: ChanceMode::Seeded,
                        fuel: None,
                        set: Vec::new(),
                    };
                    play(&g, &cfg, 200, &mut tally).map_err(|d| d.to_string())?;
                }
                Ok::<Tally, String>(tally)
            })
            .map(|h| h.join());
        let report = match played {
            Ok(Ok(Ok(tally))) => {
                total.add(&tally);
                None
            }
            Ok(Ok(Err(d))) => {
                found += 1;
                Some(format!("DIFFERENCE ({what}): {d}"))
            }
            Ok(Err(_)) | Err(_) => {
                panics += 1;
                Some(format!("PANIC ({what})"))
            }
        };
        if let Some(r) = report {
            println!("mutant {k}: {r}");
            let _ = std::fs::create_dir_all(out);
            let _ = std::fs::write(out.join(format!("mutant-{k}.rules")), &text);
            let _ = std::fs::write(out.join(format!("mutant-{k}.txt")), &r);
        }
    }
    println!(
        "{} mutants, {checked} checked: {total}; {found} differences, {panics} panics, in {:.1} s",
        a.mutants,
        start.elapsed().as_secs_f64()
    );
    if found > 0 {
        std::process::exit(1);
    }
}
