//! `rulebook simulate` and `rulebook merge`: the arguments, progress, and the printing of
//! [`crate::run::simulate`] summaries (text, JSON, an HTML report).

use super::{json_safe, parse_agents, progress, report, threads, Agents, GameArgs, MAX_GAMES};
use crate::run::{compare, simulate_agents, Options, Shard, Summary};
use clap::Args;
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct SimulateArgs {
    #[command(flatten)]
    game: GameArgs,
    /// How many games (at most 10,000,000).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(0..=MAX_GAMES))]
    games: u64,
    /// The players: one agent for every seat, or one per seat, comma-separated: random,
    /// mcts (1,000 playouts per decision), mcts:N (N playouts), mcts:2s or mcts:250ms.
    #[arg(long, default_value = "random", value_parser = parse_agents)]
    agents: Agents,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
    /// Threads to use (1 to 256), each playing whole games; the summary is the same for any
    /// number (unless an agent searches for a time).
    #[arg(long, default_value_t = 1, value_parser = threads)]
    threads: usize,
    /// Stop a game after this many player decisions and count it as unfinished.
    #[arg(long)]
    max_turns: Option<u64>,
    /// Play only the games i with i % N == I (their seeds unchanged); `rulebook merge` adds
    /// up the JSON of all the shards.
    #[arg(long, value_name = "I/N", value_parser = Shard::parse)]
    shard: Option<Shard>,
    /// Also measure the lead (the heuristic, else the score, before every player decision):
    /// lead changes, comebacks, when the winner led for good. Costs an evaluation of the
    /// formula per decision.
    #[arg(long)]
    lead: bool,
    /// Also write an HTML report with plots (one self-contained file) here.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
}

/// Runs `simulate`: every variant asked for (the same seeds under each). Returns the exit
/// code.
pub(crate) fn run(args: &SimulateArgs) -> miette::Result<i32> {
    let (g, cfgs) = args.game.load_all()?;
    let shard_games = args.shard.map_or(args.games, |s| s.games_of(args.games));
    let bar = progress::bar(shard_games * cfgs.len() as u64, "games", true);
    let inc = |n: u64| {
        if let Some(b) = &bar {
            b.inc(n);
        }
    };
    let opts = Options {
        games: args.games,
        threads: args.threads,
        shard: args.shard,
        progress: bar.as_ref().map(|_| &inc as &(dyn Fn(u64) + Sync)),
        agents: &args.agents.0,
        max_turns: args.max_turns,
        lead: args.lead,
    };
    let runs: Vec<Summary> = cfgs
        .iter()
        .map(|c| simulate_agents(&g, c, &opts).map_err(|e| report(&g, e)))
        .collect::<miette::Result<_>>()?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    if let Some(path) = &args.report {
        std::fs::write(path, crate::report::html(&runs))
            .map_err(|e| miette::miette!("cannot write {}: {e}", path.display()))?;
    }
    if args.json {
        println!("{}", json_safe(&compare::runs_json(&runs)));
    } else {
        for (i, r) in runs.iter().enumerate() {
            if i > 0 {
                println!();
            }
            say!("{}", r.text());
        }
        if runs.len() > 1 {
            println!();
            say!("{}", compare::differences_text(&runs));
        }
    }
    Ok(0)
}

#[derive(Args)]
pub(crate) struct MergeArgs {
    /// The JSON printed by `simulate --shard I/N --json`, one file per shard.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Also write the HTML report of the whole run here.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
}

/// Runs `merge`: prints the JSON one machine would have printed for the whole run.
pub(crate) fn merge(args: &MergeArgs) -> miette::Result<i32> {
    let mut shards = Vec::new();
    for f in &args.files {
        let text = super::read(f)?;
        let runs =
            compare::read_runs(&text).map_err(|e| miette::miette!("{}: {e}", f.display()))?;
        shards.push(runs);
    }
    let runs = compare::merge(shards).map_err(|e| miette::miette!("cannot merge: {e}"))?;
    if let Some(path) = &args.report {
        std::fs::write(path, crate::report::html(&runs))
            .map_err(|e| miette::miette!("cannot write {}: {e}", path.display()))?;
    }
    println!("{}", json_safe(&compare::runs_json(&runs)));
    Ok(0)
}
