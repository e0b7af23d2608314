//! The compiler's back ends side by side (issue 36, step 3): every lowered guard part of a
//! rules file, in the states of a seeded game, evaluated by the reference evaluator (a tree
//! walk), the low-level IR's register interpreter and its native code (Cranelift), after the
//! passes; and what building each form costs.
//!
//!     cargo run --release --example lir_speed -- [--cap 60] [--reps 20] [FILE...]
//!     cargo run --release --example lir_speed -- --emit target/lirgen/gen.rs FILE
//!     cargo run --release --features lirgen --example lir_speed -- FILE
//!
//! The second writes Rust source for FILE's parts (`rulebook::lir::rust`); the third, built
//! with that source, times it too (the same FILE, for the functions are in its order):
//! `benches/lir_backends.sh` does all three and times the build.
//!
//! By default every rules file under `rules/` and `rules/classic/`. It prints per file the
//! guard parts lowered, the evaluations timed, nanoseconds per evaluation for each evaluator,
//! the native code's speed over the interpreter's, and the microseconds spent lowering (with
//! the passes) and compiling; then, for the decisions whose every option is an action with a
//! compiled enumerator, the nanoseconds per listing of the engine (listed again, its
//! remembered answers applying) and of the enumerators; then the geometric means. The
//! evaluators' results are checked equal on the way, the listings' numbers of options too.

use rulebook::engine::{ChanceMode, Config};
use rulebook::reference::lir::{emit_rust, timing};

/// With the feature `lirgen`, the module `--emit` wrote (for the one file then named).
#[cfg(feature = "lirgen")]
mod gen {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/target/lirgen/gen.rs"));
}

#[cfg(feature = "lirgen")]
fn generated() -> Option<&'static [rulebook::lir::rust::Generated]> {
    Some(gen::FUNCS)
}

#[cfg(not(feature = "lirgen"))]
fn generated() -> Option<&'static [rulebook::lir::rust::Generated]> {
    None
}

fn main() {
    let mut cap = 60;
    let mut reps = 20;
    let mut files = vec![];
    let mut emit = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--cap" => cap = args.next().and_then(|n| n.parse().ok()).expect("--cap N"),
            "--reps" => reps = args.next().and_then(|n| n.parse().ok()).expect("--reps N"),
            "--emit" => emit = Some(args.next().expect("--emit FILE")),
            f => files.push(f.to_string()),
        }
    }
    if files.is_empty() {
        for dir in ["rules", "rules/classic"] {
            for e in std::fs::read_dir(dir).expect("rules directory").flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "rules") {
                    files.push(p.display().to_string());
                }
            }
        }
        files.sort();
    }
    println!(
        "{:<34} {:>5} {:>6} {:>9} {:>9} {:>9} {:>9} {:>7} {:>9} {:>9}",
        "file",
        "parts",
        "insts",
        "evals",
        "ref ns",
        "interp ns",
        "native ns",
        "x interp",
        "lower us",
        "jit us"
    );
    let gen_col = generated().is_some();
    let (mut logs, mut n) = ((0f64, 0f64), 0);
    let (mut lower, mut jit) = (0u64, 0u64);
    let (mut list_logs, mut list_n) = (0f64, 0);
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        let Some(g) = rulebook::load(path, &text).game else {
            println!("{path}: does not check");
            continue;
        };
        let cfg = Config {
            players: g.min_players.max(2).min(g.max_players),
            variant: None,
            seed: 1,
            chance: ChanceMode::Seeded,
            fuel: None,
            set: vec![],
        };
        if let Some(out) = &emit {
            let src = emit_rust(&g, &cfg).expect("lowers");
            std::fs::write(out, src).expect("writable");
            println!("{path}: Rust source written to {out}");
            return;
        }
        let t = match timing(&g, &cfg, cap, reps, generated()) {
            Ok(t) => t,
            Err(e) => {
                println!("{path}: {e}");
                std::process::exit(1);
            }
        };
        if t.evals == 0 {
            continue;
        }
        let per = |ns: u64| ns as f64 / t.evals as f64;
        let name = path.rsplit('/').next().unwrap_or(path);
        println!(
            "{:<34} {:>5} {:>6} {:>9} {:>9.1} {:>9.1} {:>9.1} {:>7.2} {:>9} {:>9}",
            name,
            t.parts,
            t.insts,
            t.evals,
            per(t.reference_ns),
            per(t.interp_ns),
            per(t.native_ns),
            t.interp_ns as f64 / t.native_ns.max(1) as f64,
            t.lower_us,
            t.compile_us
        );
        if t.listings > 0 {
            let per = |ns: u64| ns as f64 / t.listings as f64;
            println!(
                "{:<34} listings: {} ({:.1} options each): engine {:.0} ns, enumerator interpreted {:.0} ns, native {:.0} ns ({:.2}x the engine)",
                "",
                t.listings,
                t.options as f64 / t.listings as f64,
                per(t.list_engine_ns),
                per(t.list_interp_ns),
                per(t.list_native_ns),
                t.list_engine_ns as f64 / t.list_native_ns.max(1) as f64
            );
            list_logs += (t.list_engine_ns as f64 / t.list_native_ns.max(1) as f64).ln();
            list_n += 1;
        }
        if gen_col {
            println!(
                "{:<34} generated Rust: {:.1} ns per evaluation, {:.2}x the interpreter, {:.2}x the native code",
                "",
                per(t.generated_ns),
                t.interp_ns as f64 / t.generated_ns.max(1) as f64,
                t.native_ns as f64 / t.generated_ns.max(1) as f64
            );
        }
        logs.0 += (t.reference_ns as f64 / t.native_ns.max(1) as f64).ln();
        logs.1 += (t.interp_ns as f64 / t.native_ns.max(1) as f64).ln();
        n += 1;
        lower += t.lower_us;
        jit += t.compile_us;
    }
    if n > 0 {
        println!(
            "{n} files: native code {:.2}x the reference, {:.2}x the interpreter (geometric means); lowering {:.1} ms, compiling {:.1} ms in all",
            (logs.0 / n as f64).exp(),
            (logs.1 / n as f64).exp(),
            lower as f64 / 1000.0,
            jit as f64 / 1000.0
        );
    }
    if list_n > 0 {
        println!(
            "{list_n} files with listings all enumerated: native enumerators {:.2}x the engine's listing (geometric mean)",
            (list_logs / list_n as f64).exp()
        );
    }
}
