//! `rulebook tune`: the arguments and the printing of [`crate::run::tune`] (text, JSON, an
//! HTML report of the search).

use super::{json_safe, parse_agents, progress, report, threads, Agents, GameArgs, MAX_GAMES};
use crate::run::meet::Meeting;
use crate::run::summary::Shard;
use crate::run::tune::{tune, Goal, Param, TuneOptions, Tuning};
use clap::Args;
use serde_json::{json, Map, Value};
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct TuneArgs {
    #[command(flatten)]
    game: GameArgs,
    /// An integer constant to search and its range, `NAME=LO..HI` (repeat for several).
    #[arg(long = "param", value_name = "NAME=LO..HI", required = true, value_parser = Param::parse)]
    params: Vec<Param>,
    /// A goal, `METRIC in LO..HI` (repeat for several): METRIC is win_rate(pK), no_winner,
    /// first_player, turns.mean, score.mean(pK) or all_zero.
    #[arg(long = "goal", value_name = "GOAL", required = true, value_parser = Goal::parse)]
    goals: Vec<Goal>,
    /// The players: one agent for every seat, or one per seat (random, mcts, mcts:N, ...).
    #[arg(long, default_value = "random", value_parser = parse_agents)]
    agents: Agents,
    /// Games each candidate plays in the first round (the rounds double it).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=MAX_GAMES))]
    games: u64,
    /// The most games the whole search plays.
    #[arg(long, default_value_t = 2_000, value_parser = clap::value_parser!(u64).range(1..=MAX_GAMES))]
    budget: u64,
    /// Threads to play each batch on (1 to 256); the result is the same for any number.
    #[arg(long, default_value_t = 1, value_parser = threads)]
    threads: usize,
    /// Stop a game after this many player decisions and count it as unfinished.
    #[arg(long)]
    max_turns: Option<u64>,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
    /// Also write an HTML report of the search (each metric across each parameter) here.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Play only shard I of N of each batch's games (`I/N`, from 0), meeting the other
    /// shards in `--shard-dir`: every shard runs the same search and prints the same result.
    #[arg(long, value_name = "I/N", value_parser = Shard::parse, requires = "shard_dir")]
    shard: Option<Shard>,
    /// The directory where the shards of a search meet (shared by all; one per search).
    #[arg(long, value_name = "DIR", requires = "shard")]
    shard_dir: Option<PathBuf>,
    /// How long a shard waits for the others' games of a batch, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 3_600, value_parser = clap::value_parser!(u64).range(1..=604_800))]
    shard_wait: u64,
}

/// Runs `tune`. Returns the exit code: 0 when the goals are met, 1 when not.
pub(crate) fn run(args: &TuneArgs) -> miette::Result<i32> {
    let (g, cfg) = args.game.load()?;
    let bar = progress::bar(args.budget, "games", true);
    let tick = |played: u64| {
        if let Some(b) = &bar {
            b.set_position(played);
        }
    };
    let opts = TuneOptions {
        games: args.games,
        budget: args.budget,
        threads: args.threads,
        agents: &args.agents.0,
        max_turns: args.max_turns,
        progress: bar.as_ref().map(|_| &tick as &(dyn Fn(u64) + Sync)),
        meeting: match (args.shard, &args.shard_dir) {
            (Some(shard), Some(dir)) => Some(Meeting {
                shard,
                dir,
                wait: std::time::Duration::from_secs(args.shard_wait),
            }),
            _ => None,
        },
    };
    let agents = crate::run::simulate::seat_agents(&args.agents.0, cfg.players)
        .map_err(|e| report(&g, e))?;
    let t = tune(
        &g,
        &cfg,
        &args.params,
        &args.goals,
        TuneOptions {
            agents: &agents,
            ..opts
        },
    )
    .map_err(|e| report(&g, e))?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    if let Some(path) = &args.report {
        std::fs::write(path, crate::report::tune_html(&g.name, &t))
            .map_err(|e| miette::miette!("cannot write {}: {e}", path.display()))?;
    }
    if args.json {
        println!("{}", json_safe(&json_of(&t).to_string()));
    } else {
        say!("{}", text(&g.name, &t));
    }
    Ok(if t.met { 0 } else { 1 })
}

/// The result as JSON: `best`, `metrics`, `intervals`, `met`, `games`, `trials`.
pub(crate) fn json_of(t: &Tuning) -> Value {
    let values = |v: &[i64]| -> Map<String, Value> {
        t.params
            .iter()
            .zip(v)
            .map(|(p, v)| (p.name.clone(), json!(v)))
            .collect()
    };
    let mut metrics = Map::new();
    let mut intervals = Map::new();
    for (goal, e) in t.goals.iter().zip(&t.best.estimates) {
        metrics.insert(goal.metric.name(), json!(e.value));
        intervals.insert(goal.metric.name(), json!([e.low, e.high]));
    }
    let trials: Vec<Value> = t
        .trials
        .iter()
        .map(|tr| {
            json!({
                "values": values(&tr.values),
                "games": tr.games,
                "loss": tr.loss,
                "metrics": t.goals.iter().zip(&tr.estimates)
                    .map(|(g, e)| (g.metric.name(), json!(e.value)))
                    .collect::<Map<String, Value>>(),
            })
        })
        .collect();
    json!({
        "best": values(&t.best.values),
        "metrics": metrics,
        "intervals": intervals,
        "met": t.met,
        "games": t.games,
        "best_games": t.best.games,
        "trials": trials,
    })
}

/// The result as text.
fn text(game: &str, t: &Tuning) -> String {
    let mut out = format!(
        "tune {game}: {} games, {} candidates\nbest:",
        t.games,
        t.trials.len()
    );
    for (p, v) in t.params.iter().zip(&t.best.values) {
        out.push_str(&format!(" {}={v}", p.name));
    }
    out.push_str(&format!(" ({} games)\n", t.best.games));
    for (goal, e) in t.goals.iter().zip(&t.best.estimates) {
        let ok = e.value >= goal.lo && e.value <= goal.hi;
        out.push_str(&format!(
            "  {:<16} {:>9.3}  95% [{:.3}, {:.3}]  goal {}..{}  {}\n",
            goal.metric.name(),
            e.value,
            e.low,
            e.high,
            goal.lo,
            goal.hi,
            if ok { "met" } else { "missed" }
        ));
    }
    out.push_str(if t.met {
        "every goal met"
    } else {
        "not every goal met: widen a range, add a parameter or give a larger --budget"
    });
    out
}
