//! Where a procedure may pause: for every step, whether running on from it can reach a
//! step that waits (a choice, chance, a window, a turn, another seat's part) before the
//! procedure returns, the procedures it runs by `do` included.
//!
//! Listing a `sequence action` uses it (`engine::sequence`): once its effect pauses at a
//! choice after which nothing can pause again, every option of that choice is one complete
//! run, so the options are recorded without running each to its end. The analysis is a
//! backward reachability over the steps' edges (a worklist, linear in the steps): a step is
//! marked when it waits, or when one of its successors is marked; a `do` step is marked when
//! the entry of the procedure it runs is. Everything unmarked is certain not to pause.

use crate::ir::vm::Step;
use crate::ir::{ActionDef, Arm, Choice, ProcId};

/// Whether a step waits, or may wait, by itself (a `do` is judged by its procedure).
fn waits(s: &Step) -> bool {
    matches!(
        s,
        Step::Choose(_)
            | Step::SimNext(_)
            | Step::Simul { .. }
            | Step::SimulEnd
            | Step::DoField { .. }
            | Step::TurnStart { .. }
            | Step::TurnEnd { .. }
            | Step::Roll { .. }
            | Step::Shuffle { .. }
            | Step::Window(_)
    )
}

/// The steps that may follow step `pc` (a target past the end is the return).
fn successors(s: &Step, pc: u32, mut f: impl FnMut(u32)) {
    match s {
        Step::Jump(t) => f(*t),
        Step::JumpIfNot(_, t, _) | Step::ForNext { exit: t, .. } => {
            f(pc + 1);
            f(*t)
        }
        Step::ForNextIf { exit, .. } => {
            f(pc + 1);
            f(pc + 2);
            f(*exit)
        }
        _ => f(pc + 1),
    }
}

/// Per procedure, per step: true when running on from it certainly returns without pausing.
pub(crate) fn pause_free(procs: &[Vec<Step>], actions: &[ActionDef]) -> Vec<Vec<bool>> {
    // Predecessors of every step, and the `do` steps that run each procedure.
    let mut preds: Vec<Vec<Vec<u32>>> = procs.iter().map(|p| vec![vec![]; p.len()]).collect();
    let mut callers: Vec<Vec<(usize, u32)>> = vec![vec![]; procs.len()];
    let mut bad: Vec<Vec<bool>> = procs.iter().map(|p| vec![false; p.len()]).collect();
    let mut work: Vec<(usize, u32)> = vec![];
    for (p, steps) in procs.iter().enumerate() {
        for (pc, s) in steps.iter().enumerate() {
            let (pc, s) = (pc as u32, s.plain());
            successors(s, pc, |t| {
                if let Some(list) = preds[p].get_mut(t as usize) {
                    list.push(pc);
                }
            });
            if let Step::Do { action, .. } = s {
                if let Some(a) = actions.get(action.0 as usize) {
                    let callee = a.proc.0 as usize;
                    if callee < procs.len() {
                        callers[callee].push((p, pc));
                    }
                }
            }
            if waits(s) {
                bad[p][pc as usize] = true;
                work.push((p, pc));
            }
        }
    }
    while let Some((p, pc)) = work.pop() {
        if pc == 0 {
            for &(q, qpc) in &callers[p] {
                if !bad[q][qpc as usize] {
                    bad[q][qpc as usize] = true;
                    work.push((q, qpc));
                }
            }
        }
        for &b in &preds[p][pc as usize] {
            if !bad[p][b as usize] {
                bad[p][b as usize] = true;
                work.push((p, b));
            }
        }
    }
    bad.into_iter()
        .map(|v| v.into_iter().map(|b| !b).collect())
        .collect()
}

/// Whether every option of choice `c` (at step `at` of procedure `proc`) runs on to the end
/// of that procedure without pausing: all its options are written in it (an action offered
/// by name runs its own effect, not looked into), none is a `choose each`, and nothing after
/// any option's block can pause.
pub(crate) fn choice_free(c: &Choice, free: &[bool]) -> bool {
    c.each.is_none()
        && c.arms.iter().all(|a| match a {
            Arm::Inline { body_pc, .. } => free.get(*body_pc as usize).copied().unwrap_or(true),
            Arm::Action(_) => false,
        })
}

/// The procedure and step of every choice's `choose`.
pub(crate) fn choice_homes(procs: &[Vec<Step>], n: usize) -> Vec<Option<ProcId>> {
    let mut home = vec![None; n];
    for (p, steps) in procs.iter().enumerate() {
        for s in steps {
            if let Step::Choose(c) = s {
                if let Some(h) = home.get_mut(c.0 as usize) {
                    *h = Some(ProcId(p as u32));
                }
            }
        }
    }
    home
}

#[cfg(test)]
mod tests {
    use crate::ir::{ChoiceId, Game};

    const GAME: &str = r#"
game "Pauses"
players 2
enum Side { left, right }
var at: 0..9
var die: 1..6
// 1: nothing after the choice pauses
sequence action plain(n in 1..2) {
    at = n
    choose side in Side { at += 1 }
    if at > 8 { end draw }
}
// 2: the choice is reached again by its loop
sequence action again() {
    repeat { choose side in Side { at += 1 } else { break } }
}
// 3: chance after the choice
sequence action rolled() {
    choose side in Side { at += 1 }
    roll die
}
// 4: the choice in an action run by `do`; its caller goes on without pausing
action arrive() { choose side in Side { at += 1 } }
sequence action called() {
    do arrive()
    at = 0
}
flow { repeat { for p in players { turn p { choose { plain again rolled called } } } } }
"#;

    fn game() -> Game {
        let loaded = crate::check::load("pauses.rules", GAME);
        match loaded.game {
            Some(g) => g,
            None => panic!("{}", loaded.diagnostics),
        }
    }

    /// The choices in the order written (the flow's is the last).
    fn free(g: &Game) -> Vec<bool> {
        (0..g.choices.len())
            .map(|c| g.program.choices[ChoiceId(c as u32)].free_in.is_some())
            .collect()
    }

    #[test]
    fn a_choice_is_free_only_when_nothing_after_it_can_pause() {
        let g = game();
        assert_eq!(free(&g), vec![true, false, false, true, false]);
    }

    #[test]
    fn a_caller_is_free_from_the_step_after_its_do() {
        let g = game();
        let called = &g.actions[crate::ir::ActionId(4)];
        assert_eq!(called.name, "called");
        let free = &g.program.pause_free[called.proc];
        // `do arrive()` pauses (its choice), the steps after it do not.
        assert_eq!(free.first(), Some(&false));
        assert!(free[1..].iter().all(|&f| f), "{free:?}");
    }
}
