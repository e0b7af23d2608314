//! The differential check: seeded random games played by the engine, every decision's
//! legal list compared with the reference's, and every finished game's outcome with the
//! reference's scores and winners. Used by `tests/oracle.rs` and `examples/oracle.rs`.

use super::{
    chance_outcomes, ended, is_legal, options, scores, window_asks, winners, Listing, Skip,
};
use crate::engine::{Action, Actor, ChanceMode, Config, OutcomeKind, RunError, State};
use crate::ir::scenario::{Scenario, Step};
use crate::ir::Game;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::fmt;

/// What the games compared so far covered.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Games started.
    pub games: u64,
    /// Games that reached their end (the others stopped at the decision cap or an error).
    pub finished: u64,
    /// Decisions whose options were compared.
    pub compared: u64,
    /// Options compared (engine's list length, summed).
    pub options: u64,
    /// Chance events (external chance) whose outcomes and weights were compared.
    pub chance: u64,
    /// Determinized worlds (a decision's state with what its chooser cannot see dealt
    /// anew, as agents search) whose decision was compared too.
    pub worlds: u64,
    /// Decisions not compared, by why.
    pub skipped: BTreeMap<Skip, u64>,
    /// Options of decisions not compared (sequence actions) whose first part was checked
    /// against the reference's guard.
    pub guarded: u64,
    /// Games the engine stopped with an error (a rule error, a limit), by the error's code.
    pub errors: BTreeMap<&'static str, u64>,
}

impl Tally {
    /// Adds another tally's counts to this one.
    pub fn add(&mut self, o: &Tally) {
        self.games += o.games;
        self.finished += o.finished;
        self.compared += o.compared;
        self.options += o.options;
        self.guarded += o.guarded;
        self.chance += o.chance;
        self.worlds += o.worlds;
        for (k, n) in &o.skipped {
            *self.skipped.entry(*k).or_default() += n;
        }
        for (k, n) in &o.errors {
            *self.errors.entry(k).or_default() += n;
        }
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} games ({} finished), {} decisions compared ({} options)",
            self.games, self.finished, self.compared, self.options
        )?;
        let skipped: u64 = self.skipped.values().sum();
        if skipped > 0 {
            write!(f, ", {skipped} skipped (")?;
            let parts: Vec<String> = (self.skipped.iter())
                .map(|(k, n)| format!("{k:?} {n}"))
                .collect();
            write!(f, "{})", parts.join(", "))?;
        }
        if self.chance > 0 {
            write!(f, ", {} chance events", self.chance)?;
        }
        if self.worlds > 0 {
            write!(f, ", {} determinized worlds", self.worlds)?;
        }
        if self.guarded > 0 {
            write!(f, ", {} of their options guard-checked", self.guarded)?;
        }
        for (code, n) in &self.errors {
            write!(f, ", {n} stopped by {code}")?;
        }
        Ok(())
    }
}

/// The first difference found between the engine and the reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The match's seed (also the seed of the random picks).
    pub seed: u64,
    /// Seats in the match.
    pub players: u8,
    /// The match's variant, if any.
    pub variant: Option<String>,
    /// The scenario the game started from, if any.
    pub scenario: Option<String>,
    /// The state (counted from 1 in the game: each decision, each step of a scenario) where
    /// they differ; for the outcome, the last.
    pub decision: u64,
    /// What differs.
    pub what: String,
    /// The engine's answer.
    pub engine: Vec<String>,
    /// The reference's answer.
    pub reference: Vec<String>,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(sc) = &self.scenario {
            write!(f, "scenario {sc:?}, ")?;
        }
        writeln!(
            f,
            "seed {}, {} players{}, decision {}: {}",
            self.seed,
            self.players,
            self.variant
                .as_ref()
                .map_or(String::new(), |v| format!(", variant {v}")),
            self.decision,
            self.what
        )?;
        writeln!(f, "  engine:    {:?}", self.engine)?;
        write!(f, "  reference: {:?}", self.reference)
    }
}

/// Compares the engine's legal texts with the reference's, in order: `None` when equal,
/// else what differs (the first position where they part).
pub fn compare_lists(engine: &[String], reference: &[String]) -> Option<String> {
    if engine == reference {
        return None;
    }
    let at = (engine.iter().zip(reference))
        .position(|(a, b)| a != b)
        .unwrap_or(engine.len().min(reference.len()));
    Some(format!(
        "legal lists differ at position {at} (engine {} options, reference {})",
        engine.len(),
        reference.len()
    ))
}

/// A small seeded generator for the random picks (splitmix64).
struct Picks(u64);

impl Picks {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z % n.max(1) as u64) as usize
    }
}

/// One game: the engine plays random legal actions (seeded by `cfg.seed`), at most `cap`
/// decisions; at each, its legal list is compared with the reference's. Counts go to
/// `tally`; the first difference is returned.
pub fn play(g: &Game, cfg: &Config, cap: u64, tally: &mut Tally) -> Result<(), Box<Difference>> {
    let st = match g.start(cfg) {
        Ok(st) => st,
        Err(e) => {
            *tally.errors.entry(e.code()).or_default() += 1;
            return Ok(());
        }
    };
    tally.games += 1;
    let mut run = Run::new(cfg, None);
    run.walk(g, st, cap, tally)
}

/// One scenario (its position set up and its actions applied, the expectations left to
/// `tests/scenarios.rs`): every state it reaches compared, then a random game from where it
/// ends, at most `cap` decisions.
pub fn scenario(
    g: &Game,
    sc: &Scenario,
    cap: u64,
    tally: &mut Tally,
) -> Result<(), Box<Difference>> {
    let mut cfg = Config {
        players: g.min_players,
        ..Config::default()
    };
    let mut st: Option<State> = None;
    let mut run = Run::new(&cfg, Some(sc.name.clone()));
    for (step, _) in &sc.steps {
        match step {
            Step::Players(n) => cfg.players = *n,
            Step::Seed(s) => cfg.seed = *s,
            Step::Variant(v) => cfg.variant = Some(v.clone()),
            Step::Set(name, value) => cfg.set.push((name.clone(), value.clone())),
            Step::ExternalChance => cfg.chance = ChanceMode::External,
            _ => {}
        }
        if st.is_none() && !configures(step) {
            match g.start(&cfg) {
                Ok(s) => st = Some(s),
                Err(e) => {
                    *tally.errors.entry(e.code()).or_default() += 1;
                    return Ok(());
                }
            }
            tally.games += 1;
            run = Run::new(&cfg, Some(sc.name.clone()));
            run.check(g, st.as_ref().expect("started"), tally)?;
        }
        let Some(s) = st.as_mut() else { continue };
        let done = match step {
            Step::Setup(p) => g.exec_proc(s, *p),
            Step::Apply(t) => apply_text(g, s, t),
            _ => continue,
        };
        if let Err(e) = done {
            // The scenario expects it, or tests/scenarios.rs tells what went wrong.
            *tally.errors.entry(e.code()).or_default() += 1;
            return Ok(());
        }
        run.check(g, s, tally)?;
    }
    match st {
        Some(s) => run.walk(g, s, cap, tally),
        None => Ok(()),
    }
}

/// A step that configures the match (it comes before the match starts).
fn configures(step: &Step) -> bool {
    matches!(
        step,
        Step::Players(_) | Step::Seed(_) | Step::Variant(_) | Step::Set(..) | Step::ExternalChance
    )
}

/// Applies the option with this text, as a scenario's `apply` does: a waiting window that
/// does not offer it is passed first.
fn apply_text(g: &Game, st: &mut State, text: &str) -> Result<(), RunError> {
    let norm = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut legal = Vec::new();
    while g.window_waits(st) {
        g.legal(st, &mut legal)?;
        if legal
            .iter()
            .any(|a| norm(&g.action_text(st, a)) == norm(text))
        {
            break;
        }
        let pass = g.parse_action(st, "pass")?;
        g.apply(st, &pass)?;
    }
    let a = g.parse_action(st, text)?;
    g.apply(st, &a)
}

/// One game being compared: who it is for the report, its decisions so far, and its
/// generators (the random picks, the determinized worlds).
struct Run {
    seed: u64,
    players: u8,
    variant: Option<String>,
    scenario: Option<String>,
    n: u64,
    picks: Picks,
    rng: ChaCha8Rng,
}

impl Run {
    fn new(cfg: &Config, scenario: Option<String>) -> Run {
        Run {
            seed: cfg.seed,
            players: cfg.players,
            variant: cfg.variant.clone(),
            scenario,
            n: 0,
            picks: Picks(cfg.seed ^ 0x5EED),
            rng: ChaCha8Rng::seed_from_u64(cfg.seed),
        }
    }

    fn diff(&self, (what, engine, reference): Found) -> Box<Difference> {
        Box::new(Difference {
            seed: self.seed,
            players: self.players,
            variant: self.variant.clone(),
            scenario: self.scenario.clone(),
            decision: self.n,
            what,
            engine,
            reference,
        })
    }

    /// Random legal actions from `st` on, each state compared, at most `cap` decisions.
    fn walk(
        &mut self,
        g: &Game,
        mut st: State,
        cap: u64,
        tally: &mut Tally,
    ) -> Result<(), Box<Difference>> {
        let mut legal: Vec<Action> = Vec::new();
        for _ in 0..cap {
            if st.is_over() {
                tally.finished += 1;
                return outcome(g, &st).map_err(|f| self.diff(f));
            }
            self.check(g, &st, tally)?;
            if g.legal(&st, &mut legal).is_err() || legal.is_empty() {
                break;
            }
            let a = legal[self.picks.below(legal.len())];
            if let Err(e) = g.apply(&mut st, &a) {
                *tally.errors.entry(e.code()).or_default() += 1;
                return Ok(());
            }
        }
        Ok(())
    }

    /// Compares the state's decision (a player's or chance's) and, for a player's, that of
    /// a world determinized for the chooser.
    fn check(&mut self, g: &Game, st: &State, tally: &mut Tally) -> Result<(), Box<Difference>> {
        self.n += 1;
        if st.is_over() {
            return Ok(());
        }
        let mut legal = Vec::new();
        let listed = g.legal(st, &mut legal);
        let texts: Vec<String> = legal.iter().map(|a| g.action_text(st, a)).collect();
        if g.actor(st) == Actor::Chance {
            return chance(g, st, &texts, tally).map_err(|f| self.diff(f));
        }
        if let Err(what) = decision(g, st, &listed, &legal, tally).and_then(|_| asked(g, st)) {
            let reference = match options(g, st) {
                Ok(Listing::Options(list)) => list.into_iter().map(|o| o.text).collect(),
                Ok(Listing::Skipped(k)) => vec![format!("skipped: {k:?}")],
                Err(e) => vec![format!("error: {}", e.message())],
            };
            let engine = match listed {
                Ok(()) => texts,
                Err(e) => vec![format!("error: {}", e.message())],
            };
            return Err(self.diff((what, engine, reference)));
        }
        world(g, st, &mut self.rng, tally).map_err(|f| self.diff(f))
    }
}

/// Compares one decision: the engine's list (`legal`, or the error `listed` gave) with
/// the reference's, in order, text by text and value by value; each option the engine
/// lists must be legal by the reference's guard, and no `end when` may hold. A decision the
/// reference does not cover is counted in `tally` as skipped. `Err` says what differs.
pub fn decision(
    g: &Game,
    st: &State,
    listed: &Result<(), RunError>,
    legal: &[Action],
    tally: &mut Tally,
) -> Result<(), String> {
    let list = match (options(g, st), listed) {
        (Ok(Listing::Skipped(k)), _) => {
            *tally.skipped.entry(k).or_default() += 1;
            return guards(g, st, legal, tally);
        }
        (Ok(Listing::Options(list)), Ok(())) => list,
        (Err(_), Err(_)) => {
            tally.compared += 1;
            return Ok(());
        }
        (Err(e), Ok(())) => return Err(format!("only the reference fails: {}", e.message())),
        (Ok(_), Err(e)) => return Err(format!("only the engine fails: {}", e.message())),
    };
    tally.compared += 1;
    tally.options += legal.len() as u64;
    let texts: Vec<String> = legal.iter().map(|a| g.action_text(st, a)).collect();
    let mine: Vec<String> = list.iter().map(|o| o.text.clone()).collect();
    if let Some(what) = compare_lists(&texts, &mine) {
        return Err(what);
    }
    for (a, o) in legal.iter().zip(&list) {
        let n = o.args.len();
        if a.arm != o.arm || a.args[..n.min(a.args.len())] != o.args[..] {
            return Err(format!("same text, other values: `{}`", o.text));
        }
    }
    match ended(g, st) {
        Ok(false) => {}
        Ok(true) => return Err("an `end when` condition holds at a decision".into()),
        Err(e) => {
            return Err(format!(
                "`end when` fails by the reference: {}",
                e.message()
            ))
        }
    }
    let guarded = tally.guarded;
    guards(g, st, legal, tally)?;
    tally.guarded = guarded;
    Ok(())
}

/// At a window (3.9.2), the seat asked must be the one the reference asks (the first in
/// seat order from the current player that has not passed and has a window action). Not
/// asked of a determinized world: what the chooser cannot see is dealt anew there, without
/// what the window told it (that the seats before it had no window action).
pub fn asked(g: &Game, st: &State) -> Result<(), String> {
    if let Ok(Listing::Skipped(_)) | Err(_) = options(g, st) {
        return Ok(());
    }
    match (window_asks(g, st), g.actor(st)) {
        (Ok(Some(p)), Actor::Player(q)) if p == q => Ok(()),
        (Ok(p), q) => Err(format!("the reference asks {p:?}, the engine {q:?}")),
        (Err(e), _) => Err(format!("the reference's window fails: {}", e.message())),
    }
}

/// Each option the engine lists (the first part of a sequence action's) must be legal by
/// the reference's guard.
fn guards(g: &Game, st: &State, legal: &[Action], tally: &mut Tally) -> Result<(), String> {
    for a in legal {
        match is_legal(g, st, a) {
            Ok(Some(true)) => tally.guarded += 1,
            Ok(None) => {}
            Ok(Some(false)) => {
                let text = g.action_text(st, a);
                return Err(format!("`{text}` is not legal by the reference's guard"));
            }
            Err(e) => return Err(format!("the reference's guard fails: {}", e.message())),
        }
    }
    Ok(())
}

/// Compares a finished game's outcome with the reference's scores and winners.
#[allow(clippy::type_complexity)]
fn outcome(g: &Game, st: &State) -> Result<(), (String, Vec<String>, Vec<String>)> {
    let Some(out) = st.outcome() else {
        return Ok(());
    };
    let show = |v: &[i64]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    match scores(g, st) {
        Ok(s) if s == out.scores => {}
        Ok(s) => return Err(("scores differ".into(), show(&out.scores), show(&s))),
        Err(e) => {
            let what = format!("the reference's score fails: {}", e.message());
            return Err((what, show(&out.scores), vec![]));
        }
    }
    if out.kind == OutcomeKind::Scored {
        let seats = |v: &[u8]| v.iter().map(|p| format!("p{}", p + 1)).collect::<Vec<_>>();
        match winners(g, st) {
            Ok(Some(w)) if w == out.winners => {}
            Ok(w) => {
                let mine = w.map_or(vec!["draw".to_string()], |w| seats(&w));
                return Err(("winners differ".into(), seats(&out.winners), mine));
            }
            Err(e) => {
                let what = format!("the reference's tie-breakers fail: {}", e.message());
                return Err((what, seats(&out.winners), vec![]));
            }
        }
    }
    Ok(())
}

/// What differs, and the engine's and the reference's answers.
type Found = (String, Vec<String>, Vec<String>);

/// Compares a chance event's outcomes (texts and weights, in order) and the engine's legal
/// texts with the reference's; no `end when` may hold.
fn chance(g: &Game, st: &State, texts: &[String], tally: &mut Tally) -> Result<(), Found> {
    let mut engine = Vec::new();
    let listed = g.chance_outcomes(st, &mut |v, w| {
        engine.push(format!("{} x{w}", g.action_text(st, &Action::chance(v))))
    });
    let mine = match (chance_outcomes(g, st), listed) {
        (Ok(None), _) => {
            *tally.skipped.entry(Skip::Chance).or_default() += 1;
            return Ok(());
        }
        (Ok(Some(list)), Ok(_)) => list,
        (Err(_), Err(_)) => return Ok(()),
        (Err(e), Ok(_)) => {
            let what = format!("only the reference fails: {}", e.message());
            return Err((what, engine, vec![]));
        }
        (Ok(Some(_)), Err(e)) => {
            let what = format!("only the engine fails: {}", e.message());
            return Err((what, vec![], engine));
        }
    };
    tally.chance += 1;
    let weighted: Vec<String> = mine.iter().map(|(t, w)| format!("{t} x{w}")).collect();
    if let Some(what) = compare_lists(&engine, &weighted) {
        return Err((format!("chance outcomes: {what}"), engine, weighted));
    }
    let plain: Vec<String> = mine.into_iter().map(|(t, _)| t).collect();
    if let Some(what) = compare_lists(texts, &plain) {
        return Err((format!("chance texts: {what}"), texts.to_vec(), plain));
    }
    match ended(g, st) {
        Ok(false) => Ok(()),
        Ok(true) => Err((
            "an `end when` holds at a chance event".into(),
            vec![],
            vec![],
        )),
        Err(e) => Err((format!("`end when` fails: {}", e.message()), vec![], vec![])),
    }
}

/// At a player's decision in a game that hides something: a world determinized for the
/// chooser (what it cannot see dealt anew, as agents search) waits at the same decision,
/// whose options are compared like the game's.
fn world(g: &Game, st: &State, rng: &mut ChaCha8Rng, tally: &mut Tally) -> Result<(), Found> {
    let Actor::Player(seat) = g.actor(st) else {
        return Ok(());
    };
    if g.hides_nothing() {
        return Ok(());
    }
    let w = g.determinize(st, Some(seat), rng);
    let mut legal = Vec::new();
    let listed = g.legal(&w, &mut legal);
    let mut scratch = Tally::default();
    if let Err(what) = decision(g, &w, &listed, &legal, &mut scratch) {
        let engine = legal.iter().map(|a| g.action_text(&w, a)).collect();
        let reference = match options(g, &w) {
            Ok(Listing::Options(list)) => list.into_iter().map(|o| o.text).collect(),
            _ => vec![],
        };
        return Err((
            format!("in a determinized world: {what}"),
            engine,
            reference,
        ));
    }
    tally.worlds += scratch.compared;
    Ok(())
}
