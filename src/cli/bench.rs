//! `rulebook bench`: random playouts on one core for a fixed time, to measure the interpreter.
//!
//! Game `i` of a run is started with seed `game_seed(seed, i)` and played by a
//! [`RandomAgent`] seeded from it, exactly as `simulate` does, so the games played are the
//! same on every run; only how many of them fit in the time changes. A warm-up (a tenth of
//! the time) runs first and is not counted; the measured games then start again at game 0.

use super::{config, game_seed, load_game};
use crate::agents::{random_playout, RandomAgent};
use crate::engine::{Action, Config};
use crate::ir::Game;
use clap::Args;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Decisions after which a playout is stopped as endless.
const MAX_DECISIONS: u64 = 1_000_000;

#[derive(Args)]
pub(crate) struct BenchArgs {
    file: PathBuf,
    #[arg(long)]
    players: Option<u8>,
    #[arg(long)]
    variant: Option<String>,
    /// Seconds of measured play (after a warm-up of a tenth of that).
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print the figures as one JSON object.
    #[arg(long)]
    json: bool,
}

/// The figures of one measured run.
pub struct Bench {
    pub games: u64,
    pub decisions: u64,
    pub elapsed: Duration,
    /// Time on the CPU during the run (from /proc/self/schedstat), where the system tells it.
    pub on_cpu: Option<Duration>,
    /// The process's peak resident memory (VmHWM), in kB, where the system tells it.
    pub peak_memory_kb: Option<u64>,
}

impl Bench {
    pub fn playouts_per_sec(&self) -> f64 {
        self.games as f64 / self.elapsed.as_secs_f64()
    }
    pub fn decisions_per_sec(&self) -> f64 {
        self.decisions as f64 / self.elapsed.as_secs_f64()
    }
    /// On-CPU time over wall time: below 1, other processes took the core for a while and
    /// the per-second figures understate the interpreter.
    pub fn cpu_share(&self) -> Option<f64> {
        self.on_cpu
            .map(|c| c.as_secs_f64() / self.elapsed.as_secs_f64())
    }
    pub fn decisions_per_game(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.decisions as f64 / self.games as f64
        }
    }
}

/// Runs `bench` from the command line. Returns the exit code.
pub(crate) fn run(args: &BenchArgs) -> miette::Result<i32> {
    if !(args.seconds.is_finite() && args.seconds > 0.0) {
        return Err(miette::miette!(
            "--seconds must be a positive number, not {}",
            args.seconds
        ));
    }
    let g = load_game(&args.file)?;
    let cfg = config(&g, args.players, args.variant.clone(), args.seed)?;
    let time = Duration::from_secs_f64(args.seconds);
    playouts_for(&g, &cfg, time / 10).map_err(|e| super::report(&g, e))?;
    let mut b = playouts_for(&g, &cfg, time).map_err(|e| super::report(&g, e))?;
    b.peak_memory_kb = peak_memory_kb();
    if args.json {
        println!(
            "{}",
            serde_json::json!({
                "game": g.name,
                "games": b.games,
                "seconds": round(b.elapsed.as_secs_f64(), 3),
                "playouts_per_sec": round(b.playouts_per_sec(), 1),
                "decisions_per_sec": round(b.decisions_per_sec(), 1),
                "decisions_per_game": round(b.decisions_per_game(), 2),
                "peak_memory_kb": b.peak_memory_kb,
                "cpu_share": b.cpu_share().map(|x| round(x, 3)),
            })
        );
    } else {
        println!("game            {}", g.name);
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

/// Plays games 0, 1, 2, ... of the seeded sequence until `time` has passed.
pub fn playouts_for(
    g: &Game,
    cfg: &Config,
    time: Duration,
) -> Result<Bench, crate::engine::RunError> {
    let mut buf: Vec<Action> = Vec::with_capacity(64);
    let mut c = cfg.clone();
    let (mut games, mut decisions) = (0u64, 0u64);
    let cpu_start = on_cpu();
    let start = Instant::now();
    loop {
        let elapsed = start.elapsed();
        if elapsed >= time {
            let on_cpu = match (cpu_start, on_cpu()) {
                (Some(a), Some(b)) => b.checked_sub(a),
                _ => None,
            };
            return Ok(Bench {
                games,
                decisions,
                elapsed,
                on_cpu,
                peak_memory_kb: None,
            });
        }
        let seed = game_seed(cfg.seed, games);
        c.seed = seed;
        let mut agent = RandomAgent::new(seed ^ 0x5EED);
        let mut st = g.start(&c)?;
        decisions += random_playout(g, &mut st, &mut agent, &mut buf, MAX_DECISIONS)?;
        games += 1;
    }
}

/// The peak resident set size of this process (VmHWM in /proc/self/status), in kB.
pub fn peak_memory_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Time this thread has spent on a CPU (the first field of /proc/thread-self/schedstat, in ns).
fn on_cpu() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(Duration::from_nanos(
        s.split_whitespace().next()?.parse().ok()?,
    ))
}

fn round(x: f64, digits: i32) -> f64 {
    let k = 10f64.powi(digits);
    (x * k).round() / k
}
