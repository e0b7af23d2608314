//! `tune`: a search for values of a game's integer constants that meet goals on simulated
//! play ("the first player wins 45-55% of the games", "games last 30-60 turns").
//!
//! Every estimate is noisy, so the search spends games where they decide something:
//! 1. **Successive halving** (Jamieson and Talwalkar, 2016) over a seeded sample of the
//!    parameter space (the constants' own values first): every survivor plays a batch, the
//!    worse half by loss is dropped, the batch doubles, until one is left.
//! 2. **Local search** around the survivor, as the N-tuple bandit evolutionary algorithm of
//!    the TAG framework does in spirit: a neighbour (one or two parameters moved by up to a
//!    quarter of their range) plays as many games as the best so far has; it replaces it when
//!    its loss is lower; the best is played again in between so that its estimate sharpens.
//!
//! A candidate's **loss** is the sum, over the goals, of how far the metric's estimate lies
//! outside the goal's range, in units of that range's width (0 when every estimate is
//! inside); ties go to the candidate with more games. Estimates come with 95% intervals
//! (Wilson for rates, normal for means). Results depend only on the rules, the options and
//! the seed: evaluations are seeded by their number, and any number of threads plays the same
//! games ([`super::simulate_with`]).

use super::stats::{wilson, Moments, Z95};
use super::{simulate_with, Options, Summary};
use crate::agents::AgentSpec;
use crate::engine::{Config, RunError};
use crate::ir::{Game, Value};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The most parameters one search takes.
pub const MAX_PARAMS: usize = 16;
/// The most goals one search takes.
pub const MAX_GOALS: usize = 16;
/// The most candidates sampled for the first phase.
pub const MAX_SAMPLE: usize = 16;

/// A constant searched over the integers `lo..=hi`.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The constant's name.
    pub name: String,
    /// The least value tried.
    pub lo: i64,
    /// The greatest value tried.
    pub hi: i64,
}

impl Param {
    /// Reads `NAME=LO..HI`.
    pub fn parse(text: &str) -> Result<Param, String> {
        let bad = || format!("a parameter is NAME=LO..HI (such as TILES=8..14), not `{text}`");
        let (name, range) = text.split_once('=').ok_or_else(bad)?;
        let (lo, hi) = range.split_once("..").ok_or_else(bad)?;
        let (lo, hi): (i64, i64) = (
            lo.trim().parse().map_err(|_| bad())?,
            hi.trim().parse().map_err(|_| bad())?,
        );
        let name = name.trim();
        if name.is_empty() || lo > hi {
            return Err(bad());
        }
        Ok(Param {
            name: name.to_string(),
            lo,
            hi,
        })
    }

    /// How many values it takes (at least 1; saturating).
    fn width(&self) -> u64 {
        (self.hi as i128 - self.lo as i128 + 1).min(u64::MAX as i128) as u64
    }
}

/// What a goal measures, over the completed games of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// `win_rate(pK)`: the share of games seat K won.
    WinRate(u8),
    /// `no_winner`: the share of games without a winner.
    NoWinner,
    /// `first_player`: the share of games the player who moved first won.
    FirstPlayer,
    /// `turns.mean`: the mean number of player decisions per game.
    TurnsMean,
    /// `score.mean(pK)`: seat K's mean final score.
    ScoreMean(u8),
    /// `all_zero`: the share of games in which every score is 0.
    AllZero,
}

impl Metric {
    /// Reads a metric's name.
    pub fn parse(text: &str) -> Result<Metric, String> {
        let t = text.trim();
        let seat = |inner: &str| -> Result<u8, String> {
            inner
                .strip_prefix('p')
                .and_then(|n| n.parse::<u8>().ok())
                .filter(|n| (1..=8).contains(n))
                .map(|n| n - 1)
                .ok_or_else(|| format!("a seat is p1 .. p8, not `{inner}`"))
        };
        let call = |name: &str| {
            t.strip_prefix(name)
                .and_then(|r| r.strip_prefix('('))
                .and_then(|r| r.strip_suffix(')'))
        };
        Ok(match t {
            "no_winner" => Metric::NoWinner,
            "first_player" => Metric::FirstPlayer,
            "turns.mean" => Metric::TurnsMean,
            "all_zero" => Metric::AllZero,
            _ => {
                if let Some(s) = call("win_rate") {
                    Metric::WinRate(seat(s)?)
                } else if let Some(s) = call("score.mean") {
                    Metric::ScoreMean(seat(s)?)
                } else {
                    return Err(format!(
                        "unknown metric `{t}`: win_rate(pK), no_winner, first_player, \
                         turns.mean, score.mean(pK), all_zero"
                    ));
                }
            }
        })
    }

    /// Its name, as written in goals and printed in results.
    pub fn name(self) -> String {
        match self {
            Metric::WinRate(p) => format!("win_rate(p{})", p + 1),
            Metric::NoWinner => "no_winner".into(),
            Metric::FirstPlayer => "first_player".into(),
            Metric::TurnsMean => "turns.mean".into(),
            Metric::ScoreMean(p) => format!("score.mean(p{})", p + 1),
            Metric::AllZero => "all_zero".into(),
        }
    }

    /// The seat it names, if any.
    fn seat(self) -> Option<u8> {
        match self {
            Metric::WinRate(p) | Metric::ScoreMean(p) => Some(p),
            _ => None,
        }
    }

    /// Its estimate on a run.
    pub fn estimate(self, s: &Summary) -> Estimate {
        let rate = |r: super::stats::Rate| Estimate {
            value: r.rate,
            low: r.low,
            high: r.high,
            n: r.n,
        };
        let mean = |m: Moments| {
            let half = if m.n > 1 {
                Z95 * (m.var / m.n as f64).sqrt()
            } else {
                f64::INFINITY
            };
            Estimate {
                value: m.mean,
                low: m.mean - half,
                high: m.mean + half,
                n: m.n,
            }
        };
        match self {
            Metric::WinRate(p) => rate(wilson(
                s.wins.get(p as usize).copied().unwrap_or(0),
                s.completed,
            )),
            Metric::NoWinner => rate(s.draw_rate()),
            Metric::FirstPlayer => rate(s.first_player()),
            Metric::AllZero => rate(wilson(s.all_zero, s.completed)),
            Metric::TurnsMean => mean(s.length_moments()),
            Metric::ScoreMean(p) if (p as usize) < s.scores.len() => {
                mean(s.score_moments(p as usize))
            }
            Metric::ScoreMean(_) => mean(Moments::default()),
        }
    }
}

/// `METRIC in LO..HI`: the range a metric should fall in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Goal {
    /// What it measures.
    pub metric: Metric,
    /// The least value that meets it.
    pub lo: f64,
    /// The greatest value that meets it.
    pub hi: f64,
}

impl Goal {
    /// Reads `METRIC in LO..HI` (numbers may have decimals: `win_rate(p1) in 0.45..0.55`).
    pub fn parse(text: &str) -> Result<Goal, String> {
        let bad = || {
            format!("a goal is METRIC in LO..HI (such as `win_rate(p1) in 0.4..0.6`), not `{text}`")
        };
        let (metric, range) = text.split_once(" in ").ok_or_else(bad)?;
        let (lo, hi) = range.split_once("..").ok_or_else(bad)?;
        let (lo, hi): (f64, f64) = (
            lo.trim().parse().map_err(|_| bad())?,
            hi.trim().parse().map_err(|_| bad())?,
        );
        if !lo.is_finite() || !hi.is_finite() || lo > hi {
            return Err(bad());
        }
        Ok(Goal {
            metric: Metric::parse(metric)?,
            lo,
            hi,
        })
    }

    /// How far an estimate lies outside the range, in widths of the range (a range of one
    /// point counts as a width of 1% of its value, at least 0.01).
    fn miss(&self, e: &Estimate) -> f64 {
        if e.n == 0 {
            return 1e6; // nothing completed: as bad as it gets
        }
        let width = (self.hi - self.lo).max(0.01_f64.max(self.hi.abs() * 0.01));
        let out = if e.value < self.lo {
            self.lo - e.value
        } else if e.value > self.hi {
            e.value - self.hi
        } else {
            0.0
        };
        out / width
    }
}

/// A metric's estimate with its 95% interval over `n` observations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The estimate.
    pub value: f64,
    /// The interval's lower end.
    pub low: f64,
    /// The interval's upper end.
    pub high: f64,
    /// Observations (completed games).
    pub n: u64,
}

/// How to search.
#[derive(Clone, Copy)]
pub struct TuneOptions<'a> {
    /// Games per candidate in the first round (doubling each round).
    pub games: u64,
    /// The most games the whole search plays.
    pub budget: u64,
    /// Threads to play each batch on.
    pub threads: usize,
    /// The agents (one for all seats, or one per seat; none: random players).
    pub agents: &'a [AgentSpec],
    /// Stop a game after this many decisions (counted unfinished).
    pub max_turns: Option<u64>,
    /// Called with the games played so far after each batch.
    pub progress: Option<&'a (dyn Fn(u64) + Sync)>,
    /// With shards: this process's shard and where the shards meet ([`super::meet`]); each
    /// batch's games are split between them, and every shard gets the same result.
    pub meeting: Option<super::meet::Meeting<'a>>,
}

/// One candidate evaluated: the values of the parameters and what its games showed.
#[derive(Clone, Debug)]
pub struct Trial {
    /// Parameter values, in the order of the parameters.
    pub values: Vec<i64>,
    /// Games it played.
    pub games: u64,
    /// Each goal's estimate.
    pub estimates: Vec<Estimate>,
    /// Its loss (0: every goal met).
    pub loss: f64,
}

/// The result of a search.
#[derive(Clone, Debug)]
pub struct Tuning {
    /// The parameters searched.
    pub params: Vec<Param>,
    /// The goals.
    pub goals: Vec<Goal>,
    /// The best candidate found (its estimates from all the games it played).
    pub best: Trial,
    /// Whether every goal's estimate lies in its range for the best candidate.
    pub met: bool,
    /// Games played in all.
    pub games: u64,
    /// Every candidate evaluated, in the order first evaluated (with its final figures).
    pub trials: Vec<Trial>,
}

/// The state of the search: candidates with their accumulated summaries.
struct Search<'a> {
    g: &'a Game,
    cfg: &'a Config,
    params: &'a [Param],
    goals: &'a [Goal],
    opts: TuneOptions<'a>,
    seed: u64,
    /// Per candidate: its values and summary.
    seen: Vec<(Vec<i64>, Option<Summary>)>,
    played: u64,
    batches: u64,
    /// What names this search among others (the shards' files carry it).
    key: u64,
}

impl Search<'_> {
    /// The index of a candidate, added when new.
    fn id(&mut self, values: Vec<i64>) -> usize {
        match self.seen.iter().position(|(v, _)| *v == values) {
            Some(i) => i,
            None => {
                self.seen.push((values, None));
                self.seen.len() - 1
            }
        }
    }

    /// Plays `n` more games of candidate `i` (fewer when the budget runs out); false when no
    /// game could be played.
    fn play(&mut self, i: usize, n: u64) -> Result<bool, RunError> {
        let n = n.min(self.opts.budget.saturating_sub(self.played));
        if n == 0 {
            return Ok(false);
        }
        let mut cfg = self.cfg.clone();
        for (p, v) in self.params.iter().zip(&self.seen[i].0) {
            cfg.set.retain(|(name, _)| *name != p.name);
            cfg.set.push((p.name.clone(), v.to_string()));
        }
        // A seed per batch: each batch plays new games.
        cfg.seed = super::game_seed(self.seed, self.batches);
        let batch = self.batches;
        self.batches += 1;
        // The match must start with these values (a constant out of its declared range...).
        self.g.start(&cfg)?;
        let opts = Options {
            games: n,
            threads: self.opts.threads,
            shard: self.opts.meeting.map(|m| m.shard),
            progress: None,
            agents: self.opts.agents,
            max_turns: self.opts.max_turns,
            lead: false,
        };
        let mut s = simulate_with(self.g, &cfg, &opts);
        if let Some(m) = self.opts.meeting {
            s = m.exchange(self.key, batch, s).map_err(RunError::config)?;
        }
        self.played += n;
        if let Some(p) = self.opts.progress {
            p(self.played);
        }
        match &mut self.seen[i].1 {
            Some(acc) => acc.merge(s).map_err(|e| RunError::rule(e, None))?,
            slot => *slot = Some(s),
        }
        Ok(true)
    }

    /// The trial of candidate `i` as it stands.
    fn trial(&self, i: usize) -> Trial {
        let (values, s) = &self.seen[i];
        let estimates: Vec<Estimate> = match s {
            Some(s) => self.goals.iter().map(|g| g.metric.estimate(s)).collect(),
            None => vec![],
        };
        let loss = if estimates.is_empty() {
            f64::INFINITY
        } else {
            self.goals
                .iter()
                .zip(&estimates)
                .map(|(g, e)| g.miss(e))
                .sum()
        };
        Trial {
            values: values.clone(),
            games: s.as_ref().map_or(0, |s| s.games),
            estimates,
            loss,
        }
    }

    /// Whether candidate `a` is better than `b`: lower loss, then more games.
    fn better(&self, a: usize, b: usize) -> bool {
        let (ta, tb) = (self.trial(a), self.trial(b));
        ta.loss < tb.loss || (ta.loss == tb.loss && ta.games > tb.games)
    }
}

/// Searches values of `params` meeting `goals` on `g` (played as `cfg` says, with `cfg.seed`
/// seeding the search and its games).
pub fn tune(
    g: &Game,
    cfg: &Config,
    params: &[Param],
    goals: &[Goal],
    opts: TuneOptions,
) -> Result<Tuning, RunError> {
    check(g, cfg, params, goals)?;
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed ^ 0x7475_6e65);
    let mut s = Search {
        g,
        cfg,
        params,
        goals,
        opts,
        seed: cfg.seed,
        seen: vec![],
        played: 0,
        batches: 0,
        key: search_key(g, cfg, params, goals, &opts),
    };
    // The values the rules give, kept within the ranges, then a seeded sample.
    let here: Vec<i64> = params
        .iter()
        .map(|p| current(g, cfg, &p.name).clamp(p.lo, p.hi))
        .collect();
    let space = params.iter().fold(1u64, |n, p| n.saturating_mul(p.width()));
    let sample = (space.min(MAX_SAMPLE as u64)) as usize;
    let mut pool = vec![s.id(here)];
    let mut tries = 0;
    while pool.len() < sample && tries < 1000 {
        tries += 1;
        let v: Vec<i64> = params.iter().map(|p| rng.gen_range(p.lo..=p.hi)).collect();
        let i = s.id(v);
        if !pool.contains(&i) {
            pool.push(i);
        }
    }
    // 1. Successive halving.
    let mut batch = opts.games.max(1);
    'halving: while pool.len() > 1 {
        for &i in &pool {
            if !s.play(i, batch)? {
                break 'halving;
            }
        }
        let mut ranked = pool.clone();
        ranked.sort_by(|&a, &b| {
            let (ta, tb) = (s.trial(a), s.trial(b));
            ta.loss
                .total_cmp(&tb.loss)
                .then(tb.games.cmp(&ta.games))
                .then(a.cmp(&b))
        });
        ranked.truncate(pool.len().div_ceil(2));
        pool = ranked;
        batch = batch.saturating_mul(2);
    }
    let mut best = pool[0];
    if s.seen[best].1.is_none() {
        s.play(best, batch)?;
    }
    // 2. Local search around the best, while the budget lasts.
    let mut stale = 0;
    while s.played < opts.budget && stale < 64 && space > 1 {
        let mut v = s.seen[best].0.clone();
        let moves = if params.len() > 1 && rng.gen_bool(0.3) {
            2
        } else {
            1
        };
        for _ in 0..moves {
            let k = rng.gen_range(0..params.len());
            let p = &params[k];
            let reach = (p.width() / 4).max(1) as i64;
            let d = rng.gen_range(1..=reach) * if rng.gen_bool(0.5) { 1 } else { -1 };
            v[k] = v[k].saturating_add(d).clamp(p.lo, p.hi);
        }
        let i = s.id(v);
        if i == best {
            stale += 1;
            continue;
        }
        let want = s.trial(best).games.max(opts.games);
        let have = s.trial(i).games;
        if !s.play(i, want.saturating_sub(have).max(opts.games))? {
            break;
        }
        if s.better(i, best) {
            // Confirm with as many games again before trusting it.
            s.play(best, opts.games)?;
            s.play(i, opts.games)?;
            if s.better(i, best) {
                best = i;
                stale = 0;
                continue;
            }
        }
        stale += 1;
        if s.trial(best).loss == 0.0 && stale >= 8 {
            break; // met, and the neighbours do no better
        }
    }
    let best_trial = s.trial(best);
    let met = best_trial.loss == 0.0;
    let trials = (0..s.seen.len())
        .filter(|&i| s.seen[i].1.is_some())
        .map(|i| s.trial(i))
        .collect();
    Ok(Tuning {
        params: params.to_vec(),
        goals: goals.to_vec(),
        best: best_trial,
        met,
        games: s.played,
        trials,
    })
}

/// The value constant `name` has in the match `cfg` describes.
/// A hash of what decides a search's games (FNV-1a of their description): the rules' name
/// and actions, the configuration, parameters, goals, agents and sizes.
fn search_key(g: &Game, cfg: &Config, params: &[Param], goals: &[Goal], o: &TuneOptions) -> u64 {
    let actions: Vec<&str> = g.actions.iter().map(|a| a.name.as_str()).collect();
    let text = format!(
        "{}|{actions:?}|{cfg:?}|{params:?}|{goals:?}|{:?}|{}|{}|{:?}|{:?}",
        g.name,
        o.agents,
        o.games,
        o.budget,
        o.max_turns,
        o.meeting.map(|m| m.shard.count),
    );
    text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn current(g: &Game, cfg: &Config, name: &str) -> i64 {
    if let Some((_, v)) = cfg.set.iter().rev().find(|(n, _)| n == name) {
        if let Ok(v) = v.parse() {
            return v;
        }
    }
    g.start(cfg)
        .ok()
        .and_then(|st| {
            let c = g.consts.ids().find(|&c| g.consts[c].name == name)?;
            match st.consts.get(c) {
                Some(Value::Int(n)) => Some(*n),
                _ => None,
            }
        })
        .unwrap_or(0)
}

/// Refuses what cannot be searched: no parameter or goal, too many, a name that is not an
/// integer constant, a seat the game does not have.
fn check(g: &Game, cfg: &Config, params: &[Param], goals: &[Goal]) -> Result<(), RunError> {
    let bad = |message: String| Err(RunError::Config { message });
    if params.is_empty() || params.len() > MAX_PARAMS {
        return bad(format!(
            "give 1 to {MAX_PARAMS} parameters (--param NAME=LO..HI)"
        ));
    }
    if goals.is_empty() || goals.len() > MAX_GOALS {
        return bad(format!(
            "give 1 to {MAX_GOALS} goals (--goal \"METRIC in LO..HI\")"
        ));
    }
    let st = g.start(cfg)?;
    for (i, p) in params.iter().enumerate() {
        if params[..i].iter().any(|q| q.name == p.name) {
            return bad(format!("`{}` is searched twice", p.name));
        }
        let Some(c) = g.consts.ids().find(|&c| g.consts[c].name == p.name) else {
            let names: Vec<&str> = g.consts.iter().map(|c| c.name.as_str()).collect();
            return bad(format!(
                "`{}` is not a constant of {} (its constants: {})",
                p.name,
                if g.name.is_empty() {
                    "this game"
                } else {
                    &g.name
                },
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ));
        };
        if !matches!(st.consts.get(c), Some(Value::Int(_))) {
            return bad(format!(
                "`{}` is not a number: only integer constants are searched",
                p.name
            ));
        }
    }
    for goal in goals {
        if let Some(seat) = goal.metric.seat() {
            if seat >= cfg.players {
                return bad(format!(
                    "`{}` names a seat this {}-player match does not have",
                    goal.metric.name(),
                    cfg.players
                ));
            }
        }
    }
    Ok(())
}
