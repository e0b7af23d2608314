//! `bench`: random playouts on one core for a fixed time, to measure the interpreter.
//!
//! Game `i` of a run is started with seed [`game_seed`]`(seed, i)` and played by a
//! [`RandomAgent`] seeded with [`agent_seed`] of it, exactly as `simulate` plays it, so the
//! games played are the same on every run; only how many of them fit in the time changes.

use super::{agent_seed, game_seed, playout, Seats};
use crate::agents::RandomAgent;
use crate::engine::{Action, Config, RunError, State};
use crate::ir::Game;
use std::time::{Duration, Instant};

/// The figures of one measured run.
#[derive(Clone, Debug)]
pub struct Bench {
    /// Playouts finished.
    pub games: u64,
    /// Decisions taken in them, players' and chance's.
    pub decisions: u64,
    /// Wall time of the run.
    pub elapsed: Duration,
    /// Time on the CPU during the run (from /proc/thread-self/schedstat), where the system
    /// tells it.
    pub on_cpu: Option<Duration>,
    /// The process's peak resident memory (VmHWM), in kB, where the system tells it.
    pub peak_memory_kb: Option<u64>,
}

impl Bench {
    /// Playouts per second of wall time.
    pub fn playouts_per_sec(&self) -> f64 {
        self.games as f64 / self.elapsed.as_secs_f64()
    }
    /// Decisions per second of wall time.
    pub fn decisions_per_sec(&self) -> f64 {
        self.decisions as f64 / self.elapsed.as_secs_f64()
    }
    /// On-CPU time over wall time: below 1, other processes took the core for a while and
    /// the per-second figures understate the interpreter.
    pub fn cpu_share(&self) -> Option<f64> {
        self.on_cpu
            .map(|c| c.as_secs_f64() / self.elapsed.as_secs_f64())
    }
    /// Decisions per playout.
    pub fn decisions_per_game(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.decisions as f64 / self.games as f64
        }
    }
}

/// Plays games 0, 1, 2, ... of the seeded sequence until `time` has passed.
pub fn playouts_for(g: &Game, cfg: &Config, time: Duration) -> Result<Bench, RunError> {
    let mut buf: Vec<Action> = Vec::with_capacity(64);
    // One state for every playout, each started into the room of the one before.
    let mut spare: Option<State> = None;
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
        let mut agent = RandomAgent::new(agent_seed(seed));
        let st = match &mut spare {
            Some(st) => {
                g.start_into(&c, st)?;
                st
            }
            None => spare.insert(g.start(&c)?),
        };
        let p = playout(g, st, &mut Seats::One(&mut agent), &mut buf, |_, _| {})?;
        decisions += p.decisions;
        games += 1;
    }
}

/// The peak resident set size of this process (VmHWM in /proc/self/status), in kB.
pub fn peak_memory_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Time this thread has spent on a CPU (the first field of /proc/thread-self/schedstat), where
/// the system tells it.
pub fn on_cpu() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(Duration::from_nanos(
        s.split_whitespace().next()?.parse().ok()?,
    ))
}
