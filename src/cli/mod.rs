//! The command line: parses arguments, reads files, prints. Everything else (running
//! matches, counting, benchmarks, scenarios, the line protocol) is library code in
//! [`crate::run`] and [`crate::server`].

/// `print!` for text that quotes the rules or the user (names, strings, action texts): every
/// character unsafe for a terminal is escaped ([`crate::source::printable`]).
macro_rules! say {
    ($($t:tt)*) => { print!("{}", $crate::source::printable(&format!($($t)*))) };
}

/// `println!` with the escapes of [`say!`].
macro_rules! sayln {
    ($($t:tt)*) => { println!("{}", $crate::source::printable(&format!($($t)*))) };
}

/// `eprintln!` with the escapes of [`say!`].
macro_rules! esayln {
    ($($t:tt)*) => { eprintln!("{}", $crate::source::printable(&format!($($t)*))) };
}

mod bench;
mod fmt;
mod play;
mod progress;
mod serve;
mod show;
mod simulate;
mod tune;
mod web;

use crate::agents::AgentSpec;
use crate::check::{self, Diagnostics};
use crate::engine::{ChanceMode, Config};
use crate::ir::Game;
use crate::run::{self, scenarios};
use clap::{Args, Parser, Subcommand};
use miette::{Diagnostic, IntoDiagnostic};
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(
    name = "rulebook",
    version,
    about = "Check, simulate and play tabletop games written as rules files"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

/// The rules file and how to start a match of it, shared by the commands that play.
#[derive(Args)]
pub(crate) struct GameArgs {
    /// The rules file.
    file: PathBuf,
    /// Number of players (default: the fewest the game allows).
    #[arg(long)]
    players: Option<u8>,
    /// The variants to play, separated by commas (`level3,high_start`), applied in order to
    /// one match. `simulate` takes `--variant` several times (`none` is the base rules) and
    /// plays the same seeds under each, side by side.
    #[arg(long)]
    variant: Vec<String>,
    /// A constant's value for the match, set after the variants (may be repeated):
    /// `--set CALM=4`.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// The seed of the run.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The work budget of each decision (default 10,000,000 units: statements run, elements
    /// visited, path steps, combinations tried); a decision that needs more stops with
    /// `limit_reached` and the span of the rule at work.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_FUEL))]
    fuel: Option<u64>,
}

/// The largest `--fuel`: about an hour of work for one decision.
const MAX_FUEL: u64 = 100_000_000_000;

#[derive(Subcommand)]
enum Cmd {
    /// Check rules files: exit 0 when every file is valid, 1 with the diagnostics otherwise.
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Play games with random players and summarise them (text, JSON, an HTML report).
    Simulate(simulate::SimulateArgs),
    /// Search values of integer constants that meet goals on simulated play (successive
    /// halving, then a local search), with 95% intervals.
    Tune(tune::TuneArgs),
    /// Add up the JSON summaries of the shards of a run (`simulate --shard I/N --json`) into
    /// the JSON one machine would have printed.
    Merge(simulate::MergeArgs),
    /// Play in the terminal against random players (or the agents given).
    ///
    /// At the prompt: a move's number or its text; `help`; `board` (the whole view again:
    /// after each decision only what changed is drawn); `undo` (your last decision and
    /// every decision after it); `why ACTION`; `quit`. Boards are drawn with row 1 at the
    /// bottom; you see your own secrets and nobody else's.
    Play {
        #[command(flatten)]
        game: GameArgs,
        /// Your seat, from 1.
        #[arg(long, default_value_t = 1)]
        seat: u8,
        /// The other seats' agents: one for all, or one per other seat in seat order
        /// (random, mcts, mcts:N, mcts:2s, mcts:250ms).
        #[arg(long, default_value = "random", value_parser = parse_agents)]
        opponents: Agents,
        /// Threads each searching agent uses for a decision (root parallelism).
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
    /// Print a game's structure: components, zones, flow, actions, scoring.
    Explain { file: PathBuf },
    /// Run scenario files (or a folder of them, or the scenarios of a rules file).
    Test {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Walk the whole game tree to a depth and count nodes and finished games.
    Count {
        #[command(flatten)]
        game: GameArgs,
        /// How deep to walk (at most 10,000).
        #[arg(long)]
        depth: u32,
        #[arg(long)]
        json: bool,
        /// Threads to use (1 to 256); the counts are the same for any number.
        #[arg(long, default_value_t = 1, value_parser = threads)]
        threads: usize,
    },
    /// Random playouts on one core for a while: playouts, decisions per second, peak memory.
    Bench(bench::BenchArgs),
    /// Serve a game over JSON lines on stdin and stdout (see the README).
    Serve(serve::ServeArgs),
    /// Play and author a game in the browser: a local page that draws the rules file and
    /// follows its changes (see the README).
    Web(web::WebArgs),
    /// Replay a saved match and print its final state and outcome.
    Replay { file: PathBuf, save: PathBuf },
    /// Format rules and scenario files in the one canonical layout (comments kept).
    Fmt(fmt::FmtArgs),
    /// Run the language server (diagnostics, hover, definitions, completion, formatting, ...)
    /// over stdin and stdout, for editors.
    Lsp,
}

/// The most games `simulate` plays in one run: each game's result is kept until the summary
/// is made.
pub const MAX_GAMES: u64 = 10_000_000;

/// The most threads `simulate` and `count` start: each has a stack of
/// [`crate::run::THREAD_STACK`].
pub const MAX_THREADS: usize = 256;

/// Parses `--threads`: 1 to [`MAX_THREADS`].
fn threads(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
        _ => Err(format!("a number of threads from 1 to {MAX_THREADS}")),
    }
}

/// Runs the command line.
pub fn run() -> miette::Result<()> {
    let cli = Cli::parse();
    let code = match cli.cmd {
        Cmd::Check { files } => check_files(&files)?,
        Cmd::Simulate(args) => simulate::run(&args)?,
        Cmd::Merge(args) => simulate::merge(&args)?,
        Cmd::Tune(args) => tune::run(&args)?,
        Cmd::Play {
            game,
            seat,
            opponents,
            threads,
        } => {
            let (g, cfg) = game.load()?;
            let opponents: Vec<AgentSpec> = opponents
                .0
                .into_iter()
                .map(|a| a.with_threads(threads))
                .collect();
            play::play(&g, &cfg, seat.saturating_sub(1), &opponents)?;
            0
        }
        Cmd::Explain { file } => {
            let g = load_game(&file)?;
            say!("{}", show::explain(&g));
            0
        }
        Cmd::Test { paths } => run_tests(&paths)?,
        Cmd::Bench(args) => bench::run(&args)?,
        Cmd::Serve(args) => serve::run(&args)?,
        Cmd::Fmt(args) => fmt::run(&args)?,
        Cmd::Lsp => {
            crate::lsp::run().map_err(|e| miette::miette!("rulebook lsp: {e}"))?;
            0
        }
        Cmd::Web(args) => web::run(&args)?,
        Cmd::Replay { file, save } => {
            let g = load_game(&file)?;
            let text = read(&save)?;
            let m = crate::engine::Match::load_text(&g, &text)
                .map_err(|e| miette::miette!("{}: {}", save.display(), e.message()))?;
            let view = m.view(None);
            say!("{}", show::draw(&g, m.state(), &view));
            println!("decisions: {}", m.log().len());
            match m.state().outcome() {
                Some(o) => say!("{}", show::outcome(o)),
                None => sayln!("not finished: {} to act", view.actor),
            }
            0
        }
        Cmd::Count {
            game,
            depth,
            json,
            threads,
        } => {
            let (g, mut cfg) = game.load()?;
            cfg.chance = ChanceMode::External;
            let bar = progress::bar(0, "branches", true);
            let tick = |done: u64, of: u64| {
                if let Some(b) = &bar {
                    b.set_length(of);
                    b.set_position(done);
                }
            };
            let shown = bar.as_ref().map(|_| &tick as &(dyn Fn(u64, u64) + Sync));
            let c = run::count::count_with(&g, &cfg, depth, threads, shown);
            if let Some(b) = &bar {
                b.finish_and_clear();
            }
            let c = c.map_err(|e| report(&g, e))?;
            if json {
                let json = serde_json::json!({"nodes": c.nodes, "finished": c.finished, "outcomes": c.outcomes});
                println!("{}", json_safe(&json.to_string()));
            } else {
                for (d, n) in c.nodes.iter().enumerate() {
                    println!("depth {d}: {n} nodes");
                }
                println!("finished: {}", c.finished);
                for (k, v) in &c.outcomes {
                    sayln!("  {k}: {v}");
                }
            }
            0
        }
    };
    if code != 0 {
        std::process::exit(code);
    }
    Ok(())
}

/// Agents named on the command line.
#[derive(Clone)]
struct Agents(Vec<AgentSpec>);

/// A comma-separated list of agents (`mcts:2000,random`).
fn parse_agents(text: &str) -> Result<Agents, String> {
    AgentSpec::parse_list(text).map(Agents)
}

/// The largest file the command line reads (rules, scenarios, saves): 16 MiB.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// Reads a text file: only a regular file (not a folder, a device or a pipe) of at most
/// [`MAX_FILE_BYTES`].
pub(crate) fn read(path: &Path) -> miette::Result<String> {
    let fail = |why: String| miette::miette!("cannot read {}: {why}", path.display());
    let meta = std::fs::metadata(path).map_err(|e| fail(e.to_string()))?;
    if !meta.is_file() {
        return Err(fail("not a regular file".into()));
    }
    let too_large = || fail(format!("larger than {} MiB", MAX_FILE_BYTES >> 20));
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_large());
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_string(&mut text))
        .map_err(|e| fail(e.to_string()))?;
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large());
    }
    Ok(text)
}

/// A run error as a report, with the text of the file it points into (sanitized, and left
/// out when the line is too wide to show).
pub(crate) fn report(g: &Game, e: crate::engine::RunError) -> miette::Report {
    match e.span() {
        Some(sp) => {
            let src = g.source(sp);
            let listing = crate::source::Listing::new(&src.name, &src.text);
            let r = miette::Report::new(e.clone()).with_source_code(listing);
            if crate::render::fits(r.as_ref()) {
                return r;
            }
            let (line, col) = src.line_col(sp.start);
            miette::Report::new(e).wrap_err(format!(
                "at {}:{line}:{col} (the line is too long to show)",
                crate::source::printable(&src.name)
            ))
        }
        None => miette::Report::new(e),
    }
}

/// Renders a diagnostic for the terminal (colours only when stderr is one). Its texts come
/// escaped and its source lines sanitized ([`crate::source::Listing`]); lines too wide to
/// show are left out ([`crate::render::with`]).
pub(crate) fn render(d: &dyn Diagnostic) -> String {
    if std::io::stderr().is_terminal() {
        crate::render::with(&miette::GraphicalReportHandler::new(), d)
    } else {
        crate::render::plain(d)
    }
}

/// JSON text made safe to print: the characters unsafe for a terminal that JSON leaves as
/// they are (DEL, the C1 controls, the bidi overrides) written as `\uXXXX` escapes, which
/// only strings may hold. The JSON means the same.
pub(crate) fn json_safe(json: &str) -> std::borrow::Cow<'_, str> {
    if !json.chars().any(crate::source::is_unsafe) {
        return std::borrow::Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if crate::source::is_unsafe(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

fn print_diagnostics(d: &Diagnostics) {
    for p in &d.problems {
        eprint!("{}", render(p));
    }
}

/// Loads a rules file; prints its diagnostics; fails when it has errors.
pub(crate) fn load_game(path: &Path) -> miette::Result<Game> {
    let text = read(path)?;
    let loaded = check::load(&path.display().to_string(), &text);
    match loaded.game {
        Some(g) => Ok(g),
        None => {
            print_diagnostics(&loaded.diagnostics);
            Err(miette::miette!(
                "{}: {}",
                path.display(),
                loaded.diagnostics
            ))
        }
    }
}

impl GameArgs {
    /// Loads the rules file and checks the configuration (player count, variant) by starting
    /// a match, with the engine's own messages.
    pub(crate) fn load(&self) -> miette::Result<(Game, Config)> {
        if self.variant.len() > 1 {
            return Err(miette::miette!(
                "only `simulate` compares several variants; give one --variant (a comma list combines variants: `--variant a,b`)"
            ));
        }
        let (g, mut cfgs) = self.load_all()?;
        let cfg = cfgs.pop().ok_or_else(|| miette::miette!("no variant"))?;
        Ok((g, cfg))
    }

    /// [`GameArgs::load`] for each variant given (`none`: the base rules; no `--variant`:
    /// the base rules only), in order.
    pub(crate) fn load_all(&self) -> miette::Result<(Game, Vec<Config>)> {
        let g = load_game(&self.file)?;
        let set: Vec<(String, String)> = self
            .set
            .iter()
            .map(|s| match s.split_once('=') {
                Some((n, v)) => Ok((n.trim().to_string(), v.trim().to_string())),
                None => Err(miette::miette!(
                    "--set takes NAME=VALUE, not `{}`",
                    crate::source::quote(s, 40)
                )),
            })
            .collect::<miette::Result<_>>()?;
        let variants: Vec<Option<String>> = if self.variant.is_empty() {
            vec![None]
        } else {
            self.variant
                .iter()
                .map(|v| (v.trim() != "none").then(|| v.trim().to_string()))
                .collect()
        };
        let mut cfgs = Vec::new();
        for variant in variants {
            let cfg = Config {
                players: self.players.unwrap_or(g.min_players),
                variant,
                seed: self.seed,
                chance: ChanceMode::Seeded,
                fuel: self.fuel,
                set: set.clone(),
            };
            g.start(&cfg).map_err(|e| report(&g, e))?;
            cfgs.push(cfg);
        }
        Ok((g, cfgs))
    }
}

fn check_files(files: &[PathBuf]) -> miette::Result<i32> {
    let mut failed = false;
    for f in files {
        let text = match read(f) {
            Ok(t) => t,
            Err(e) => {
                esayln!("{e}");
                failed = true;
                continue;
            }
        };
        let loaded = check::load(&f.display().to_string(), &text);
        print_diagnostics(&loaded.diagnostics);
        let d = &loaded.diagnostics;
        if d.has_errors() {
            failed = true;
            sayln!(
                "{}: {} error(s), {} warning(s)",
                f.display(),
                d.errors(),
                d.warnings()
            );
        } else {
            sayln!("{}: ok ({} warning(s))", f.display(), d.warnings());
        }
    }
    Ok(i32::from(failed))
}

fn scenario_files(p: &Path, out: &mut Vec<PathBuf>) -> miette::Result<()> {
    if p.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
            .into_diagnostic()?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for e in entries {
            if e.is_dir() || e.extension().is_some_and(|x| x == "scenarios") {
                scenario_files(&e, out)?;
            }
        }
    } else if p.extension().is_some_and(|x| x == "rules") {
        // The scenarios of a rules file: scenario files under tests/ whose `rules` line names it.
        let want = std::fs::canonicalize(p)
            .map_err(|e| miette::miette!("cannot read {}: {e}", p.display()))?;
        let mut all = vec![];
        if Path::new("tests").is_dir() {
            scenario_files(Path::new("tests"), &mut all)?;
        }
        for f in all {
            let Ok(text) = read(&f) else {
                continue;
            };
            if let Ok(rules) = scenarios::rules_path(&f.display().to_string(), &text) {
                let target = f.parent().unwrap_or(Path::new(".")).join(rules);
                if std::fs::canonicalize(&target).ok().as_ref() == Some(&want) {
                    out.push(f);
                }
            }
        }
    } else if p.exists() {
        out.push(p.to_path_buf());
    } else {
        return Err(miette::miette!("no such file: {}", p.display()));
    }
    Ok(())
}

/// Runs scenario files and prints each scenario's result. Returns the exit code.
fn run_tests(paths: &[PathBuf]) -> miette::Result<i32> {
    let mut files = vec![];
    for p in paths {
        scenario_files(p, &mut files)?;
    }
    let (mut passed, mut failed) = (0, 0);
    for f in files {
        let text = read(&f)?;
        let name = f.display().to_string();
        let results = match run_scenario_file(&f, &text) {
            Ok(r) => r,
            Err(msg) => {
                eprint!("{msg}");
                failed += 1;
                continue;
            }
        };
        for (r, line) in results {
            match r.failure {
                None => {
                    passed += 1;
                    sayln!("ok     {name}: {}", r.name);
                }
                Some((_, msg)) => {
                    failed += 1;
                    sayln!("FAILED {name}:{line}: {}\n       {msg}", r.name);
                }
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    Ok(i32::from(failed > 0))
}

/// Reads the rules file a scenario file names and runs its scenarios; an error is rendered
/// for the terminal.
fn run_scenario_file(
    f: &Path,
    text: &str,
) -> Result<Vec<(crate::engine::scenario::ScenarioResult, scenarios::Place)>, String> {
    let name = f.display().to_string();
    let rules = scenarios::rules_path(&name, text).map_err(|e| e.render(&render))?;
    let rules_path = f.parent().unwrap_or(Path::new(".")).join(rules);
    let rules_text = read(&rules_path).map_err(|e| format!("{name}: {e}\n"))?;
    scenarios::run_text(&name, text, &rules_path.display().to_string(), &rules_text)
        .map_err(|e| e.render(&render))
}
