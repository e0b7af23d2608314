//! `simulate`: many seeded games, played by random players or by the agents given, and
//! summarised: wins with their confidence intervals, the spread of the scores, game length.

use super::{agent_seed, game_seed, in_threads, playout_within, seat_seed, Seats};
use crate::agents::{Agent, AgentSpec, RandomAgent};
use crate::engine::{Action, Config, Outcome, RunError, State};
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
    /// The agent of each seat, as named on the command line (`random`, `mcts:2000`).
    pub agents: Vec<String>,
    /// Per completed game, in game order: each seat's final score.
    pub scores: Vec<Vec<i64>>,
    /// The figures of the run (rates, spreads), computed once when the run ends.
    pub figures: Figures,
}

/// The figures of a run, computed once from its games ([`Figures::of`]), for a report to
/// show or compare between variants.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures {
    /// Per seat: its wins and score.
    pub seats: Vec<SeatFigures>,
    /// Player decisions per completed game.
    pub length: Spread,
    /// The share of completed games without a winner (draws, games everybody lost).
    pub no_winner: Rate,
}

/// One seat's figures over the completed games.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeatFigures {
    /// The share of completed games the seat won (a shared win counts for each winner).
    pub win_rate: Rate,
    /// Its final scores.
    pub score: Spread,
}

/// A proportion with its 95% confidence interval (Wilson score interval).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rate {
    /// Successes.
    pub count: u64,
    /// Trials.
    pub of: u64,
    /// `count / of` (0 without trials).
    pub rate: f64,
    /// The interval's lower end.
    pub low: f64,
    /// The interval's upper end.
    pub high: f64,
}

impl Rate {
    /// `count` out of `of`, with the Wilson interval at 95% (z = 1.96); `[0, 1]` without
    /// trials.
    pub fn wilson(count: u64, of: u64) -> Rate {
        if of == 0 {
            return Rate {
                count,
                of,
                rate: 0.0,
                low: 0.0,
                high: 1.0,
            };
        }
        let z = 1.959_963_984_540_054_f64;
        let n = of as f64;
        let p = count as f64 / n;
        let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
        let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
        Rate {
            count,
            of,
            rate: p,
            low: (centre - half).max(0.0),
            high: (centre + half).min(1.0),
        }
    }
}

/// Mean, standard deviation (of the sample, n − 1), least and greatest of some numbers;
/// all 0 for none.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spread {
    /// The mean.
    pub mean: f64,
    /// The sample standard deviation (0 for fewer than two numbers).
    pub sd: f64,
    /// The least.
    pub min: i64,
    /// The greatest.
    pub max: i64,
}

impl Spread {
    /// The spread of `xs`.
    pub fn of(xs: impl IntoIterator<Item = i64>) -> Spread {
        let xs: Vec<i64> = xs.into_iter().collect();
        if xs.is_empty() {
            return Spread::default();
        }
        let n = xs.len() as f64;
        let mean = xs.iter().map(|&x| x as f64).sum::<f64>() / n;
        let var = if xs.len() > 1 {
            xs.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        Spread {
            mean,
            sd: var.sqrt(),
            min: xs.iter().copied().min().unwrap_or(0),
            max: xs.iter().copied().max().unwrap_or(0),
        }
    }
}

impl Figures {
    /// The figures of a summary's games.
    pub fn of(s: &Summary) -> Figures {
        let n = s.wins.len();
        Figures {
            seats: (0..n)
                .map(|p| SeatFigures {
                    win_rate: Rate::wilson(s.wins[p], s.completed),
                    score: Spread::of(s.scores.iter().map(|g| g[p])),
                })
                .collect(),
            length: Spread::of(s.turns.iter().map(|&t| t as i64)),
            no_winner: Rate::wilson(s.draws, s.completed),
        }
    }
}

impl Summary {
    fn never_legal(&self, g: &Game) -> Vec<String> {
        g.actions
            .iter()
            .enumerate()
            .filter(|(i, a)| a.offered && !self.ever_legal[*i])
            .map(|(_, a)| a.name.clone())
            .collect()
    }

    /// The summary as one line of JSON: games, completed, errors, the agents, turns (mean,
    /// sd, min, max), wins, win rates with their 95% intervals, scores (mean, sd, min, max
    /// per seat, and the number of games where every seat scored 0), games without a winner,
    /// and the offered actions that were never legal.
    pub fn json(&self, g: &Game) -> String {
        let f = &self.figures;
        let rate = |r: &Rate| serde_json::json!({"rate": round3(r.rate), "low": round3(r.low), "high": round3(r.high)});
        let per_seat = |x: &dyn Fn(&SeatFigures) -> serde_json::Value| {
            f.seats.iter().map(x).collect::<Vec<_>>()
        };
        serde_json::json!({
            "games": self.games,
            "completed": self.completed,
            "errors": self.errors,
            "unfinished": self.unfinished,
            "agents": self.agents,
            "turns": {
                "mean": round2(f.length.mean),
                "sd": round2(f.length.sd),
                "min": f.length.min,
                "max": f.length.max,
            },
            "wins": self.wins,
            "win_rate": per_seat(&|s| rate(&s.win_rate)),
            "no_winner": rate(&f.no_winner),
            "scores": {
                "mean": per_seat(&|s| round2(s.score.mean).into()),
                "sd": per_seat(&|s| round2(s.score.sd).into()),
                "min": per_seat(&|s| s.score.min.into()),
                "max": per_seat(&|s| s.score.max.into()),
                "all_zero": self.scores.iter().filter(|g| g.iter().all(|&x| x == 0)).count(),
            },
            "never_legal": self.never_legal(g),
        })
        .to_string()
    }

    /// The summary as aligned text lines, as `rulebook simulate` prints it.
    pub fn text(&self, g: &Game) -> String {
        let f = &self.figures;
        let seats = |v: Vec<String>| {
            v.iter()
                .enumerate()
                .map(|(i, x)| format!("p{} {x}", i + 1))
                .collect::<Vec<_>>()
                .join("  ")
        };
        let pct = |r: &Rate| {
            format!(
                "{:.1}% [{:.1}, {:.1}]",
                100.0 * r.rate,
                100.0 * r.low,
                100.0 * r.high
            )
        };
        let mut s = String::new();
        s += &format!("game       {}\n", g.name);
        s += &format!("agents     {}\n", seats(self.agents.clone()));
        s += &format!("games      {}\n", self.games);
        s += &format!("completed  {}\n", self.completed);
        s += &format!("errors     {}\n", self.errors);
        if let Some(e) = &self.first_error {
            s += &format!("           first error: {e}\n");
        }
        if self.unfinished > 0 {
            s += &format!("unfinished {}  (stopped by --max-turns)\n", self.unfinished);
        }
        let l = &f.length;
        s += &format!(
            "turns      mean {:.1}  sd {:.1}  min {}  max {}\n",
            l.mean, l.sd, l.min, l.max
        );
        s += &format!(
            "wins       {}  (no winner: {})\n",
            seats(self.wins.iter().map(|w| w.to_string()).collect()),
            self.draws
        );
        s += &format!(
            "win rate   {}  (95% Wilson intervals; no winner {})\n",
            seats(f.seats.iter().map(|x| pct(&x.win_rate)).collect()),
            pct(&f.no_winner)
        );
        s += &format!(
            "scores     {}\n",
            seats(
                f.seats
                    .iter()
                    .map(|x| format!("{:.2}", x.score.mean))
                    .collect()
            )
        );
        s += &format!(
            "spread     {}\n",
            seats(
                f.seats
                    .iter()
                    .map(|x| format!(
                        "sd {:.2} min {} max {}",
                        x.score.sd, x.score.min, x.score.max
                    ))
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
                self.scores.push(o.scores.clone());
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

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
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

/// Plays game `i` of the run: seed [`game_seed`]`(cfg.seed, i)`. When every seat is random,
/// one [`RandomAgent`] seeded with [`agent_seed`] of it plays every seat; otherwise each seat
/// gets its agent seeded with [`seat_seed`], and chance (external only) a random agent.
fn run_one(
    g: &Game,
    cfg: &Config,
    i: u64,
    agents: &[AgentSpec],
    max_turns: u64,
    buf: &mut Vec<Action>,
) -> GameRun {
    let seed = game_seed(cfg.seed, i);
    let c = Config {
        seed,
        ..cfg.clone()
    };
    let mut ever_legal = vec![false; g.actions.len()];
    let mut observe = |st: &State, legal: &[Action]| {
        for a in legal {
            if let Some(ai) = action_decl(g, st, a) {
                ever_legal[ai.0 as usize] = true;
            }
        }
    };
    let result = g
        .start(&c)
        .and_then(|mut st| {
            let mut random = RandomAgent::new(agent_seed(seed));
            let p = if agents.iter().all(AgentSpec::is_random) {
                playout_within(
                    g,
                    &mut st,
                    &mut Seats::One(&mut random),
                    buf,
                    max_turns,
                    &mut observe,
                )?
            } else {
                let mut built: Vec<Box<dyn Agent + Send>> = agents
                    .iter()
                    .enumerate()
                    .map(|(p, a)| a.build(seat_seed(seed, p as u8)))
                    .collect();
                let seats = built
                    .iter_mut()
                    .map(|a| &mut **a as &mut dyn Agent)
                    .collect();
                let mut seats = Seats::Each {
                    seats,
                    chance: &mut random,
                };
                playout_within(g, &mut st, &mut seats, buf, max_turns, &mut observe)?
            };
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
    let random = vec![AgentSpec::Random; n];
    run_games(g, cfg, games, progress, threads, &random, max_turns)
}

/// [`simulate_threads`] with the agents given: one for every seat, or one per seat in seat
/// order. Games are spread over the threads (each agent searches on the threads its own
/// configuration says); the summary is the same for any number of threads, unless an agent
/// searches for a time. An error when the number of agents fits neither.
pub fn simulate_agents(
    g: &Game,
    cfg: &Config,
    games: u64,
    progress: bool,
    threads: usize,
    agents: &[AgentSpec],
) -> Result<Summary, RunError> {
    simulate_agents_within(g, cfg, games, progress, threads, agents, None)
}

/// [`simulate_agents`] with the harness limit of [`simulate_within`].
pub fn simulate_agents_within(
    g: &Game,
    cfg: &Config,
    games: u64,
    progress: bool,
    threads: usize,
    agents: &[AgentSpec],
    max_turns: Option<u64>,
) -> Result<Summary, RunError> {
    let n = cfg.players as usize;
    let agents = match agents.len() {
        0 => vec![AgentSpec::Random; n],
        1 => vec![agents[0].clone(); n],
        k if k == n => agents.to_vec(),
        k => {
            return Err(RunError::config(format!(
                "{k} agents for {n} players: give one agent for every seat, or one per seat"
            )))
        }
    };
    Ok(run_games(
        g,
        cfg,
        games,
        progress,
        threads,
        &agents,
        max_turns.unwrap_or(u64::MAX),
    ))
}

/// Plays the games of a run with one agent per seat.
fn run_games(
    g: &Game,
    cfg: &Config,
    games: u64,
    progress: bool,
    threads: usize,
    agents: &[AgentSpec],
    max_turns: u64,
) -> Summary {
    let n = cfg.players as usize;
    let threads = threads.max(1);
    let done = std::sync::atomic::AtomicU64::new(0);
    let start = std::time::Instant::now();
    // Searching agents take long: show every game.
    let every = if agents.iter().all(AgentSpec::is_random) {
        500
    } else {
        1
    };
    let parts = in_threads(threads, |t| {
        let mut buf = Vec::new();
        let mut out = Vec::new();
        let mut i = t as u64;
        while i < games {
            out.push((i, run_one(g, cfg, i, agents, max_turns, &mut buf)));
            let k = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            if progress && k % every == 0 {
                eprint!("\r{k}/{games} games, {:.1}s", start.elapsed().as_secs_f64());
            }
            i += threads as u64;
        }
        out
    });
    if progress && games >= every {
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
        agents: agents.iter().map(|a| a.to_string()).collect(),
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
    s.figures = Figures::of(&s);
    s
}
