//! `rulebook bench`: the arguments and the printing of [`crate::run::bench`]. A warm-up (a
//! tenth of the time) runs first and is not counted; the measured games then start again at
//! game 0.

use super::GameArgs;
use crate::run::bench::{peak_memory_kb, playouts_for};
use clap::Args;
use std::time::Duration;

/// The longest `bench` measures: a day.
const MAX_SECONDS: f64 = 86_400.0;

#[derive(Args)]
pub(crate) struct BenchArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Seconds of measured play (after a warm-up of a tenth of that), at most a day.
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// Print the figures as one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `bench` from the command line. Returns the exit code.
pub(crate) fn run(args: &BenchArgs) -> miette::Result<i32> {
    if !(args.seconds.is_finite() && args.seconds > 0.0 && args.seconds <= MAX_SECONDS) {
        return Err(miette::miette!(
            "--seconds must be a positive number of at most {MAX_SECONDS} (a day), not {}",
            args.seconds
        ));
    }
    let (g, cfg) = args.game.load()?;
    let time = Duration::from_secs_f64(args.seconds);
    let total = time + time / 10;
    let bar = super::progress::bar(total.as_millis() as u64, "ms", false);
    let done = std::sync::atomic::AtomicBool::new(false);
    let result = std::thread::scope(|scope| {
        if let Some(bar) = &bar {
            // The bar moves with the clock (the run's length is known), from a thread that
            // wakes ten times a second, so the measured loop is not touched.
            let start = std::time::Instant::now();
            let done = &done;
            scope.spawn(move || {
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    bar.set_position((start.elapsed().min(total)).as_millis() as u64);
                    std::thread::sleep(Duration::from_millis(100));
                }
            });
        }
        let r = playouts_for(&g, &cfg, time / 10).and_then(|_| playouts_for(&g, &cfg, time));
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        r
    });
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let mut b = result.map_err(|e| super::report(&g, e))?;
    b.peak_memory_kb = peak_memory_kb();
    if args.json {
        let json = serde_json::json!({
                "game": g.name,
                "games": b.games,
                "seconds": round(b.elapsed.as_secs_f64(), 3),
                "playouts_per_sec": round(b.playouts_per_sec(), 1),
                "decisions_per_sec": round(b.decisions_per_sec(), 1),
                "decisions_per_game": round(b.decisions_per_game(), 2),
                "peak_memory_kb": b.peak_memory_kb,
                "cpu_share": b.cpu_share().map(|x| round(x, 3)),
        });
        println!("{}", super::json_safe(&json.to_string()));
    } else {
        sayln!("game            {}", g.name);
        println!(
            "games           {} in {:.2} s (one core, after a {:.2} s warm-up)",
            b.games,
            b.elapsed.as_secs_f64(),
            (time / 10).as_secs_f64()
        );
        println!("playouts/s      {:.0}", b.playouts_per_sec());
        println!("decisions/s     {:.0}", b.decisions_per_sec());
        println!("decisions/game  {:.2}", b.decisions_per_game());
        println!(
            "peak memory     {}",
            b.peak_memory_kb
                .map_or_else(|| "n/a".to_string(), |k| format!("{k} kB"))
        );
        println!(
            "cpu share       {}",
            b.cpu_share().map_or_else(
                || "n/a".to_string(),
                |x| format!("{x:.3} (time on the CPU / wall time; below 1, the core was shared)")
            )
        );
    }
    Ok(0)
}

fn round(x: f64, digits: i32) -> f64 {
    let k = 10f64.powi(digits);
    (x * k).round() / k
}
