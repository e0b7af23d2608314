//! A match: a state with its configuration, its action log and its undo history, plus saves
//! that replay exactly.

use super::seen::{Made, SeenLine, HIDDEN};
use super::{Action, Actor, Config, RunError, State, View, WhyNot};
use crate::ir::Game;
use serde::{Deserialize, Serialize};

/// The version written in every save; a save of another version is refused.
pub const SAVE_VERSION: u32 = 1;

/// A saved match: enough to replay it exactly, and a hash that ties it to its rules file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Save {
    /// The save format version, [`SAVE_VERSION`] when written by this rulebook.
    pub version: u32,
    /// FNV-1a hash of the rules text, as a hex string.
    pub rules_hash: String,
    /// The configuration the match started with.
    pub config: Config,
    /// Every decision in order, as canonical text (chance outcomes too, when chance is external).
    pub log: Vec<String>,
}

/// A running match of a game.
///
/// ```
/// let text = std::fs::read_to_string("rules/classic/tic_tac_toe.rules").unwrap();
/// let game = rulebook::load("tic_tac_toe.rules", &text).game.expect("valid rules");
/// let config = rulebook::Config { players: 2, seed: 1, ..Default::default() };
/// let mut m = rulebook::engine::Match::new(&game, config).unwrap();
/// assert_eq!(m.actor(), rulebook::Actor::Player(0));
/// m.apply_text("place cell=b2").unwrap();
/// assert!(!m.why("place cell=b2").unwrap().legal); // taken now
/// m.undo().unwrap();
/// assert!(m.why("place cell=b2").unwrap().legal);
/// ```
pub struct Match<'g> {
    game: &'g Game,
    config: Config,
    state: State,
    log: Vec<String>,
    /// The decisions of the log, as applied (the seat for a commitment of `apply_for`).
    decisions: Vec<(Option<u8>, Action)>,
    /// Who made each decision of the log (`None`: chance).
    makers: Vec<Option<u8>>,
    /// `checkpoints[j]` is the state after `j * CHECKPOINT_EVERY` decisions: undo replays the
    /// decisions since the last checkpoint, so a long match keeps one state per
    /// [`CHECKPOINT_EVERY`] decisions instead of one per decision (a million decisions took
    /// 1.1 GB).
    checkpoints: Vec<State>,
    /// The log as each observer may read it, derived as far as it was asked for.
    seen: Seen,
}

/// The log as each observer reads it ([`super::seen`]), derived lazily: the lines of the
/// settled decisions, the state they reach, and the decisions after it not yet settled.
struct Seen {
    /// Per decision, its text per observer (seats from 0, then the spectator).
    lines: Vec<Box<[String]>>,
    /// Per line, whether its decision settled the game (ended a group).
    closes: Vec<bool>,
    /// The state after the decisions derived so far (`lines` and `open`).
    cursor: State,
    /// The decisions after `lines` derived but not settled: the state each was made in.
    open: Vec<State>,
}

/// How many decisions lie between two states kept for undo.
pub const CHECKPOINT_EVERY: usize = 64;

impl<'g> Match<'g> {
    /// Starts a match: checks the configuration and runs the setup to the first decision.
    pub fn new(game: &'g Game, config: Config) -> Result<Self, RunError> {
        let state = game.start(&config)?;
        Ok(Match {
            game,
            config,
            log: Vec::new(),
            decisions: Vec::new(),
            makers: Vec::new(),
            checkpoints: vec![state.clone()],
            seen: Seen {
                lines: Vec::new(),
                closes: Vec::new(),
                cursor: state.clone(),
                open: Vec::new(),
            },
            state,
        })
    }

    /// The game this match plays.
    pub fn game(&self) -> &'g Game {
        self.game
    }
    /// The current state.
    pub fn state(&self) -> &State {
        &self.state
    }
    /// The configuration the match started with.
    pub fn config(&self) -> &Config {
        &self.config
    }
    /// The canonical texts of the decisions applied so far, oldest first (`pN: text` for a
    /// commitment made with [`Match::apply_for`]); undone decisions are removed.
    pub fn log(&self) -> &[String] {
        &self.log
    }

    /// Who must act now.
    pub fn actor(&self) -> Actor {
        self.game.actor(&self.state)
    }

    /// The legal actions with their canonical texts.
    pub fn legal(&self) -> Result<Vec<(Action, String)>, RunError> {
        let mut buf = Vec::new();
        self.game.legal(&self.state, &mut buf)?;
        Ok(buf
            .into_iter()
            .map(|a| (a, self.game.action_text(&self.state, &a)))
            .collect())
    }

    /// The legal actions with their canonical texts and every value each binds, in order,
    /// with the name binding it: the action's own parameters, then, for a sequence action,
    /// those of the choices its effect makes (`place at=g1 take=a7`: `at`, then `take`). The
    /// number of the action's own parameters comes between the text and the list.
    #[allow(clippy::type_complexity)]
    pub fn legal_bindings(&self) -> Result<Vec<(String, usize, Vec<(String, String)>)>, RunError> {
        let (g, st) = (self.game, &self.state);
        let Some(choice) = g.waiting_choice(st) else {
            return Ok(Vec::new());
        };
        let binds = |choice, a: &Action| -> Vec<(String, String)> {
            match g.arm_of(choice, a.arm) {
                Some(arm) => g
                    .arm_parts(arm)
                    .1
                    .iter()
                    .zip(a.args)
                    .map(|(b, v)| (b.name.clone(), super::show_value(g, st, v)))
                    .collect(),
                None => Vec::new(),
            }
        };
        let mut buf = Vec::new();
        g.legal(st, &mut buf)?;
        Ok(buf
            .iter()
            .map(|a| {
                let mut args = binds(choice, a);
                let own = args.len();
                let from = a.steps.start as usize;
                if let Some(steps) = st.runs.get(from..from + a.steps.len as usize) {
                    for (c, inner) in steps {
                        args.extend(binds(*c, inner));
                    }
                }
                (g.action_text(st, a), own, args)
            })
            .collect())
    }

    /// Applies a legal action given by its canonical text. On error the match is unchanged.
    pub fn apply_text(&mut self, text: &str) -> Result<(), RunError> {
        let a = self.game.parse_action(&self.state, text)?;
        self.apply(&a)
    }

    /// Applies a legal action. On error the match is unchanged.
    pub fn apply(&mut self, a: &Action) -> Result<(), RunError> {
        let text = self.game.action_text(&self.state, a);
        let maker = self.game.maker(None, &self.state);
        let mut next = self.state.clone();
        self.game.apply(&mut next, a)?;
        self.state = next;
        self.record(None, *a, text, maker);
        Ok(())
    }

    /// The players who must still choose (several during a `choose each`).
    pub fn pending(&self) -> Vec<u8> {
        self.game.pending(&self.state)
    }

    /// The legal actions of one pending player, with their canonical texts.
    pub fn legal_for(&self, seat: u8) -> Result<Vec<(Action, String)>, RunError> {
        let mut buf = Vec::new();
        self.game.legal_for(&self.state, seat, &mut buf)?;
        Ok(buf
            .into_iter()
            .map(|a| (a, self.game.action_text_for(&self.state, seat, &a)))
            .collect())
    }

    /// Applies the action of one pending player (in any order during a `choose each`).
    pub fn apply_for(&mut self, seat: u8, text: &str) -> Result<(), RunError> {
        let legal = self.legal_for(seat)?;
        let want = super::ActionText::parse(text).canonical();
        let Some((a, t)) = legal.into_iter().find(|(_, t)| *t == want) else {
            return Err(RunError::illegal(format!(
                "`{}` is not a legal action of {} now",
                crate::source::quote(text, 80),
                crate::ir::player_name(seat)
            )));
        };
        let mut next = self.state.clone();
        self.game.apply_for(&mut next, seat, &a)?;
        self.state = next;
        self.record(Some(seat), a, super::text::with_seat(seat, &t), Some(seat));
        Ok(())
    }

    /// Logs a decision just applied, keeping a checkpoint every [`CHECKPOINT_EVERY`].
    fn record(&mut self, seat: Option<u8>, a: Action, text: String, maker: Option<u8>) {
        self.log.push(text);
        self.makers.push(maker);
        self.decisions.push((seat, a));
        if self.decisions.len().is_multiple_of(CHECKPOINT_EVERY) {
            self.checkpoints.push(self.state.clone());
        }
    }

    /// Steps back one applied decision (restoring the state before it); an error when there is
    /// none.
    pub fn undo(&mut self) -> Result<(), RunError> {
        let n = self
            .decisions
            .len()
            .checked_sub(1)
            .ok_or(RunError::NothingToUndo)?;
        // The last checkpoint at or before decision n, then the decisions after it again:
        // they were legal there, and the state (its generator included) replays exactly.
        let j = n / CHECKPOINT_EVERY;
        let mut state = self.checkpoints[j].clone();
        for (seat, a) in &self.decisions[j * CHECKPOINT_EVERY..n] {
            match seat {
                Some(seat) => self.game.apply_for(&mut state, *seat, a)?,
                None => self.game.apply(&mut state, a)?,
            }
        }
        self.state = state;
        self.checkpoints.truncate(j + 1);
        self.decisions.pop();
        self.makers.pop();
        self.log.pop();
        self.seen_back(n);
        Ok(())
    }

    /// After an undo to `n` decisions: forgets the derived lines from the start of the group
    /// that decision `n` belonged to (it is no longer settled as it was).
    fn seen_back(&mut self, n: usize) {
        let s = &mut self.seen;
        if s.lines.len() + s.open.len() <= n {
            return;
        }
        if s.lines.len() <= n {
            s.open.truncate(n - s.lines.len());
            s.cursor = self.state.clone();
            return;
        }
        let mut k = n;
        while k > 0 && !s.closes[k - 1] {
            k -= 1;
        }
        s.lines.truncate(k);
        s.closes.truncate(k);
        s.open.clear();
        // The decisions were applied before, so they replay; should one not, the lines are
        // derived again from the start rather than the undo failing after it was made.
        match self.state_at(k) {
            Ok(cursor) => self.seen.cursor = cursor,
            Err(_) => {
                self.seen.lines.clear();
                self.seen.closes.clear();
                self.seen.cursor = self.checkpoints[0].clone();
            }
        }
    }

    /// The view of `seat` after the first `n` decisions (at most the decisions applied),
    /// replayed from the nearest state kept for undo: at most [`CHECKPOINT_EVERY`] decisions.
    pub fn view_at(&self, n: usize, seat: Option<u8>) -> Result<View, RunError> {
        Ok(self
            .game
            .view(&self.state_at(n.min(self.decisions.len()))?, seat))
    }

    /// The state after the first `k` decisions (at most the decisions applied).
    fn state_at(&self, k: usize) -> Result<State, RunError> {
        let j = (k / CHECKPOINT_EVERY).min(self.checkpoints.len() - 1);
        let mut state = self.checkpoints[j].clone();
        for (seat, a) in &self.decisions[j * CHECKPOINT_EVERY..k] {
            match seat {
                Some(seat) => self.game.apply_for(&mut state, *seat, a)?,
                None => self.game.apply(&mut state, a)?,
            }
        }
        Ok(state)
    }

    /// The decisions from the `from`-th on, as `observer` may read them (`None`: a
    /// spectator), by the rule of [`super::seen`]: a seat reads its own decisions in full,
    /// and of another's what its views tell it. A decision not yet settled (a commitment in
    /// a simultaneous block or a `choose each` still waiting) reads as hidden to the others.
    /// Each decision is derived once, so a call costs the decisions made since the last.
    pub fn log_seen(
        &mut self,
        observer: Option<u8>,
        from: usize,
    ) -> Result<Vec<SeenLine>, RunError> {
        self.derive_seen()?;
        let players = self.state.players;
        let column = observer.map_or(players as usize, |o| o.min(players) as usize);
        let s = &self.seen;
        let mut out = Vec::new();
        for i in from..self.decisions.len() {
            let text = if i < s.lines.len() {
                s.lines[i][column].clone()
            } else if observer.is_some() && self.makers[i] == observer {
                super::ActionText::parse(&self.log[i]).body.to_string()
            } else {
                HIDDEN.to_string()
            };
            out.push(SeenLine {
                who: self.makers[i].map_or("chance".into(), crate::ir::player_name),
                text,
            });
        }
        Ok(out)
    }

    /// Derives the lines of every decision applied and not derived yet.
    fn derive_seen(&mut self) -> Result<(), RunError> {
        let game = self.game;
        let s = &mut self.seen;
        while s.lines.len() + s.open.len() < self.decisions.len() {
            let i = s.lines.len() + s.open.len();
            let (seat, a) = self.decisions[i];
            s.open.push(s.cursor.clone());
            match seat {
                Some(seat) => game.apply_for(&mut s.cursor, seat, &a)?,
                None => game.apply(&mut s.cursor, &a)?,
            }
            if !game.settled(&s.cursor) {
                continue;
            }
            let start = s.lines.len();
            let group: Vec<Made> = s
                .open
                .iter()
                .enumerate()
                .map(|(k, before)| Made {
                    seat: self.decisions[start + k].0,
                    action: self.decisions[start + k].1,
                    text: super::ActionText::parse(&self.log[start + k]).body,
                    before,
                })
                .collect();
            let lines = game.derive_seen(&group, &s.cursor);
            let n = lines.len();
            s.lines.extend(lines);
            s.closes.extend((0..n).map(|k| k + 1 == n));
            s.open.clear();
        }
        Ok(())
    }

    /// The state as a seat may see it.
    pub fn view(&self, seat: Option<u8>) -> View {
        self.game.view(&self.state, seat)
    }

    /// Why an action is (not) legal now.
    pub fn why(&self, text: &str) -> Result<WhyNot, RunError> {
        self.game.why_not(&self.state, text)
    }

    /// Why an action is (not) legal now for one seat (`None`: whoever must act): in a
    /// `choose each` or a simultaneous block, answered from that seat's own choice or part
    /// ([`Game::why_not_for`]).
    /// A sequence action's text whose choices inside the effect are not among its moves is
    /// answered from the first of them that is not ([`Match::why_inside`]).
    pub fn why_for(&self, seat: Option<u8>, text: &str) -> Result<WhyNot, RunError> {
        let w = self.game.why_not_for(&self.state, seat, text)?;
        let mover = seat.is_none_or(|s| self.actor() == Actor::Player(s));
        if w.legal || !mover {
            return Ok(w);
        }
        Ok(self.why_inside(text)?.unwrap_or(w))
    }

    /// Why a sequence action's text is not one of its moves, from inside its effect: the
    /// action's own part is played on a copy of the state, then each choice the effect reaches
    /// is answered by the next words of the text; the first that is not one of its options is
    /// explained as that choice's own (its collection or its condition, with the locals of the
    /// effect: `place at=g1 take=a1` is answered by the condition of `choose take`). `None`
    /// when the text's own part is not an option of a sequence action now.
    fn why_inside(&self, text: &str) -> Result<Option<WhyNot>, RunError> {
        use super::{Steps, Wait};
        let (g, st) = (self.game, &self.state);
        let Wait::Decision { actor, .. } = st.wait else {
            return Ok(None);
        };
        if st.block.is_some() {
            return Ok(None);
        }
        let parsed = super::ActionText::parse(text);
        let words: Vec<&str> = parsed.body.split_whitespace().collect();
        let mut buf = Vec::new();
        g.legal(st, &mut buf)?;
        // The action's own part: the option without the choices made inside it.
        let first = buf.iter().filter(|a| g.is_sequence(st, a)).find_map(|a| {
            let own = Action {
                steps: Steps::NONE,
                ..*a
            };
            let t = g.action_text(st, &own);
            let n = t.split_whitespace().count();
            words
                .starts_with(&t.split_whitespace().collect::<Vec<_>>())
                .then_some((own, n))
        });
        let Some((own, mut used)) = first else {
            return Ok(None);
        };
        let mut node = st.clone();
        g.enter(&mut node, &own)?;
        let depth = node.frames.len();
        let run = |node: &mut State| {
            super::vm::with_machine(node.fuel, |m| {
                let saved = std::mem::replace(&mut m.stop_depth, depth);
                let r = g.run_m(m, node);
                m.stop_depth = saved;
                r
            })
        };
        run(&mut node)?;
        let no = |reason: String, span: Option<crate::source::Span>| {
            Ok(Some(WhyNot {
                legal: false,
                reason,
                span,
            }))
        };
        loop {
            let done = words[..used].join(" ");
            let rest = &words[used..];
            if node.wait == Wait::Over || node.frames.len() < depth {
                return no(
                    format!(
                        "`{}` is a whole move: nothing is chosen after it",
                        crate::source::quote(&done, 60)
                    ),
                    None,
                );
            }
            let Wait::Decision { choice, actor: who } = node.wait else {
                return Ok(None);
            };
            if who != actor {
                return Ok(None);
            }
            let found = node.cache.iter().find_map(|o| {
                let t = g.action_text(&node, o);
                let w: Vec<&str> = t.split_whitespace().collect();
                rest.starts_with(&w).then_some((*o, w.len()))
            });
            match found {
                Some((o, n)) => {
                    g.enter(&mut node, &o)?;
                    run(&mut node)?;
                    used += n;
                }
                None if rest.is_empty() => {
                    let offered: Vec<String> = node
                        .cache
                        .iter()
                        .take(8)
                        .map(|o| g.action_text(&node, o))
                        .collect();
                    return no(
                        format!(
                            "`{}` goes on with a choice; its options now: {}{}",
                            crate::source::quote(&done, 60),
                            offered.join(", "),
                            if node.cache.len() > 8 { ", ..." } else { "" }
                        ),
                        Some(g.choices[choice].span),
                    );
                }
                None => {
                    let w = g.why_not_for(&node, Some(actor), &rest.join(" "))?;
                    return Ok((!w.legal).then_some(w));
                }
            }
        }
    }

    /// The save of this match.
    pub fn save(&self) -> Save {
        Save {
            version: SAVE_VERSION,
            rules_hash: format!("{:016x}", self.game.source_hash),
            config: self.config.clone(),
            log: self.log.clone(),
        }
    }

    /// The save as RON text.
    pub fn save_text(&self) -> String {
        ron::ser::to_string_pretty(&self.save(), ron::ser::PrettyConfig::default())
            .unwrap_or_default()
    }

    /// Replays a save into a match. A save of another version or of a changed rules file is
    /// refused, never misread.
    pub fn load(game: &'g Game, save: &Save) -> Result<Self, RunError> {
        let refuse = |message: String| Err(RunError::Save { message });
        if save.version != SAVE_VERSION {
            return refuse(format!(
                "this save has version {}, this rulebook reads version {SAVE_VERSION}",
                save.version
            ));
        }
        let hash = format!("{:016x}", game.source_hash);
        if save.rules_hash != hash {
            return refuse(format!(
                "this save was made with a different rules file (hash {}, this file has {hash})",
                crate::source::quote(&save.rules_hash, 20)
            ));
        }
        let mut m = Match::new(game, save.config.clone()).map_err(|e| match e {
            RunError::Config { message } => RunError::Save {
                message: format!("its configuration is refused: {message}"),
            },
            other => other,
        })?;
        for (i, text) in save.log.iter().enumerate() {
            // `pN: text` is a commitment made out of seat order in a simultaneous choice.
            let parsed = super::ActionText::parse(text);
            let r = match parsed.seat {
                Some(seat) => m.apply_for(seat, parsed.body),
                None => m.apply_text(text),
            };
            r.map_err(|e| match e {
                RunError::Rule { .. } | RunError::Limit { .. } => e,
                other => RunError::Save {
                    message: format!("decision {} of the save: {}", i + 1, other.message()),
                },
            })?;
        }
        Ok(m)
    }

    /// Parses RON text and replays it.
    pub fn load_text(game: &'g Game, text: &str) -> Result<Self, RunError> {
        let save: Save = ron::from_str(text).map_err(|e| RunError::Save {
            message: format!("this is not a readable save: {e}"),
        })?;
        Match::load(game, &save)
    }
}
