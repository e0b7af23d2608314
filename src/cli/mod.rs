//! The command line: the only part of rulebook that prints or reads files.

mod bench;
mod play;
pub mod serve;
mod show;

use crate::agents::RandomAgent;
use crate::check::{self, Diagnostics};
use crate::engine::{Action, Actor, ChanceMode, Config, State};
use crate::ir::{Arm, Game};
use clap::{Parser, Subcommand};
use miette::{Diagnostic, IntoDiagnostic};
use std::collections::BTreeMap;
use std::io::IsTerminal;
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

#[derive(Subcommand)]
enum Cmd {
    /// Check rules files: exit 0 when every file is valid, 1 with the diagnostics otherwise.
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Play games with random players and summarise them.
    Simulate {
        file: PathBuf,
        #[arg(long)]
        players: Option<u8>,
        #[arg(long)]
        variant: Option<String>,
        #[arg(long, default_value_t = 100)]
        games: u64,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Print the summary as one JSON object.
        #[arg(long)]
        json: bool,
        /// Threads to use; the summary is the same for any number.
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
    /// Play in the terminal against random players.
    Play {
        file: PathBuf,
        #[arg(long)]
        players: Option<u8>,
        #[arg(long)]
        variant: Option<String>,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Your seat, from 1.
        #[arg(long, default_value_t = 1)]
        seat: u8,
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
        file: PathBuf,
        #[arg(long)]
        players: Option<u8>,
        #[arg(long)]
        variant: Option<String>,
        #[arg(long)]
        depth: u32,
        #[arg(long)]
        json: bool,
        /// Threads to use; the counts are the same for any number.
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
    /// Random playouts on one core for a while: playouts, decisions per second, peak memory.
    Bench(bench::BenchArgs),
    /// Serve a game over JSON lines on stdin and stdout (see the README).
    Serve { file: PathBuf },
    /// Replay a saved match and print its final state and outcome.
    Replay { file: PathBuf, save: PathBuf },
}

/// Runs the command line.
pub fn run() -> miette::Result<()> {
    let cli = Cli::parse();
    let code = match cli.cmd {
        Cmd::Check { files } => check_files(&files)?,
        Cmd::Simulate {
            file,
            players,
            variant,
            games,
            seed,
            json,
            threads,
        } => {
            let g = load_game(&file)?;
            let cfg = config(&g, players, variant, seed)?;
            let summary =
                simulate_threads(&g, &cfg, games, std::io::stderr().is_terminal(), threads);
            if json {
                println!("{}", summary.json(&g));
            } else {
                print!("{}", summary.text(&g));
            }
            0
        }
        Cmd::Play {
            file,
            players,
            variant,
            seed,
            seat,
        } => {
            let g = load_game(&file)?;
            let cfg = config(&g, players, variant, seed)?;
            play::play(&g, &cfg, seat.saturating_sub(1))?;
            0
        }
        Cmd::Explain { file } => {
            let g = load_game(&file)?;
            print!("{}", show::explain(&g));
            0
        }
        Cmd::Test { paths } => run_tests(&paths)?,
        Cmd::Bench(args) => bench::run(&args)?,
        Cmd::Serve { file } => {
            let g = load_game(&file)?;
            serve::serve(&g, std::io::stdin().lock(), std::io::stdout().lock())
                .into_diagnostic()?;
            0
        }
        Cmd::Replay { file, save } => {
            let g = load_game(&file)?;
            let text = read(&save)?;
            let m = crate::engine::Match::load_text(&g, &text)
                .map_err(|e| miette::miette!("{}: {}", save.display(), e.message()))?;
            let view = m.view(None);
            print!("{}", show::draw(&g, m.state(), &view));
            println!("decisions: {}", m.log().len());
            match m.state().outcome() {
                Some(o) => print!("{}", show::outcome(o)),
                None => println!("not finished: {} to act", view.actor),
            }
            0
        }
        Cmd::Count {
            file,
            players,
            variant,
            depth,
            json,
            threads,
        } => {
            let g = load_game(&file)?;
            let mut cfg = config(&g, players, variant, 0)?;
            cfg.chance = ChanceMode::External;
            let c = count_threads(&g, &cfg, depth, threads).map_err(|e| report(&g, e))?;
            if json {
                println!(
                    "{}",
                    serde_json::json!({"nodes": c.nodes, "finished": c.finished, "outcomes": c.outcomes})
                );
            } else {
                for (d, n) in c.nodes.iter().enumerate() {
                    println!("depth {d}: {n} nodes");
                }
                println!("finished: {}", c.finished);
                for (k, v) in &c.outcomes {
                    println!("  {k}: {v}");
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

/// A run error as a report, with the rules file's text when it points into it.
pub(crate) fn report(g: &Game, e: crate::engine::RunError) -> miette::Report {
    match e.span() {
        Some(sp) => {
            let src = g.source(sp);
            miette::Report::new(e)
                .with_source_code(miette::NamedSource::new(&src.name, src.text.clone()))
        }
        None => miette::Report::new(e),
    }
}

fn read(path: &Path) -> miette::Result<String> {
    std::fs::read_to_string(path)
        .map_err(|e| miette::miette!("cannot read {}: {e}", path.display()))
}

/// Renders a diagnostic for the terminal (colours only when stderr is one).
pub(crate) fn render(d: &dyn Diagnostic) -> String {
    if std::io::stderr().is_terminal() {
        let handler = miette::GraphicalReportHandler::new();
        let mut out = String::new();
        let _ = handler.render_report(&mut out, d);
        out
    } else {
        crate::render::plain(d)
    }
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

fn config(
    g: &Game,
    players: Option<u8>,
    variant: Option<String>,
    seed: u64,
) -> miette::Result<Config> {
    let cfg = Config {
        players: players.unwrap_or(g.min_players),
        variant,
        seed,
        chance: ChanceMode::Seeded,
    };
    // Starting checks the player count and the variant with the engine's own messages.
    g.start(&cfg).map_err(|e| report(g, e))?;
    Ok(cfg)
}

fn check_files(files: &[PathBuf]) -> miette::Result<i32> {
    let mut failed = false;
    for f in files {
        let text = match read(f) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{e}");
                failed = true;
                continue;
            }
        };
        let loaded = check::load(&f.display().to_string(), &text);
        print_diagnostics(&loaded.diagnostics);
        let d = &loaded.diagnostics;
        if d.has_errors() {
            failed = true;
            println!(
                "{}: {} error(s), {} warning(s)",
                f.display(),
                d.errors(),
                d.warnings()
            );
        } else {
            println!("{}: ok ({} warning(s))", f.display(), d.warnings());
        }
    }
    Ok(i32::from(failed))
}

/// A seed for game `i` of a run: spread so that neighbouring games share nothing.
pub fn game_seed(seed: u64, i: u64) -> u64 {
    let mut z = seed.wrapping_add(i.wrapping_mul(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
    z ^ (z >> 31)
}

/// The figures of a simulation run.
#[derive(Default)]
pub struct Summary {
    /// Games played.
    pub games: u64,
    /// Games that reached an outcome.
    pub completed: u64,
    /// Games stopped by a run error (a rule failed, no legal action, or no end within
    /// 1,000,000 decisions).
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
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// The action declaration an action of the current choice comes from.
pub(crate) fn action_decl(g: &Game, st: &State, a: &Action) -> Option<u32> {
    let choice = g.waiting_choice(st)?;
    match g.choices[choice].arms.get(a.arm as usize)? {
        Arm::Action(ai) => Some(ai.0),
        Arm::Inline { .. } => None,
    }
}

/// One simulated game: its player decisions, or its error; scores and winners; the actions
/// that were legal at some point.
struct GameRun {
    result: Result<(u64, crate::engine::Outcome), String>,
    ever_legal: Vec<bool>,
}

fn run_one(g: &Game, cfg: &Config, i: u64, buf: &mut Vec<Action>) -> GameRun {
    let seed = game_seed(cfg.seed, i);
    let mut c = cfg.clone();
    c.seed = seed;
    let mut agent = RandomAgent::new(seed ^ 0x5EED);
    let mut ever_legal = vec![false; g.actions.len()];
    let result = (|| -> Result<(u64, crate::engine::Outcome), crate::engine::RunError> {
        let mut st = g.start(&c)?;
        let mut turns = 0;
        loop {
            match g.actor(&st) {
                Actor::Nobody => break,
                actor => {
                    if st.decisions > 1_000_000 {
                        return Err(crate::engine::RunError::Limit {
                            message: "the game did not end within 1,000,000 decisions".into(),
                            span: None,
                        });
                    }
                    g.legal(&st, buf)?;
                    for a in buf.iter() {
                        if let Some(ai) = action_decl(g, &st, a) {
                            ever_legal[ai as usize] = true;
                        }
                    }
                    let a = agent
                        .pick(buf)
                        .ok_or_else(|| crate::engine::RunError::rule("no legal action", None))?;
                    g.apply_unchecked(&mut st, &a)?;
                    if matches!(actor, Actor::Player(_)) {
                        turns += 1;
                    }
                }
            }
        }
        Ok((turns, st.outcome().expect("over").clone()))
    })()
    .map_err(|e| format!("game {i} (seed {seed}): {e}"));
    GameRun { result, ever_legal }
}

/// Plays `games` random games and summarises them. The same seed gives the same summary,
/// whatever the number of threads: game `i` always gets the same seed, and results are
/// gathered in game order.
pub fn simulate(g: &Game, cfg: &Config, games: u64, progress: bool) -> Summary {
    simulate_threads(g, cfg, games, progress, 1)
}

/// [`simulate`] on `threads` threads.
pub fn simulate_threads(
    g: &Game,
    cfg: &Config,
    games: u64,
    progress: bool,
    threads: usize,
) -> Summary {
    let n = cfg.players as usize;
    let threads = threads.max(1);
    let done = std::sync::atomic::AtomicU64::new(0);
    let start = std::time::Instant::now();
    let mut runs: Vec<(u64, GameRun)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads as u64)
            .map(|t| {
                let done = &done;
                scope.spawn(move || {
                    let mut buf = Vec::new();
                    let mut out = Vec::new();
                    let mut i = t;
                    while i < games {
                        out.push((i, run_one(g, cfg, i, &mut buf)));
                        let k = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                        if progress && t == 0 && k % 500 == 0 {
                            eprint!("\r{k}/{games} games, {:.1}s", start.elapsed().as_secs_f64());
                        }
                        i += threads as u64;
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    runs.sort_by_key(|r| r.0);
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
    for (_, r) in runs {
        for (k, e) in r.ever_legal.iter().enumerate() {
            s.ever_legal[k] |= *e;
        }
        match r.result {
            Ok((turns, o)) => {
                s.completed += 1;
                s.turns.push(turns);
                for (p, sc) in o.scores.iter().enumerate() {
                    s.score_sums[p] += sc;
                }
                for w in &o.winners {
                    s.wins[*w as usize] += 1;
                }
                if o.winners.is_empty() {
                    s.draws += 1;
                }
            }
            Err(e) => {
                s.errors += 1;
                if s.first_error.is_none() {
                    s.first_error = Some(e);
                }
            }
        }
    }
    s
}

/// Node counts of a game tree walk.
pub struct Counts {
    /// `nodes[d]`: the nodes of the game tree at depth `d`, i.e. the sequences of `d` legal
    /// decisions (players' and, with external chance, chance's), from the start at depth 0
    /// to the requested depth; a finished game has no children.
    pub nodes: Vec<u64>,
    /// Finished games among the nodes.
    pub finished: u64,
    /// Finished games by winners: `p1`, `p1+p2`, ... or `none`.
    pub outcomes: BTreeMap<String, u64>,
}

/// Walks every legal action (and every chance outcome) to `depth`.
pub fn count(g: &Game, cfg: &Config, depth: u32) -> Result<Counts, crate::engine::RunError> {
    count_threads(g, cfg, depth, 1)
}

fn walk(
    g: &Game,
    st: &State,
    d: u32,
    max: u32,
    c: &mut Counts,
) -> Result<(), crate::engine::RunError> {
    c.nodes[d as usize] += 1;
    if let Some(o) = st.outcome() {
        c.finished += 1;
        let key = if o.winners.is_empty() {
            "none".to_string()
        } else {
            o.winners
                .iter()
                .map(|w| format!("p{}", w + 1))
                .collect::<Vec<_>>()
                .join("+")
        };
        *c.outcomes.entry(key).or_insert(0) += 1;
        return Ok(());
    }
    if d == max {
        return Ok(());
    }
    let mut buf = Vec::new();
    g.legal(st, &mut buf)?;
    for a in &buf {
        let mut next = st.clone();
        g.apply_unchecked(&mut next, a)?;
        walk(g, &next, d + 1, max, c)?;
    }
    Ok(())
}

/// [`count`] on `threads` threads: the root's children are shared out; the sums are the same.
pub fn count_threads(
    g: &Game,
    cfg: &Config,
    depth: u32,
    threads: usize,
) -> Result<Counts, crate::engine::RunError> {
    let root = g.start(cfg)?;
    let empty = || Counts {
        nodes: vec![0; depth as usize + 1],
        finished: 0,
        outcomes: BTreeMap::new(),
    };
    let mut total = empty();
    let mut buf = Vec::new();
    g.legal(&root, &mut buf)?;
    if depth == 0 || root.is_over() || threads <= 1 {
        walk(g, &root, 0, depth, &mut total)?;
        return Ok(total);
    }
    total.nodes[0] = 1;
    let threads = threads.min(buf.len()).max(1);
    let parts: Vec<Result<Counts, crate::engine::RunError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (buf, root) = (&buf, &root);
                scope.spawn(move || {
                    let mut c = empty();
                    for a in buf.iter().skip(t).step_by(threads) {
                        let mut next = root.clone();
                        g.apply_unchecked(&mut next, a)?;
                        walk(g, &next, 1, depth, &mut c)?;
                    }
                    Ok(c)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(crate::engine::RunError::rule(
                        "a counting thread failed",
                        None,
                    ))
                })
            })
            .collect()
    });
    for p in parts {
        let p = p?;
        for (k, n) in p.nodes.iter().enumerate() {
            total.nodes[k] += n;
        }
        total.finished += p.finished;
        for (k, v) in p.outcomes {
            *total.outcomes.entry(k).or_insert(0) += v;
        }
    }
    Ok(total)
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
            let Ok(text) = std::fs::read_to_string(&f) else {
                continue;
            };
            if let Ok(sf) = crate::syntax::parse_scenarios(&f.display().to_string(), &text) {
                let target = f.parent().unwrap_or(Path::new(".")).join(&sf.rules);
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
        let results = match run_scenario_file(&name, &text, f.parent().unwrap_or(Path::new("."))) {
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
                    println!("ok     {name}: {}", r.name);
                }
                Some((_, msg)) => {
                    failed += 1;
                    println!("FAILED {line}: {}\n       {msg}", r.name);
                }
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    Ok(i32::from(failed > 0))
}

/// Loads and runs the scenarios of one file. Each result comes with `file:line` of the
/// failing step (or of the scenario).
pub fn run_scenario_file(
    name: &str,
    text: &str,
    dir: &Path,
) -> Result<Vec<(crate::engine::scenario::ScenarioResult, String)>, String> {
    let sf = crate::syntax::parse_scenarios(name, text).map_err(|e| render(e.as_ref()))?;
    let rules_path = dir.join(&sf.rules);
    let rules_text = std::fs::read_to_string(&rules_path).map_err(|e| {
        format!(
            "{name}: cannot read rules file {}: {e}\n",
            rules_path.display()
        )
    })?;
    let loaded = check::load(&rules_path.display().to_string(), &rules_text);
    let (Some(g), Some(symbols)) = (loaded.game, loaded.symbols) else {
        return Err(loaded
            .diagnostics
            .problems
            .iter()
            .map(|p| render(p))
            .collect());
    };
    let source = crate::source::Source {
        name: name.to_string(),
        text: text.to_string(),
    };
    let (g, scenarios, diags) = check::scenario::lower(g, symbols, source, &sf);
    if diags.has_errors() {
        return Err(diags.problems.iter().map(|p| render(p)).collect());
    }
    Ok(scenarios
        .iter()
        .map(|s| {
            let r = g.run_scenario(s);
            // A failure may point into the rules file (a game that cannot start) or into the
            // scenario file (a step).
            let at = r.failure.as_ref().map_or(s.span, |(sp, _)| *sp);
            let src = g.source(at);
            (r, format!("{}:{}", src.name, src.line_col(at.start).0))
        })
        .collect())
}
