//! `simulate`: many seeded random games, summarised.

use super::{agent_seed, game_seed, in_threads, playout_within, Seats};
use crate::agents::RandomAgent;
use crate::engine::{Action, Config, Outcome, State};
use crate::ir::{ActionId, Arm, Game};

/// The figures of a simulation run.
#[derive(Default)]
pub struct Summary {
    /// Games played.
    pub games: u64,
    /// Games that reached an outcome.
    pub completed: u64,
    /// Games stopped, without an error, when they reached the harness's `--max-turns` before
    /// their end (neither completed nor errors).
    pub unfinished: u64,
    /// Games stopped by a run error (a rule failed, no legal action, or no end within
    /// [`super::MAX_DECISIONS`] decisions).
    pub errors: u64,
    /// The error of the first failed game in game order, with its game number and seed.
    pub first_error: Option<String>,
    /// Per completed game, in game order: the number of player decisions (chance's not
    /// counted).
    pub turns: Vec<u64>,
    /// Per seat: the completed games that seat won (a shared win counts for each winner).
    pub wins: Vec<u64>,
    /// Completed games with no winner (draws, and games everybody lost).
    pub draws: u64,
    /// Per seat: the sum of its final scores over the completed games.
    pub score_sums: Vec<i64>,
    /// Per action declaration ([`Game::actions`]): whether it was ever among the legal
    /// actions.
    pub ever_legal: Vec<bool>,
}

impl Summary {
    fn turn_stats(&self) -> (f64, u64, u64) {
        if self.turns.is_empty() {
            return (0.0, 0, 0);
        }
        let sum: u64 = self.turns.iter().sum();
        (
            sum as f64 / self.turns.len() as f64,
            *self.turns.iter().min().unwrap_or(&0),
            *self.turns.iter().max().unwrap_or(&0),
        )
    }

    fn mean_scores(&self) -> Vec<f64> {
        self.score_sums
            .iter()
            .map(|s| {
                if self.completed == 0 {
                    0.0
                } else {
                    *s as f64 / self.completed as f64
                }
            })
            .collect()
    }

    fn never_legal(&self, g: &Game) -> Vec<String> {
        g.actions
            .iter()
            .enumerate()
            .filter(|(i, a)| a.offered && !self.ever_legal[*i])
            .map(|(_, a)| a.name.clone())
            .collect()
    }

    /// The summary as one line of JSON: games, completed, errors, turns (mean, min, max),
    /// wins, mean scores and the offered actions that were never legal.
    pub fn json(&self, g: &Game) -> String {
        let (mean, min, max) = self.turn_stats();
        serde_json::json!({
            "games": self.games,
            "completed": self.completed,
            "errors": self.errors,
            "unfinished": self.unfinished,
            "turns": {"mean": round2(mean), "min": min, "max": max},
            "wins": self.wins,
            "scores": {"mean": self.mean_scores().iter().map(|s| round2(*s)).collect::<Vec<_>>()},
            "never_legal": self.never_legal(g),
        })
        .to_string()
    }

    /// The summary as aligned text lines, as `rulebook simulate` prints it.
    pub fn text(&self, g: &Game) -> String {
        let (mean, min, max) = self.turn_stats();
        let seats = |v: Vec<String>| {
            v.iter()
                .enumerate()
                .map(|(i, x)| format!("p{} {x}", i + 1))
                .collect::<Vec<_>>()
                .join("  ")
        };
        let mut s = String::new();
        s += &format!("game       {}\n", g.name);
        s += &format!("games      {}\n", self.games);
        s += &format!("completed  {}\n", self.completed);
        s += &format!("errors     {}\n", self.errors);
        if let Some(e) = &self.first_error {
            s += &format!("           first error: {e}\n");
        }
        if self.unfinished > 0 {
            s += &format!("unfinished {}  (stopped by --max-turns)\n", self.unfinished);
        }
        s += &format!("turns      mean {mean:.1}  min {min}  max {max}\n");
        s += &format!(
            "wins       {}  (no winner: {})\n",
            seats(self.wins.iter().map(|w| w.to_string()).collect()),
            self.draws
        );
        s += &format!(
            "scores     {}\n",
            seats(
                self.mean_scores()
                    .iter()
                    .map(|m| format!("{m:.2}"))
                    .collect()
            )
        );
        let never = self.never_legal(g);
        s += &format!(
            "never legal {}\n",
            if never.is_empty() {
                "-".to_string()
            } else {
                never.join(", ")
            }
        );
        s
    }

    /// Adds one game's result (in game order).
    fn add(&mut self, r: GameRun) {
        for (k, e) in r.ever_legal.iter().enumerate() {
            self.ever_legal[k] |= *e;
        }
        match r.result {
            Ok(None) => self.unfinished += 1,
            Ok(Some((turns, o))) => {
                self.completed += 1;
                self.turns.push(turns);
                for (p, sc) in o.scores.iter().enumerate() {
                    self.score_sums[p] += sc;
                }
                for w in &o.winners {
                    self.wins[*w as usize] += 1;
                }
                if o.winners.is_empty() {
                    self.draws += 1;
                }
            }
            Err(e) => self.error(e),
        }
    }

    fn error(&mut self, e: String) {
        self.errors += 1;
        if self.first_error.is_none() {
            self.first_error = Some(e);
        }
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// The action declaration an action of the current choice comes from (`None` for an inline
/// option of a `choose`).
pub fn action_decl(g: &Game, st: &State, a: &Action) -> Option<ActionId> {
    let choice = g.waiting_choice(st)?;
    match g.choices[choice].arms.get(a.arm as usize)? {
        Arm::Action(ai) => Some(*ai),
        Arm::Inline { .. } => None,
    }
}

/// One simulated game: its player decisions and outcome (`None`: stopped unfinished by the
/// turn limit), or its error; the actions that were legal at some point.
struct GameRun {
    result: Result<Option<(u64, Outcome)>, String>,
    ever_legal: Vec<bool>,
}

/// Plays game `i` of the run: seed [`game_seed`]`(cfg.seed, i)`, one [`RandomAgent`] seeded
/// with [`agent_seed`] of it for every seat.
fn run_one(g: &Game, cfg: &Config, i: u64, max_turns: u64, buf: &mut Vec<Action>) -> GameRun {
    let seed = game_seed(cfg.seed, i);
    let c = Config {
        seed,
        ..cfg.clone()
    };
    let mut agent = RandomAgent::new(agent_seed(seed));
    let mut ever_legal = vec![false; g.actions.len()];
    let result = g
        .start(&c)
        .and_then(|mut st| {
            let mut seats = Seats::One(&mut agent);
            let p = playout_within(g, &mut st, &mut seats, buf, max_turns, |st, legal| {
                for a in legal {
                    if let Some(ai) = action_decl(g, st, a) {
                        ever_legal[ai.0 as usize] = true;
                    }
                }
            })?;
            Ok((p.turns, st.outcome().cloned()))
        })
        .map_err(|e| e.to_string())
        .and_then(|(turns, o)| match o {
            Some(o) => Ok(Some((turns, o))),
            None if turns >= max_turns => Ok(None),
            None => Err("the game stopped without an outcome".to_string()),
        })
        .map_err(|e| format!("game {i} (seed {seed}): {e}"));
    GameRun { result, ever_legal }
}

/// Plays `games` random games and summarises them. The same seed gives the same summary,
/// whatever the number of threads: game `i` always gets the same seed, and results are
/// gathered in game order.
pub fn simulate(g: &Game, cfg: &Config, games: u64, progress: bool) -> Summary {
    simulate_threads(g, cfg, games, progress, 1)
}

/// [`simulate`] on `threads` threads (each with a [`super::THREAD_STACK`] stack); with
/// `progress`, a count of the games played is written to stderr as they finish.
pub fn simulate_threads(
    g: &Game,
    cfg: &Config,
    games: u64,
    progress: bool,
    threads: usize,
) -> Summary {
    simulate_within(g, cfg, games, progress, threads, None)
}

/// [`simulate_threads`] with a harness limit: a game whose players have taken `max_turns`
/// decisions without reaching an end is stopped and counted as unfinished (not an error).
/// Rules need no safeguard of their own against endless play.
pub fn simulate_within(
    g: &Game,
    cfg: &Config,
    games: u64,
    progress: bool,
    threads: usize,
    max_turns: Option<u64>,
) -> Summary {
    let max_turns = max_turns.unwrap_or(u64::MAX);
    let n = cfg.players as usize;
    let threads = threads.max(1);
    let done = std::sync::atomic::AtomicU64::new(0);
    let start = std::time::Instant::now();
    let parts = in_threads(threads, |t| {
        let mut buf = Vec::new();
        let mut out = Vec::new();
        let mut i = t as u64;
        while i < games {
            out.push((i, run_one(g, cfg, i, max_turns, &mut buf)));
            let k = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            if progress && t == 0 && k % 500 == 0 {
                eprint!("\r{k}/{games} games, {:.1}s", start.elapsed().as_secs_f64());
            }
            i += threads as u64;
        }
        out
    });
    if progress && games >= 500 {
        eprintln!(
            "\r{games}/{games} games, {:.1}s",
            start.elapsed().as_secs_f64()
        );
    }
    let mut s = Summary {
        games,
        wins: vec![0; n],
        score_sums: vec![0; n],
        ever_legal: vec![false; g.actions.len()],
        ..Default::default()
    };
    let mut panicked = 0;
    let mut runs = Vec::new();
    for (t, part) in parts.into_iter().enumerate() {
        match part {
            Some(p) => runs.extend(p),
            // The games of a thread that panicked count as errors.
            None => panicked += (t as u64..games).step_by(threads).count() as u64,
        }
    }
    runs.sort_by_key(|r| r.0);
    for (_, r) in runs {
        s.add(r);
    }
    for _ in 0..panicked {
        s.error("a simulation thread panicked".into());
    }
    s
}
