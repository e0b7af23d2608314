//! Sequence actions: one option per complete run of the effect's own choices.
//!
//! Listing the options of a `sequence action` explores its effect on copies of the state,
//! depth first, in option order: each time the effect pauses at one of its own choices, every
//! option of that choice is tried on a copy. A run that gets back out of the effect (or ends
//! the game) is one option; the choices it made are recorded in the state beside the options
//! (`State::runs`), and the option's [`Steps`] point at them. Applying it runs the effect again
//! and answers its choices from the record, without pausing. Copies come from a pool of spare
//! states kept by the machine, so a walk that has warmed up allocates nothing; every copy and
//! every step of the effects costs fuel, which stops a search that explodes.

use super::vm::{with_machine, Machine};
use super::*;
use crate::ir::*;

impl Game {
    /// Whether `a`, an option of the waiting choice, takes a sequence action.
    pub(crate) fn is_sequence(&self, st: &State, a: &Action) -> bool {
        let Wait::Decision { choice, .. } = st.wait else {
            return false;
        };
        matches!(self.arm_of(choice, a.arm), Some(Arm::Action(ai)) if self.actions[*ai].sequence)
    }

    /// Every complete run of the sequence action of option `first` (its parameters bound) at
    /// `choice`, for `actor`: each is recorded in `runs` and given to `f` (false: stop).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn explore(
        &self,
        m: &mut Machine,
        st: &State,
        choice: ChoiceId,
        actor: u8,
        first: Action,
        runs: &mut Vec<(ChoiceId, Action)>,
        f: &mut dyn FnMut(Action) -> bool,
    ) -> Result<bool, RunError> {
        let mut node = m.spare(st);
        node.wait = Wait::Decision { choice, actor };
        let mut path = std::mem::take(&mut m.path);
        path.clear();
        let r = self.enter(&mut node, &first).and_then(|()| {
            let depth = node.frames.len();
            self.explore_node(m, node, depth, actor, first, &mut path, runs, f)
        });
        m.path = path;
        r
    }

    /// Runs `node` until the effect (frames from `depth` up) pauses or returns; a return is
    /// one complete run, a pause at one of its choices tries each option.
    #[allow(clippy::too_many_arguments)]
    fn explore_node(
        &self,
        m: &mut Machine,
        mut node: Box<State>,
        depth: usize,
        actor: u8,
        first: Action,
        path: &mut Vec<(ChoiceId, Action)>,
        runs: &mut Vec<(ChoiceId, Action)>,
        f: &mut dyn FnMut(Action) -> bool,
    ) -> Result<bool, RunError> {
        m.spend(None).map_err(|e| *e)?;
        let saved = std::mem::replace(&mut m.stop_depth, depth);
        let r = self.run_m(m, &mut node);
        m.stop_depth = saved;
        if let Err(e) = r {
            m.recycle(node);
            return Err(e);
        }
        if node.wait == Wait::Over || node.frames.len() < depth {
            let steps = Steps {
                start: runs.len() as u32,
                len: path.len() as u32,
            };
            runs.extend_from_slice(path);
            m.recycle(node);
            return Ok(f(Action { steps, ..first }));
        }
        match node.wait {
            Wait::Decision { choice, actor: who } if who == actor => {
                if self.choices[choice].each.is_some() {
                    m.recycle(node);
                    return Err(err(
                        "a sequence action cannot reach a `choose each`",
                        Some(self.choices[choice].span),
                    ));
                }
                let options = std::mem::take(&mut node.cache);
                if self.rest_free(&node, choice, depth) {
                    // Nothing after this choice can pause: each option ends one run.
                    let mut go = true;
                    for o in &options {
                        if self.program.check_caches {
                            if let Err(e) = self.check_free(m, &node, depth, choice, o) {
                                node.cache = options;
                                m.recycle(node);
                                return Err(e);
                            }
                        }
                        // The run: the path so far and this option (pushed one by one:
                        // a path is short, and a copy call cost more than the pushes).
                        let steps = Steps {
                            start: runs.len() as u32,
                            len: path.len() as u32 + 1,
                        };
                        runs.reserve(path.len() + 1);
                        for step in path.iter() {
                            runs.push(*step);
                        }
                        runs.push((choice, *o));
                        go = f(Action { steps, ..first });
                        if !go {
                            break;
                        }
                    }
                    node.cache = options;
                    m.recycle(node);
                    return Ok(go);
                }
                let mut go = Ok(true);
                for o in &options {
                    let mut child = m.spare(&node);
                    if let Err(e) = self.enter(&mut child, o) {
                        m.recycle(child);
                        go = Err(e);
                        break;
                    }
                    path.push((choice, *o));
                    go = self.explore_node(m, child, depth, actor, first, path, runs, f);
                    path.pop();
                    if !matches!(go, Ok(true)) {
                        break;
                    }
                }
                node.cache = options;
                m.recycle(node);
                go
            }
            Wait::Decision { choice, actor: who } => {
                m.recycle(node);
                Err(err(
                    format!(
                        "a choice inside a sequence action is made by {}, not by {}, who moves",
                        player_name(who),
                        player_name(actor)
                    ),
                    Some(self.choices[choice].span),
                ))
            }
            _ => {
                m.recycle(node);
                Err(err(
                    "a sequence action cannot wait for chance (external chance)",
                    None,
                ))
            }
        }
    }

    /// Whether the effect paused at `choice` (frames from `depth - 1` up) certainly gets back
    /// out without pausing again whichever option is taken: the choice's options all run on
    /// to its procedure's return without pausing, and so does every caller's frame inside
    /// the effect from where it will go on (`check::compile::pauses`). Then every option
    /// is one complete run, and running each to its end would only repeat the apply.
    fn rest_free(&self, node: &State, choice: ChoiceId, depth: usize) -> bool {
        let Some(home) = self.program.choices[choice].free_in else {
            return false;
        };
        let Some((top, callers)) = node.frames.split_last() else {
            return false;
        };
        top.proc == home
            && depth >= 1
            && callers.len() >= depth - 1
            && callers[depth - 1..].iter().all(|f| {
                self.program.pause_free[f.proc]
                    .get(f.pc as usize)
                    .copied()
                    .unwrap_or(true)
            })
    }

    /// Check mode: option `o` of `choice`, taken in `node`, runs out of the effect without
    /// pausing, as [`Game::rest_free`] said when the option was recorded without running it.
    fn check_free(
        &self,
        m: &mut Machine,
        node: &State,
        depth: usize,
        choice: ChoiceId,
        o: &Action,
    ) -> Result<(), RunError> {
        let mut child = m.spare(node);
        let saved = std::mem::replace(&mut m.stop_depth, depth);
        let r = self
            .enter(&mut child, o)
            .and_then(|()| self.run_m(m, &mut child));
        m.stop_depth = saved;
        let done = child.wait == Wait::Over || child.frames.len() < depth;
        m.recycle(child);
        r?;
        if !done {
            super::vm::stale(
                "a sequence action's options recorded without running them (check::compile::pauses)",
                format!("option {o:?} of choice {choice:?} paused again"),
            );
        }
        Ok(())
    }

    /// Runs a sequence action's effect (its frame just pushed) answering its choices from the
    /// record `steps`, then on to the next decision.
    pub(crate) fn replay(&self, st: &mut State, steps: Steps) -> Result<(), RunError> {
        let from = steps.start as usize;
        let to = from + steps.len as usize;
        if to > st.runs.len() {
            return Err(RunError::illegal(
                "the moves of this option are not known now",
            ));
        }
        let runs = std::mem::take(&mut st.runs);
        with_machine(st.fuel, |m| {
            let mut replay = std::mem::take(&mut m.replay);
            replay.clear();
            replay.extend_from_slice(&runs[from..to]);
            st.runs = runs;
            let r = self.replay_m(m, st, &replay);
            m.replay = replay;
            r
        })
    }

    fn replay_m(
        &self,
        m: &mut Machine,
        st: &mut State,
        record: &[(ChoiceId, Action)],
    ) -> Result<(), RunError> {
        self.run_m(m, st)?;
        for (choice, a) in record {
            match st.wait {
                Wait::Decision { choice: c, .. } if c == *choice && st.cache.contains(a) => {
                    self.enter(st, a)?;
                    self.run_m(m, st)?;
                }
                _ => {
                    return Err(err(
                        "a recorded move of a sequence action no longer applies",
                        Some(self.choices[*choice].span),
                    ))
                }
            }
        }
        Ok(())
    }
}

impl Machine {
    /// A copy of `from` in a spare state (its room reused), without the options listed at
    /// `from`'s pause and their runs: the copy runs on and lists its own.
    /// Boxed, so that taking it from the pool and giving it back moves a pointer, not the
    /// state's own kilobyte (its generator and stamps).
    pub(crate) fn spare(&mut self, from: &State) -> Box<State> {
        match self.spares.pop() {
            Some(mut s) => {
                s.copy_from(from, false);
                s
            }
            None => {
                let mut s = Box::new(from.clone());
                s.cache.clear();
                s.runs.clear();
                s
            }
        }
    }

    /// Keeps a state no longer needed for the next [`Machine::spare`], without its share of
    /// the memories' positions (so that the state it copied owns them alone again).
    pub(crate) fn recycle(&mut self, mut st: Box<State>) {
        st.memory.clear();
        if self.spares.len() < 64 {
            self.spares.push(st);
        }
    }
}
