//! Simultaneous blocks: `simultaneous p in C { }` (section 4.1.2 of the reference).
//!
//! When the rules reach a block, each player of `C` gets a **private run**: a copy of the
//! game with `p` (and `me`) bound to that player, which runs the block's body alone and
//! pauses at each of its choices. Everything a player is shown while the block waits (its
//! view, its options, `why` answers, errors) comes from its own run, which holds nothing of
//! the other players' choices. The game (the **main** state, left as it was when the block
//! began) waits while any run waits; [`Game::pending`] lists the players whose runs wait,
//! and the actor is the first of them (its options are mirrored into the main state, so
//! [`Game::legal`] and [`Game::apply`] serve it like any decision).
//!
//! When every run has reached the end of the body, the body is **played out** on the game
//! itself: once per player, in seat order, each of its choices answered from what that
//! player chose in its run (guards are not tested again), without pausing; then the rules go
//! on after the block. A choice reached in the play-out that does not match the player's
//! record (the parts were not independent) stops the game with a rule error.
//!
//! The checker keeps out of a block (and of the actions it runs) everything that would play
//! out differently the second time or ask another player: `turn`, `roll`, `shuffle`, `end`,
//! `win`, `choose each`, `choose by` another player, sequence actions, another block. A game
//! without a block pays one test of an empty `Option` where a decision is applied.

use super::vm::{with_machine, Machine};
use super::*;
use crate::ir::vm::{Code, Step};
use crate::ir::*;
use serde::{Deserialize, Serialize};

/// A simultaneous block in progress, kept in [`State::block`].
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Block {
    pub mode: Mode,
    /// The pc of the block's `Simul` step, in the top frame.
    pub pc: u32,
    /// The local slot of the block's player name.
    pub slot: u16,
    /// The top frame's `me` and `inside` before the block.
    pub me: u8,
    pub inside: bool,
    /// [`Mode::Main`]: each seat's private run (`None`: not in the block).
    pub runs: Vec<Option<State>>,
    /// [`Mode::Private`]: the choices made so far; [`Mode::Replay`]: every part's, in seat
    /// order. Each entry: the seat, the choice reached and the option taken
    /// ([`Action::SKIP`] when the choice had no option and was skipped).
    pub log: Vec<(u8, ChoiceId, Action)>,
    /// [`Mode::Replay`]: the next entry of `log`.
    pub pos: u32,
    /// [`Mode::Replay`]: the seats taking part, one bit each.
    pub seats: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Mode {
    /// The game, waiting for the private runs.
    Main,
    /// One seat's private run; `done` once it reached the end of the body.
    Private { seat: u8, done: bool },
    /// The game, playing the parts out; `seat`'s part now.
    Replay { seat: u8 },
}

/// Where the step loop goes after a step of a block.
pub(super) enum Go {
    /// On at this pc of the frame.
    Next(u32),
    /// The game waits (or is over): leave the loop.
    Wait,
    /// A trigger fired: run its body, then come back.
    Again(Span),
    /// The frames were set already: go on.
    Jumped,
}

fn no_fit(g: &Game, seat: u8, span: Option<Span>) -> RunError {
    err(
        format!(
            "the choices {} made in a simultaneous block no longer fit when the block is played \
             out: the parts changed each other (each player's part must not depend on what \
             the others do in the block)",
            player_name(seat)
        ),
        span.or(g.choices.iter().next().map(|c| c.span)),
    )
}

impl Game {
    /// Whether a simultaneous block waits in `st` (several players may be pending).
    pub fn in_block(&self, st: &State) -> bool {
        st.block.is_some()
    }

    /// The private run of `seat` while a block waits, if it takes part.
    pub(crate) fn block_run<'s>(&self, st: &'s State, seat: Option<u8>) -> Option<&'s State> {
        let b = st.block.as_deref()?;
        b.runs.get(seat? as usize)?.as_ref()
    }

    /// `Step::Simul`: the private runs start (after `end when` and the triggers).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn simul_start(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut Vec<Value>,
        coll: Code,
        slot: u16,
        end: u32,
        span: Span,
    ) -> Result<Go, RunError> {
        if st.block.is_some() {
            return Err(err(
                "a simultaneous block cannot run inside another",
                Some(span),
            ));
        }
        let frame = *st.frames.last().expect("a frame runs");
        let base = frame.base as usize;
        let mut seats = 0u16;
        m.start(self, st, coll, &mut locals[base..], frame.me)
            .blame(Some(span))?;
        while let Some(v) = m.next(self, st, Some(span)).blame(Some(span))? {
            if let Value::Player(p) = v {
                if p < st.players {
                    seats |= 1 << p;
                }
            }
        }
        if self.ended(m, st, locals)? {
            return Ok(Go::Wait);
        }
        if let Some(sp) = self.fire_trigger(m, st, locals)? {
            return Ok(Go::Again(sp));
        }
        if seats == 0 {
            return Ok(Go::Next(end + 1));
        }
        st.locals = std::mem::take(locals);
        let r = (|| {
            let mut runs = vec![None; st.players as usize];
            for (p, run) in runs.iter_mut().enumerate() {
                if seats & (1 << p) != 0 {
                    *run = Some(self.part(m, st, p as u8, frame.pc, slot)?);
                }
            }
            st.block = Some(Box::new(Block {
                mode: Mode::Main,
                pc: frame.pc,
                slot,
                me: frame.me,
                inside: frame.inside,
                runs,
                log: Vec::new(),
                pos: 0,
                seats: 0,
            }));
            self.settle(st)
        })();
        *locals = std::mem::take(&mut st.locals);
        r
    }

    /// A fresh private run of `seat` from `base` (paused at the block's `Simul`, at `pc`),
    /// run to its first choice or the end of the body.
    fn part(
        &self,
        m: &mut Machine,
        base: &State,
        seat: u8,
        pc: u32,
        slot: u16,
    ) -> Result<State, RunError> {
        let mut run = base.clone();
        run.block = None;
        let fi = run.frames.len() - 1;
        let at = run.frames[fi].base as usize + slot as usize;
        run.locals[at] = Value::Player(seat);
        run.block = Some(Box::new(Block {
            mode: Mode::Private { seat, done: false },
            pc,
            slot,
            me: run.frames[fi].me,
            inside: run.frames[fi].inside,
            runs: Vec::new(),
            log: Vec::new(),
            pos: 0,
            seats: 0,
        }));
        let f = &mut run.frames[fi];
        f.pc = pc + 1;
        f.me = seat;
        f.inside = true;
        run.wait = Wait::Running;
        run.cache.clear();
        run.runs.clear();
        self.run_m(m, &mut run)?;
        Ok(run)
    }

    /// After the runs moved: the first pending seat's options are mirrored into the game,
    /// or, when every run is done, the play-out starts ([`Go::Jumped`]: run the game).
    fn settle(&self, st: &mut State) -> Result<Go, RunError> {
        let Some(b) = st.block.as_deref_mut() else {
            return Ok(Go::Next(0));
        };
        let waiting = b.runs.iter().enumerate().find_map(|(p, r)| match r {
            Some(run) if matches!(run.wait, Wait::Decision { .. }) => Some((p, run)),
            _ => None,
        });
        if let Some((p, run)) = waiting {
            if let Wait::Decision { choice, .. } = run.wait {
                st.wait = Wait::Decision {
                    choice,
                    actor: p as u8,
                };
                st.cache.clone_from(&run.cache);
                st.runs.clone_from(&run.runs);
            }
            return Ok(Go::Wait);
        }
        let mut log = Vec::new();
        let mut seats = 0u16;
        for (p, run) in b.runs.iter().enumerate() {
            let Some(run) = run else { continue };
            match run.block.as_deref() {
                Some(rb)
                    if rb.mode
                        == (Mode::Private {
                            seat: p as u8,
                            done: true,
                        }) =>
                {
                    seats |= 1 << p;
                    log.extend_from_slice(&rb.log);
                }
                _ => {
                    return Err(err(
                        format!(
                            "{}'s part of a simultaneous block stopped before its end",
                            player_name(p as u8)
                        ),
                        None,
                    ))
                }
            }
        }
        let first = seats.trailing_zeros() as u8;
        b.runs = Vec::new();
        b.log = log;
        b.pos = 0;
        b.seats = seats;
        b.mode = Mode::Replay { seat: first };
        let (pc, slot) = (b.pc, b.slot);
        self.enter_part(st, first, pc, slot);
        st.wait = Wait::Running;
        st.cache.clear();
        st.runs.clear();
        Ok(Go::Jumped)
    }

    /// The top frame runs `seat`'s part of the block at `pc` from its start.
    fn enter_part(&self, st: &mut State, seat: u8, pc: u32, slot: u16) {
        let fi = st.frames.len() - 1;
        let at = st.frames[fi].base as usize + slot as usize;
        if let Some(l) = st.locals.get_mut(at) {
            *l = Value::Player(seat);
        }
        let f = &mut st.frames[fi];
        f.pc = pc + 1;
        f.me = seat;
        f.inside = true;
    }

    /// `Step::Choose` inside a block: a private run lists its player's options (no `end
    /// when`, no trigger: the block is one pause of the game); the play-out takes the
    /// recorded choice.
    pub(super) fn simul_choose(
        &self,
        m: &mut Machine,
        st: &mut State,
        locals: &mut Vec<Value>,
        cid: ChoiceId,
    ) -> Result<Go, RunError> {
        let ch = &self.choices[cid];
        let skip_to = ch.else_pc.unwrap_or(ch.end_pc);
        let frame = *st.frames.last().expect("a frame runs");
        let base = frame.base as usize;
        let Some(mode) = st.block.as_deref().map(|b| b.mode) else {
            return Ok(Go::Next(skip_to));
        };
        match mode {
            Mode::Private { seat, .. } => {
                if let Some(by) = self.program.choices[cid].by {
                    let who = m
                        .eval(self, st, by, &mut locals[base..], frame.me)
                        .blame(Some(ch.span))?;
                    if who != Value::Player(seat) {
                        return Err(err(
                            format!(
                                "a choice inside {}'s part of a simultaneous block is made by {}",
                                player_name(seat),
                                show_value(self, st, who)
                            ),
                            Some(ch.span),
                        ));
                    }
                }
                st.locals = std::mem::take(locals);
                let mut cache = std::mem::take(&mut st.cache);
                let mut runs = std::mem::take(&mut st.runs);
                cache.clear();
                runs.clear();
                let listed = self
                    .options_into(m, st, cid, seat, &mut runs, &mut cache)
                    .map_err(|e| e.or_span(Some(ch.span)));
                let has = !cache.is_empty();
                st.cache = cache;
                st.runs = runs;
                *locals = std::mem::take(&mut st.locals);
                listed?;
                if has {
                    st.wait = Wait::Decision {
                        choice: cid,
                        actor: seat,
                    };
                    return Ok(Go::Wait);
                }
                if let Some(b) = st.block.as_deref_mut() {
                    b.log.push((seat, cid, Action::SKIP));
                }
                Ok(Go::Next(skip_to))
            }
            Mode::Replay { seat } => {
                let b = st.block.as_deref_mut().expect("a block");
                let entry = b.log.get(b.pos as usize).copied();
                let Some((s, c, a)) = entry.filter(|e| e.0 == seat && e.1 == cid) else {
                    return Err(no_fit(self, seat, Some(ch.span)));
                };
                let _ = (s, c);
                b.pos += 1;
                if a == Action::SKIP {
                    return Ok(Go::Next(skip_to));
                }
                st.wait = Wait::Decision {
                    choice: cid,
                    actor: seat,
                };
                st.locals = std::mem::take(locals);
                let r = self.enter(st, &a);
                *locals = std::mem::take(&mut st.locals);
                r?;
                Ok(Go::Jumped)
            }
            Mode::Main => Err(err("internal: the game ran while its block waits", None)),
        }
    }

    /// `Step::SimulEnd`: a private run is done; in the play-out, the next part starts, or
    /// the block is over.
    pub(super) fn simul_end(&self, st: &mut State, locals: &mut [Value]) -> Result<Go, RunError> {
        let Some(b) = st.block.as_deref_mut() else {
            return Err(err("internal: the end of a block that did not start", None));
        };
        match b.mode {
            Mode::Private { seat, .. } => {
                b.mode = Mode::Private { seat, done: true };
                st.wait = Wait::Running;
                Ok(Go::Wait)
            }
            Mode::Replay { seat } => {
                if b.log.get(b.pos as usize).is_some_and(|e| e.0 == seat) {
                    return Err(no_fit(self, seat, None));
                }
                let fi = st.frames.len() - 1;
                let later = (seat + 1..st.players).find(|p| b.seats & (1 << p) != 0);
                match later {
                    Some(p) => {
                        b.mode = Mode::Replay { seat: p };
                        let (pc, slot) = (b.pc, b.slot);
                        let at = st.frames[fi].base as usize + slot as usize;
                        locals[at] = Value::Player(p);
                        let f = &mut st.frames[fi];
                        f.pc = pc + 1;
                        f.me = p;
                        Ok(Go::Jumped)
                    }
                    None => {
                        let (me, inside) = (b.me, b.inside);
                        st.block = None;
                        let f = &mut st.frames[fi];
                        f.me = me;
                        f.inside = inside;
                        Ok(Go::Next(f.pc + 1))
                    }
                }
            }
            Mode::Main => Err(err("internal: the game ran while its block waits", None)),
        }
    }

    /// Applies the choice of the pending seat named in `st.wait` to its private run; when
    /// every run is done, the block is played out and the game runs on.
    pub(super) fn simul_apply(&self, st: &mut State, a: &Action) -> Result<(), RunError> {
        let Wait::Decision { actor, .. } = st.wait else {
            return Err(RunError::Finished);
        };
        st.decisions += 1;
        let Some(run) = st
            .block
            .as_deref_mut()
            .and_then(|b| b.runs.get_mut(actor as usize))
            .and_then(Option::as_mut)
        else {
            return Err(RunError::illegal(format!(
                "{} takes no part in this simultaneous block",
                player_name(actor)
            )));
        };
        let Wait::Decision { choice, actor: who } = run.wait else {
            return Err(RunError::illegal(format!(
                "{} has made every choice of this simultaneous block",
                player_name(actor)
            )));
        };
        if who != actor {
            return Err(RunError::illegal("not this player's choice"));
        }
        if let Some(rb) = run.block.as_deref_mut() {
            rb.log.push((
                actor,
                choice,
                Action {
                    steps: Steps::NONE,
                    ..*a
                },
            ));
        }
        self.enter(run, a)?;
        self.run(run)?;
        match self.settle(st)? {
            Go::Jumped => self.run(st),
            _ => Ok(()),
        }
    }

    /// The legal actions of `seat` while a block waits: its run's options.
    pub(super) fn simul_legal_for(&self, st: &State, seat: u8, out: &mut Vec<Action>) {
        out.clear();
        if let Some(run) = self.block_run(st, Some(seat)) {
            if matches!(run.wait, Wait::Decision { actor, .. } if actor == seat) {
                out.extend_from_slice(&run.cache);
            }
        }
    }

    /// The seats whose private runs wait at a choice.
    pub(super) fn simul_pending(&self, st: &State) -> Vec<u8> {
        let Some(b) = st.block.as_deref() else {
            return Vec::new();
        };
        b.runs
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                r.as_ref()
                    .is_some_and(|r| matches!(r.wait, Wait::Decision { .. }))
            })
            .map(|(p, _)| p as u8)
            .collect()
    }

    /// The canonical text of an action of `seat` (its run's, while a block waits).
    pub fn action_text_for(&self, st: &State, seat: u8, a: &Action) -> String {
        match self.block_run(st, Some(seat)) {
            Some(run) => self.action_text(run, a),
            None => self.action_text(st, a),
        }
    }

    /// [`Game::determinize`] while a block waits: the runs start again from the sampled
    /// game; `seat`'s own run makes its recorded choices again; the others' choices of the
    /// block are hidden: a player still choosing chooses afresh, one who is done (that much
    /// is public) gets choices drawn at random with `seed`.
    pub(super) fn simul_determinize(&self, out: &mut State, seat: Option<u8>, seed: u64) {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let pending = self.simul_pending(out);
        let Some(b) = out.block.take() else {
            return;
        };
        let mut base = out.clone();
        base.block = None;
        let own: Vec<(u8, ChoiceId, Action)> = seat
            .and_then(|s| b.runs.get(s as usize)?.as_ref()?.block.as_deref())
            .map(|rb| rb.log.clone())
            .unwrap_or_default();
        let mut runs = vec![None; b.runs.len()];
        let _ = with_machine(out.fuel, |m| -> Result<(), RunError> {
            for (p, slot) in runs.iter_mut().enumerate() {
                if b.runs[p].is_none() {
                    continue;
                }
                let Ok(mut run) = self.part(m, &base, p as u8, b.pc, b.slot) else {
                    continue;
                };
                if Some(p as u8) == seat {
                    for &(s, c, a) in own.iter().filter(|e| e.2 != Action::SKIP) {
                        if run.wait
                            != (Wait::Decision {
                                choice: c,
                                actor: s,
                            })
                        {
                            break;
                        }
                        let mut next = run.clone();
                        if let Some(rb) = next.block.as_deref_mut() {
                            rb.log.push((s, c, a));
                        }
                        if self.enter(&mut next, &a).is_err() || self.run_m(m, &mut next).is_err() {
                            break;
                        }
                        run = next;
                    }
                } else if !pending.contains(&(p as u8)) {
                    // Done in the game: done in the sample too, by choices drawn at random.
                    let mut left = 10_000;
                    while let Wait::Decision { choice, .. } = run.wait {
                        left -= 1;
                        if left == 0 || run.cache.is_empty() {
                            break;
                        }
                        let a = run.cache[rng.gen_range(0..run.cache.len())];
                        let mut next = run.clone();
                        if let Some(rb) = next.block.as_deref_mut() {
                            rb.log.push((p as u8, choice, a));
                        }
                        if self.enter(&mut next, &a).is_err() || self.run_m(m, &mut next).is_err() {
                            break;
                        }
                        run = next;
                    }
                }
                *slot = Some(run);
            }
            Ok(())
        });
        out.block = Some(Box::new(Block { runs, ..*b }));
        if let Ok(Go::Jumped) = self.settle(out) {
            let _ = self.run(out);
        }
    }

    /// Checks the block of a state read from outside.
    pub(super) fn validate_block(&self, st: &State, b: &Block) -> bool {
        if let Mode::Private { .. } = b.mode {
            // A private run: its own frames run inside the body.
            return b.runs.is_empty() && b.me < st.players;
        }
        let Some(frame) = st.frames.last() else {
            return false;
        };
        let at_simul = matches!(
            self.program.procs[frame.proc].get(b.pc as usize),
            Some(Step::Simul { slot, .. }) if *slot == b.slot
        );
        let fits = |run: &State, p: usize| {
            run.block.as_deref().is_some_and(|rb| {
                matches!(rb.mode, Mode::Private { seat, .. } if seat as usize == p)
                    && rb
                        .log
                        .iter()
                        .all(|e| e.0 as usize == p && self.choices.get(e.1).is_some())
            }) && run.players == st.players
                && self.validate_state(run).is_ok()
        };
        b.mode == Mode::Main
            && at_simul
            && frame.pc == b.pc
            && b.me < st.players
            && b.runs.len() == st.players as usize
            && b.runs
                .iter()
                .enumerate()
                .all(|(p, r)| r.as_ref().is_none_or(|run| fits(run, p)))
    }
}
