//! A fuzzer for rulebook that runs on a stable toolchain, with no network:
//!
//!     cargo run --release --example fuzz -- --minutes 30 --seed 1 [--target rules|protocol|lsp|web|all]
//!
//! - `rules`: seeded token-level mutants of every rules file in `rules/`, `tests/fail/`,
//!   `tests/reference/` and `tests/fuzz_findings/` (`fuzz/mutate.rs`) are loaded, checked and
//!   their diagnostics rendered; the ones that check play a few short games through the engine
//!   (`fuzz/exercise.rs`).
//! - `protocol`: random request lines (`fuzz/protocol.rs`) against a `server::Session` of a
//!   game of the corpus: exactly one reply line of JSON per line, and no error reply changes
//!   the match.
//! - `lsp`: random streams of framed LSP messages (`fuzz/lsp.rs`: `initialize`, mutants of the
//!   corpus opened and changed, requests at random positions, parameters of the wrong shape,
//!   garbage bodies, lengths off or huge, lone CRs, missing or endless headers) through
//!   `rulebook::lsp::serve`'s reader and writer, in the worker: the loop must read the input
//!   to its end, and, when every frame is framed exactly, answer every request that has an
//!   id.
//! - `web`: random request scripts (`fuzz/web.rs`) against `rulebook::web::App`, each line
//!   answered as the page's route answers it (`web::request`, the one function that knows the
//!   routes): no status of 500 or more, no `internal_error`. One app per game of the corpus
//!   and worker (each check of the rules is kept for the life of the app), set to a fresh
//!   match before each script.
//!
//! Each input runs in a worker process (this program with `--worker`, reading inputs on
//! stdin): a panic is caught there and reported; a stack overflow or an abort ends the worker,
//! and an input that takes longer than `--timeout` seconds (a web script: per request) gets it killed. The input is then
//! written to `target/fuzz/findings/` (a `.rules` file, a `.protocol` script whose first
//! lines name its rules file and seat, a `.lsp` byte stream, or a `.web` script whose first
//! line names its rules file) with a `.txt` that says what happened; a new worker
//! takes over. At the end (and every 30 s) it prints inputs tried per target and per second,
//! and the findings by kind.
//!
//! Other modes: `--run FILE` runs one input here, in this process (to see a panic's
//! backtrace); `--reduce FILE` shrinks a finding to a smaller input that fails the same way
//! (`FILE.min.rules` or `.min.protocol`). `--jobs N` runs N workers at once (default 1).

#[path = "fuzz/exercise.rs"]
mod exercise;
#[path = "fuzz/lsp.rs"]
mod lsp;
#[path = "fuzz/mutate.rs"]
mod mutate;
#[path = "fuzz/protocol.rs"]
mod protocol;
#[path = "fuzz/web.rs"]
mod web;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Target {
    Rules,
    Protocol,
    Lsp,
    Web,
}

impl Target {
    fn name(self) -> &'static str {
        match self {
            Target::Rules => "rules",
            Target::Protocol => "protocol",
            Target::Lsp => "lsp",
            Target::Web => "web",
        }
    }
}

struct Args {
    minutes: f64,
    seed: u64,
    targets: Vec<Target>,
    timeout: Duration,
    jobs: usize,
    out: PathBuf,
    worker: bool,
    run: Option<PathBuf>,
    reduce: Option<PathBuf>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn args() -> Args {
    let mut a = Args {
        minutes: 1.0,
        seed: 1,
        targets: vec![Target::Rules, Target::Protocol],
        timeout: Duration::from_secs(10),
        jobs: 1,
        out: root().join("target/fuzz/findings"),
        worker: false,
        run: None,
        reduce: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .unwrap_or_else(|| usage(&format!("{flag} needs a value")))
        };
        match flag.as_str() {
            "--minutes" => a.minutes = value().parse().unwrap_or_else(|_| usage("--minutes")),
            "--seed" => a.seed = value().parse().unwrap_or_else(|_| usage("--seed")),
            "--timeout" => {
                a.timeout =
                    Duration::from_secs_f64(value().parse().unwrap_or_else(|_| usage("--timeout")))
            }
            "--jobs" => a.jobs = value().parse().unwrap_or_else(|_| usage("--jobs")),
            "--out" => a.out = PathBuf::from(value()),
            "--target" => {
                a.targets = match value().as_str() {
                    "rules" => vec![Target::Rules],
                    "protocol" => vec![Target::Protocol],
                    "lsp" => vec![Target::Lsp],
                    "web" => vec![Target::Web],
                    "all" => vec![Target::Rules, Target::Protocol, Target::Lsp, Target::Web],
                    _ => usage("--target rules|protocol|lsp|web|all"),
                }
            }
            "--worker" => a.worker = true,
            "--run" => a.run = Some(PathBuf::from(value())),
            "--reduce" => a.reduce = Some(PathBuf::from(value())),
            _ => usage(&format!("unknown argument {flag}")),
        }
    }
    a
}

fn usage(why: &str) -> ! {
    eprintln!(
        "{why}\nusage: fuzz [--minutes M] [--seed S] [--target rules|protocol|lsp|web|all] [--jobs N] \
         [--timeout SECONDS] [--out DIR] | --run FILE | --reduce FILE"
    );
    std::process::exit(2)
}

// ------------------------------------------------------------------ inputs

/// One input: a rules text, or a protocol script against a rules text.
#[derive(Clone)]
enum Input {
    Rules {
        text: String,
        seed: u64,
    },
    Protocol {
        rules: PathBuf,
        text: String,
        seat: Option<u8>,
        lines: Vec<Vec<u8>>,
    },
    Lsp {
        bytes: Vec<u8>,
    },
    Web {
        rules: PathBuf,
        text: String,
        lines: Vec<Vec<u8>>,
    },
}

impl Input {
    /// How long the input may run: `timeout`, or for a web script `timeout` per request, as
    /// each request is bounded on its own (its agents choose for a slice, but one decision of
    /// a search agent may take seconds: `mcts:20` on Dark Hex, 2 s).
    fn timeout(&self, timeout: Duration) -> Duration {
        match self {
            Input::Web { lines, .. } => timeout * lines.len().clamp(1, 100) as u32,
            _ => timeout,
        }
    }

    fn target(&self) -> Target {
        match self {
            Input::Rules { .. } => Target::Rules,
            Input::Protocol { .. } => Target::Protocol,
            Input::Lsp { .. } => Target::Lsp,
            Input::Web { .. } => Target::Web,
        }
    }

    /// The frame a worker reads: a header line, then the bytes it announces.
    fn frame(&self) -> Vec<u8> {
        match self {
            Input::Rules { text, seed } => {
                let mut f = format!("R {seed} {}\n", text.len()).into_bytes();
                f.extend_from_slice(text.as_bytes());
                f
            }
            Input::Protocol {
                text, seat, lines, ..
            } => {
                let script = lines.join(&b'\n');
                let seat = seat.map_or("-".to_string(), |s| s.to_string());
                let mut f = format!("P {seat} {} {}\n", text.len(), script.len()).into_bytes();
                f.extend_from_slice(text.as_bytes());
                f.extend_from_slice(&script);
                f
            }
            Input::Lsp { bytes } => {
                let mut f = format!("L {}\n", bytes.len()).into_bytes();
                f.extend_from_slice(bytes);
                f
            }
            Input::Web { text, lines, .. } => {
                let script = lines.join(&b'\n');
                let mut f = format!("W {} {}\n", text.len(), script.len()).into_bytes();
                f.extend_from_slice(text.as_bytes());
                f.extend_from_slice(&script);
                f
            }
        }
    }

    /// The file a finding is saved as.
    fn file(&self) -> (Vec<u8>, &'static str) {
        match self {
            Input::Rules { text, .. } => (text.clone().into_bytes(), "rules"),
            Input::Protocol {
                rules, seat, lines, ..
            } => {
                let mut f = format!(
                    "#rules {}\n#seat {}\n",
                    rules.display(),
                    seat.map_or("-".to_string(), |s| s.to_string())
                )
                .into_bytes();
                for l in lines {
                    f.extend_from_slice(l);
                    f.push(b'\n');
                }
                (f, "protocol")
            }
            Input::Lsp { bytes } => (bytes.clone(), "lsp"),
            Input::Web { rules, lines, .. } => {
                let mut f = format!("#rules {}\n", rules.display()).into_bytes();
                for l in lines {
                    f.extend_from_slice(l);
                    f.push(b'\n');
                }
                (f, "web")
            }
        }
    }

    /// Reads a saved finding back.
    fn read(path: &Path) -> Input {
        let bytes = std::fs::read(path).unwrap_or_else(|e| usage(&format!("{e}")));
        if path.extension().is_some_and(|x| x == "lsp") {
            return Input::Lsp { bytes };
        }
        if path.extension().is_some_and(|x| x == "web") {
            let mut lines: Vec<Vec<u8>> =
                bytes.split(|b| *b == b'\n').map(<[u8]>::to_vec).collect();
            if lines.last().is_some_and(Vec::is_empty) {
                lines.pop();
            }
            let rules = String::from_utf8_lossy(&lines[0])
                .strip_prefix("#rules ")
                .map(PathBuf::from)
                .unwrap_or_else(|| usage("a web script starts with #rules"));
            let text = std::fs::read_to_string(&rules)
                .or_else(|_| std::fs::read_to_string(root().join(&rules)))
                .unwrap_or_else(|e| usage(&format!("{}: {e}", rules.display())));
            return Input::Web {
                rules,
                text,
                lines: lines.split_off(1),
            };
        }
        if path.extension().is_some_and(|x| x == "protocol") {
            let mut lines: Vec<Vec<u8>> =
                bytes.split(|b| *b == b'\n').map(<[u8]>::to_vec).collect();
            if lines.last().is_some_and(Vec::is_empty) {
                lines.pop();
            }
            let header = |l: &[u8], key: &str| {
                String::from_utf8_lossy(l)
                    .strip_prefix(key)
                    .map(str::to_string)
                    .unwrap_or_else(|| usage("a protocol script starts with #rules and #seat"))
            };
            let rules = PathBuf::from(header(&lines[0], "#rules "));
            let seat = header(&lines[1], "#seat ").parse().ok();
            let text = std::fs::read_to_string(&rules)
                .or_else(|_| std::fs::read_to_string(root().join(&rules)))
                .unwrap_or_else(|e| usage(&format!("{}: {e}", rules.display())));
            Input::Protocol {
                rules,
                text,
                seat,
                lines: lines.split_off(2),
            }
        } else {
            Input::Rules {
                text: String::from_utf8_lossy(&bytes).into_owned(),
                seed: 1,
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            Input::Rules { text, .. } => text.len(),
            Input::Protocol { lines, .. } | Input::Web { lines, .. } => {
                lines.iter().map(|l| l.len() + 1).sum()
            }
            Input::Lsp { bytes } => bytes.len(),
        }
    }
}

// ------------------------------------------------------------------ worker

/// The message of the last panic (set by the hook, read after `catch_unwind`).
static PANIC: Mutex<String> = Mutex::new(String::new());

fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let payload = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        if let Ok(mut p) = PANIC.lock() {
            *p = format!("panicked at {at}: {payload}");
        }
    }));
}

/// Runs one input here: `ok ...`, `violation ...` or `panic ...`, on one line.
fn execute(input: &Input) -> String {
    let result = std::panic::catch_unwind(|| match input {
        Input::Rules { text, seed } => match exercise::check(text) {
            Ok(Ok(g)) => exercise::play(&g, *seed),
            Ok(Err(errors)) => Ok(format!("{errors} error(s)")),
            Err(why) => Err(why),
        },
        Input::Protocol {
            text, seat, lines, ..
        } => match rulebook::load("fuzz.rules", text).game {
            None => Ok("the rules do not check".into()),
            Some(g) => protocol::run(&g, *seat, lines).map(|n| format!("{n} line(s)")),
        },
        Input::Lsp { bytes } => lsp::run(bytes),
        Input::Web { text, lines, .. } => {
            web_app(text, |app| web::run(app, lines)).map(|n| format!("{n} request(s)"))
        }
    });
    let line = match result {
        Ok(Ok(what)) => format!("ok {what}"),
        Ok(Err(why)) => format!("violation {why}"),
        Err(_) => format!(
            "panic {}",
            PANIC.lock().map(|p| p.clone()).unwrap_or_default()
        ),
    };
    line.replace('\n', "\\n").replace('\r', "\\r")
}

thread_local! {
    /// The apps of the web target, one per rules text (each check of the rules is leaked for
    /// the app's life, so an app is made once per game and worker).
    static APPS: std::cell::RefCell<BTreeMap<String, rulebook::web::App>> =
        const { std::cell::RefCell::new(BTreeMap::new()) };
}

/// Runs `f` on the app of a rules text, set to a fresh match of all humans; an app that saw
/// a panic is not used again.
fn web_app(
    text: &str,
    f: impl FnOnce(&mut rulebook::web::App) -> Result<usize, String>,
) -> Result<usize, String> {
    let mut app = APPS
        .with(|a| a.borrow_mut().remove(text))
        .unwrap_or_else(|| {
            let mut app = rulebook::web::App::new("fuzz.rules".into());
            // A script is dozens of requests under one timeout: each lets agents choose for
            // a shorter slice than the page's (the bound per request is what is tested).
            app.agent_slice = std::time::Duration::from_millis(50);
            app.reload(text.to_string());
            app
        });
    let players = app.info().min_players;
    if players > 0 {
        let fresh = rulebook::web::Setup {
            players,
            variant: None,
            seed: 1,
            humans: vec![true; players as usize],
            agent: "random".into(),
        };
        app.start(fresh)
            .map_err(|e| format!("a fresh match: {e}"))?;
    }
    let out = f(&mut app);
    APPS.with(|a| a.borrow_mut().insert(text.to_string(), app));
    out
}

fn worker() {
    quiet_panics();
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout().lock();
    let mut header = String::new();
    loop {
        header.clear();
        if input.read_line(&mut header).unwrap_or(0) == 0 {
            return;
        }
        let parts: Vec<&str> = header.split_whitespace().collect();
        let mut take = |n: usize| {
            let mut buf = vec![0; n];
            input.read_exact(&mut buf).map(|_| buf)
        };
        let job = match parts.as_slice() {
            ["R", seed, len] => {
                let Ok(text) = take(len.parse().unwrap_or(0)) else {
                    return;
                };
                Input::Rules {
                    text: String::from_utf8_lossy(&text).into_owned(),
                    seed: seed.parse().unwrap_or(0),
                }
            }
            ["P", seat, rules, script] => {
                let (Ok(text), Ok(script)) = (
                    take(rules.parse().unwrap_or(0)),
                    take(script.parse().unwrap_or(0)),
                ) else {
                    return;
                };
                Input::Protocol {
                    rules: PathBuf::new(),
                    text: String::from_utf8_lossy(&text).into_owned(),
                    seat: seat.parse().ok(),
                    lines: script.split(|b| *b == b'\n').map(<[u8]>::to_vec).collect(),
                }
            }
            ["L", len] => {
                let Ok(bytes) = take(len.parse().unwrap_or(0)) else {
                    return;
                };
                Input::Lsp { bytes }
            }
            ["W", rules, script] => {
                let (Ok(text), Ok(script)) = (
                    take(rules.parse().unwrap_or(0)),
                    take(script.parse().unwrap_or(0)),
                ) else {
                    return;
                };
                Input::Web {
                    rules: PathBuf::new(),
                    text: String::from_utf8_lossy(&text).into_owned(),
                    lines: script.split(|b| *b == b'\n').map(<[u8]>::to_vec).collect(),
                }
            }
            _ => return,
        };
        let reply = execute(&job);
        if writeln!(out, "{reply}").and_then(|_| out.flush()).is_err() {
            return;
        }
    }
}

/// What became of an input in a worker.
#[derive(Clone, Debug)]
enum Outcome {
    /// Nothing wrong; `true` when the rules checked and games were played.
    Ok(bool),
    /// A broken promise, a panic, a crash (the worker died) or a hang: a signature that
    /// groups findings of one cause, and the whole story.
    Found { signature: String, detail: String },
}

struct Worker {
    child: Child,
    stdin: ChildStdin,
    replies: Receiver<String>,
    stderr: Arc<Mutex<String>>,
}

impl Worker {
    fn spawn() -> Worker {
        let mut child = Command::new(std::env::current_exe().expect("this program"))
            .arg("--worker")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("a worker");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let mut stderr = child.stderr.take().expect("stderr");
        let (tx, replies) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let tail = Arc::new(Mutex::new(String::new()));
        let keep = tail.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut t = keep.lock().expect("stderr");
                t.push_str(&String::from_utf8_lossy(&buf[..n]));
                if t.len() > 8192 {
                    let cut = t.len() - 4096;
                    let cut = (cut..t.len()).find(|i| t.is_char_boundary(*i)).unwrap_or(0);
                    t.drain(..cut);
                }
            }
        });
        Worker {
            child,
            stdin,
            replies,
            stderr: tail,
        }
    }

    /// Runs an input; the worker must be replaced after anything but `Ok` or a caught panic
    /// or violation.
    fn check(&mut self, input: &Input, timeout: Duration) -> (Outcome, bool) {
        if self
            .stdin
            .write_all(&input.frame())
            .and_then(|_| self.stdin.flush())
            .is_err()
        {
            return (self.crashed(), true);
        }
        match self.replies.recv_timeout(timeout) {
            Ok(reply) => {
                if let Some(what) = reply.strip_prefix("ok") {
                    return (Outcome::Ok(what.starts_with(" a game")), false);
                }
                let (kind, rest) = reply.split_once(' ').unwrap_or((&reply, ""));
                let signature = match kind {
                    "panic" => format!(
                        "panic {}",
                        rest.split(": ")
                            .next()
                            .unwrap_or(rest)
                            .trim_start_matches("panicked at ")
                    ),
                    _ => format!("{kind} {}", shape(rest)),
                };
                let detail = rest.replace("\\n", "\n").replace("\\r", "\r");
                (Outcome::Found { signature, detail }, false)
            }
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                let _ = self.child.wait();
                (
                    Outcome::Found {
                        signature: "hang".into(),
                        detail: format!("no reply within {:?}", timeout),
                    },
                    true,
                )
            }
            Err(RecvTimeoutError::Disconnected) => (self.crashed(), true),
        }
    }

    fn crashed(&mut self) -> Outcome {
        let status = self.child.wait().map(|s| s.to_string()).unwrap_or_default();
        std::thread::sleep(Duration::from_millis(50)); // the stderr reader catches up
        let tail = self.stderr.lock().map(|t| t.clone()).unwrap_or_default();
        let kind = if tail.contains("overflowed its stack") {
            "stack overflow"
        } else if tail.contains("memory allocation") {
            "out of memory"
        } else {
            "abort"
        };
        Outcome::Found {
            signature: format!("crash ({kind})"),
            detail: format!("the worker died: {status}\n{tail}"),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A message with its numbers and quotes blurred, so that findings of one cause share a
/// signature.
fn shape(message: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    for c in message.chars().take(80) {
        match c {
            '`' => {
                quoted = !quoted;
                out.push('`');
            }
            _ if quoted => {}
            c if c.is_ascii_digit() => {
                if !out.ends_with('#') {
                    out.push('#');
                }
            }
            c => out.push(c),
        }
    }
    out
}

// ------------------------------------------------------------------ findings

#[derive(Default)]
struct Findings {
    by_signature: BTreeMap<String, (u64, Vec<PathBuf>)>,
}

impl Findings {
    /// Records a finding; saves its input (the first three of each signature).
    fn add(&mut self, dir: &Path, input: &Input, signature: &str, detail: &str, what: &str) {
        let entry = self.by_signature.entry(signature.to_string()).or_default();
        entry.0 += 1;
        if entry.1.len() >= 3 {
            return;
        }
        let _ = std::fs::create_dir_all(dir);
        let (bytes, ext) = input.file();
        let hash = signature.bytes().fold(0xcbf29ce484222325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100000001b3)
        });
        let kind = signature.split(' ').next().unwrap_or("finding");
        let path = dir.join(format!(
            "{kind}-{:08x}-{}.{ext}",
            hash as u32,
            entry.1.len() + 1
        ));
        let _ = std::fs::write(&path, &bytes);
        let _ = std::fs::write(
            path.with_extension(format!("{ext}.txt")),
            format!(
                "{signature}\n\nmutations: {what}\nsize: {} bytes\n\n{detail}\n\nreproduce: cargo run --release --example fuzz -- --run {}\n",
                bytes.len(),
                path.display()
            ),
        );
        entry.1.push(path);
    }
}

// ------------------------------------------------------------------ the run

/// The games of the corpus that check, for protocol scripts.
fn games(corpus: &mutate::Corpus) -> Vec<(PathBuf, String, rulebook::Game)> {
    corpus
        .files
        .iter()
        .filter_map(|(p, t)| {
            rulebook::load("corpus.rules", t).game.map(|g| {
                (
                    p.strip_prefix(root()).unwrap_or(p).to_path_buf(),
                    t.clone(),
                    g,
                )
            })
        })
        .collect()
}

struct Stats {
    tried: BTreeMap<&'static str, u64>,
    /// Mutants that checked, and were played.
    played: u64,
    findings: Findings,
}

fn fuzz(a: &Args) {
    let corpus = mutate::Corpus::load(&root());
    let games = games(&corpus);
    eprintln!(
        "corpus: {} rules files, {} of them games; seed {}, {} job(s), {} minute(s)",
        corpus.files.len(),
        games.len(),
        a.seed,
        a.jobs,
        a.minutes
    );
    let stats = Mutex::new(Stats {
        tried: BTreeMap::new(),
        played: 0,
        findings: Findings::default(),
    });
    let start = Instant::now();
    let until = start + Duration::from_secs_f64(a.minutes * 60.0);
    std::thread::scope(|scope| {
        for job in 0..a.jobs {
            let (corpus, games, stats) = (&corpus, &games, &stats);
            scope.spawn(move || {
                let mut rng = ChaCha8Rng::seed_from_u64(a.seed.wrapping_add(job as u64 * 7919));
                let mut w = Worker::spawn();
                let mut n: u64 = 0;
                while Instant::now() < until {
                    let target = a.targets[n as usize % a.targets.len()];
                    n += 1;
                    let (input, what) = match target {
                        Target::Rules => {
                            let (text, what) = mutate::mutant(&mut rng, corpus);
                            (
                                Input::Rules {
                                    text,
                                    seed: rng.gen(),
                                },
                                what,
                            )
                        }
                        Target::Protocol => {
                            let (path, text, g) = &games[rng.gen_range(0..games.len())];
                            let seat = rng.gen_bool(0.3).then(|| rng.gen_range(0..g.max_players));
                            let len = rng.gen_range(5..60);
                            let lines = protocol::script(&mut rng, g, len);
                            let what = format!("{} script of {len} line(s)", path.display());
                            let input = Input::Protocol {
                                rules: path.clone(),
                                text: text.clone(),
                                seat,
                                lines,
                            };
                            (input, what)
                        }
                        Target::Lsp => {
                            let (bytes, what) = lsp::input(&mut rng, corpus);
                            (Input::Lsp { bytes }, what)
                        }
                        Target::Web => {
                            let (path, text, g) = &games[rng.gen_range(0..games.len())];
                            let len = rng.gen_range(5..40);
                            let lines = web::script(&mut rng, g, len);
                            let what = format!("{} script of {len} line(s)", path.display());
                            let input = Input::Web {
                                rules: path.clone(),
                                text: text.clone(),
                                lines,
                            };
                            (input, what)
                        }
                    };
                    let (outcome, replace) = w.check(&input, input.timeout(a.timeout));
                    if replace {
                        w = Worker::spawn();
                    }
                    let mut s = stats.lock().expect("stats");
                    *s.tried.entry(input.target().name()).or_default() += 1;
                    if let Outcome::Ok(true) = outcome {
                        s.played += 1;
                    }
                    if let Outcome::Found { signature, detail } = outcome {
                        let first = !s.findings.by_signature.contains_key(&signature);
                        s.findings.add(&a.out, &input, &signature, &detail, &what);
                        if first {
                            eprintln!("new finding: {signature}");
                        }
                    }
                }
            });
        }
        // Progress every 30 s.
        let mut last = Instant::now();
        while Instant::now() < until {
            std::thread::sleep(Duration::from_millis(200));
            if last.elapsed() >= Duration::from_secs(30) {
                last = Instant::now();
                report(&stats.lock().expect("stats"), start.elapsed(), false);
            }
        }
    });
    report(&stats.lock().expect("stats"), start.elapsed(), true);
}

fn report(s: &Stats, elapsed: Duration, last: bool) {
    let secs = elapsed.as_secs_f64().max(1e-9);
    let tried: Vec<String> = s
        .tried
        .iter()
        .map(|(t, n)| format!("{t}: {n} inputs ({:.1}/s)", *n as f64 / secs))
        .collect();
    eprintln!(
        "[{:>4.0}s] {} ({} mutants checked and played); {} finding(s) of {} kind(s)",
        secs,
        tried.join(", "),
        s.played,
        s.findings.by_signature.values().map(|v| v.0).sum::<u64>(),
        s.findings.by_signature.len()
    );
    if last {
        for (sig, (n, files)) in &s.findings.by_signature {
            eprintln!("  {n:>6} x {sig}");
            for f in files {
                eprintln!("           {}", f.display());
            }
        }
    }
}

// ------------------------------------------------------------------ reduce

/// Shrinks a finding: removes chunks of lines, then of tokens (rules) or lines (scripts),
/// as long as the input still fails with the same signature.
fn reduce(path: &Path, timeout: Duration) {
    let input = Input::read(path);
    let mut w = Worker::spawn();
    let fails = |i: &Input, w: &mut Worker| -> Option<String> {
        let (o, replace) = w.check(i, i.timeout(timeout));
        if replace {
            *w = Worker::spawn();
        }
        match o {
            Outcome::Ok(_) => None,
            Outcome::Found { signature, .. } => Some(signature),
        }
    };
    let Some(want) = fails(&input, &mut w) else {
        eprintln!("{}: does not fail", path.display());
        return;
    };
    eprintln!("{}: {want} ({} bytes)", path.display(), input.len());
    let mut best = input;
    // Pieces: lines, then tokens, for rules; lines for scripts.
    for level in 0..2 {
        let pieces = |i: &Input| -> Vec<Vec<u8>> {
            match i {
                Input::Rules { text, .. } if level == 0 => text
                    .split_inclusive('\n')
                    .map(|l| l.as_bytes().to_vec())
                    .collect(),
                Input::Rules { text, .. } => mutate::tokens(text)
                    .into_iter()
                    .map(|t| t.text.into_bytes())
                    .collect(),
                Input::Protocol { lines, .. } | Input::Web { lines, .. } => lines.clone(),
                // Frames, cut before each `Content-Length`.
                Input::Lsp { bytes } => {
                    let mut out: Vec<Vec<u8>> = vec![];
                    let mut start = 0;
                    for i in 1..bytes.len() {
                        if bytes[i..].starts_with(b"Content-Length") {
                            out.push(bytes[start..i].to_vec());
                            start = i;
                        }
                    }
                    out.push(bytes[start..].to_vec());
                    out
                }
            }
        };
        let rebuild = |i: &Input, keep: Vec<Vec<u8>>| -> Input {
            match i {
                Input::Rules { seed, .. } => Input::Rules {
                    text: String::from_utf8_lossy(&keep.concat()).into_owned(),
                    seed: *seed,
                },
                Input::Protocol {
                    rules, text, seat, ..
                } => Input::Protocol {
                    rules: rules.clone(),
                    text: text.clone(),
                    seat: *seat,
                    lines: keep,
                },
                Input::Lsp { .. } => Input::Lsp {
                    bytes: keep.concat(),
                },
                Input::Web { rules, text, .. } => Input::Web {
                    rules: rules.clone(),
                    text: text.clone(),
                    lines: keep,
                },
            }
        };
        if level == 1 && !matches!(best, Input::Rules { .. }) {
            break;
        }
        let mut chunk = pieces(&best).len().div_ceil(2).max(1);
        loop {
            let mut at = 0;
            while at < pieces(&best).len() {
                let mut p = pieces(&best);
                let end = (at + chunk).min(p.len());
                p.drain(at..end);
                let candidate = rebuild(&best, p);
                if fails(&candidate, &mut w).as_deref() == Some(want.as_str()) {
                    best = candidate;
                    eprintln!("  {} bytes", best.len());
                } else {
                    at += chunk;
                }
            }
            if chunk == 1 {
                break;
            }
            chunk = chunk.div_ceil(2);
        }
    }
    let (bytes, ext) = best.file();
    let out = path.with_extension(format!("min.{ext}"));
    std::fs::write(&out, bytes).expect("writable");
    eprintln!("{want}: {} bytes in {}", best.len(), out.display());
}

fn main() {
    let a = args();
    if a.worker {
        worker();
    } else if let Some(path) = &a.run {
        quiet_panics();
        let input = Input::read(path);
        let out = execute(&input);
        println!("{}", out.replace("\\n", "\n"));
    } else if let Some(path) = &a.reduce {
        reduce(path, a.timeout);
    } else {
        fuzz(&a);
    }
}
