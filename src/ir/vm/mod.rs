//! The compiled program: every expression, collection and procedure of a game as flat code
//! over typed slots, built once when the file is checked (`check::compile`) and run by the
//! engine's machine. The expression trees of the IR stay for analysis and messages; the engine
//! runs only this.
//!
//! Expressions are code for a stack machine: each compiled expression leaves one value on the
//! stack; each compiled collection leaves one iterator on the iterator stack. Procedures are
//! [`Step`]s with explicit jumps, so a paused game is plain data.

use super::*;

mod ops;
mod options;
mod steps;
pub use ops::*;
pub use options::*;
pub use steps::*;

/// A compiled expression or collection: the ops `start..end` of [`Program::ops`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Code {
    /// The first op.
    pub start: u32,
    /// Just past the last op.
    pub end: u32,
}

/// An `after a(args): body` expression ([`Op::After`]).
#[derive(Clone, Copy, Debug)]
pub struct CAfter {
    /// The action whose effect runs.
    pub action: ActionId,
    /// Its number of arguments (pushed before `me`).
    pub argc: u8,
    /// The body: the ops right after the [`Op::After`], evaluated in the state the effect
    /// leaves.
    pub body: Code,
}

/// Everything the engine runs.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// The ops of every compiled expression and collection.
    pub ops: Vec<Op>,
    /// Values too large to sit in an op.
    pub lits: Vec<Value>,
    /// Comparisons of simple operands ([`Op::Cmp`]).
    pub cmps: Vec<Cmp>,
    /// Two-dimensional zone reads ([`ZoneAt::Local2`]).
    pub zone2s: Vec<Zone2>,
    /// Two-dimensional variable reads ([`Operand::Var2`], [`Op::Var2`]).
    pub var2s: Vec<Var2>,
    /// Spans of ops that can fail, sorted by op position.
    pub spans: Vec<(u32, Span)>,
    /// The procedures, as steps.
    pub procs: Table<ProcId, Vec<Step>>,
    /// Per procedure, per step: running on from it certainly returns without pausing
    /// (`check::compile::pauses`; a sequence action's listing stops at a choice after which
    /// nothing pauses).
    pub pause_free: Table<ProcId, Vec<bool>>,
    /// Every choice.
    pub choices: Table<ChoiceId, CChoice>,
    /// Every action's parameters and guard.
    pub actions: Table<ActionId, COptions>,
    /// Functions.
    pub defs: Table<DefId, CDef>,
    /// Set kinds.
    pub sets: Table<SetId, CSet>,
    /// `end when` conditions.
    pub end_when: Vec<(Code, Span)>,
    /// `when` triggers: (test, per element, body, span), in declaration order.
    pub triggers: Vec<CTrigger>,
    /// `score(p)`, the player in local 0.
    pub score: Option<Code>,
    /// `tiebreak(p)`, the player in local 0.
    pub tiebreaks: Vec<Code>,
    /// `heuristic(p)`, the player in local 0 (for agents only).
    pub heuristic: Option<Code>,
    /// Initial values of variables.
    pub var_inits: Table<VarId, Option<Code>>,
    /// `paths` collections.
    pub paths: Vec<PathsOp>,
    /// Rays in several directions or that stop.
    pub rays: Vec<RaysOp>,
    /// `group` collections (the same shape as paths, without steps).
    pub groups: Vec<PathsOp>,
    /// `line` aggregates.
    pub lines: Vec<LineOp>,
    /// `best_sets` aggregates.
    pub best_sets: Vec<BestSetsOp>,
    /// `connected` aggregates.
    pub connects: Vec<ConnectOp>,
    /// Expressions of procedures that may run as native code ([`Op::Native`]).
    pub natives: Vec<NativeExpr>,
    /// Regions of procedures that may run as native code ([`Step::Native`]).
    pub regions: Vec<Region>,
    /// `majority` aggregates.
    pub majorities: Vec<MajorityOp>,
    /// The components of each type, in table order.
    pub type_comps: Table<TypeId, Vec<CompId>>,
    /// Indexed variables.
    pub indexes: Vec<ValueIndex>,
    /// Per component: whether it may look the same as another of its type (otherwise it is
    /// never a copy of one offered before it; see `twins` in the compiler), and how.
    pub twins: Vec<Twin>,
    /// Whether some function's results are remembered ([`CDef::remember`]).
    pub remember: bool,
    /// Indexed component fields (their bits follow the variables' in the state's index).
    pub field_indexes: Vec<FieldIndex>,
    /// Per component (when some field is indexed): its type and its position in the type's
    /// list of [`Program::type_comps`].
    pub comp_pos: Vec<(TypeId, u32)>,
    /// Per variable: its position in `indexes`, if indexed.
    pub var_index: Table<VarId, Option<u32>>,
    /// Words of index bits a state keeps.
    pub index_words: u32,
    /// Remembered guard parts.
    pub memos: Vec<MemoDef>,
    /// Bindings listed from remembered lists.
    pub filters: Vec<FilterDef>,
    /// Variables that only `setup` writes: after it, they never change in a match.
    pub frozen: Vec<VarId>,
    /// Check mode (tests): every remembered answer served (the options listed in a state,
    /// function results, guard parts answered per setup, a window's "no option") is computed
    /// again without it and must be equal, else the engine panics naming the cache. Off, it
    /// costs one test of this flag where an answer is served.
    pub check_caches: bool,
    /// The family bits of what functions read ([`CDef::reads`]).
    pub families: Families,
    /// Per action: the families its parameters' collections and its guard read (all bits
    /// for a sequence action): a window remembers that a seat had no option of it while
    /// none of them is written.
    pub action_reads: Vec<u64>,
    /// Per action: its first parameter's zone when it is one instance fixed by the seat
    /// (`zone`, `zone[me]`), and the families that zone and the guard's parts tested before
    /// any parameter is bound read (but for comparisons that cannot fail). While that
    /// instance is empty, the action has no option whatever its other parts read: a window
    /// remembers that answer while none of these families is written.
    pub action_first: Vec<Option<FirstZone>>,
    /// Per action: its guard's first part tested when it cannot fail and reads no parameter
    /// (`busy == 0`, `phase == a or phase == b`): while it is false, the action has no
    /// option, whatever its other parts read. A window that found a seat without an option of
    /// the action remembers it while that part stays false.
    pub action_sure: Vec<Option<Sure>>,
    /// Tells programs apart for caches kept outside a state (remembered answers).
    pub id: u64,
    /// Per op position: the end of the run of flag ops ([`Program::is_flag_op`]) starting
    /// there. Code that lies within one run computes a flag from comparisons alone and is
    /// run without the value stack.
    pub flag_runs: Vec<u32>,
    /// Per comparison of [`Program::cmps`]: its fast form.
    pub fast: Vec<FastCmp>,
    /// The zone loops walked in place ([`Op::ZoneWalk`]).
    pub zone_walks: Vec<ZoneWalk>,
    /// The `after` expressions ([`Op::After`]).
    pub afters: Vec<CAfter>,
    /// The nodes of the flag graphs ([`FlagNode`]).
    pub flag_nodes: Vec<FlagNode>,
    /// Per op position: (end, root) of the flag graph of the guard part whose code starts
    /// there (an end of 0: none).
    pub flag_graphs: Vec<(u32, u32)>,
}

/// One comparison of a flag graph: flag code (a guard part made of comparisons joined by
/// `and`, `or`, `not` and `if`) turned, when the program is finished, into the comparisons
/// it tests and where each answer leads, so that it runs without decoding its jumps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlagNode {
    /// The comparison ([`Program::cmps`]).
    pub cmp: u32,
    /// Its op position (for the span of an error).
    pub pc: u32,
    /// The next node when it holds, or [`FlagNode::TRUE`] / [`FlagNode::FALSE`].
    pub then: u32,
    /// The next node when it does not hold.
    pub other: u32,
}

impl FlagNode {
    /// The answer is true.
    pub const TRUE: u32 = u32::MAX;
    /// The answer is false.
    pub const FALSE: u32 = u32::MAX - 1;
}

impl Program {
    /// Finishes a program after code was added: sorts the spans, finds the runs of flag
    /// ops and the zone loops walked in place.
    pub fn finish(&mut self) {
        self.spans.sort_by_key(|(pc, _)| *pc);
        let n = self.ops.len();
        self.flag_runs.resize(n, 0);
        let mut end = n as u32;
        for pc in (0..n).rev() {
            if !Self::is_flag_op(self.ops[pc]) {
                end = pc as u32;
            }
            self.flag_runs[pc] = end;
        }
        self.fast = self.cmps.iter().map(FastCmp::of).collect();
        // A zone's walk whose loop has a foreseen shape runs in place (ops added since the
        // last finish are looked at; walks found before stay).
        for pc in 0..n.saturating_sub(1) {
            if self.ops[pc] == Op::IterZone {
                if let Some(w) = ZoneWalk::of(&self.ops, pc as u32 + 1) {
                    self.ops[pc] = Op::ZoneWalk(self.zone_walks.len() as u32);
                    self.zone_walks.push(w);
                }
            }
        }
        let mut codes: Vec<Code> = Vec::new();
        let mut add = |o: &COptions| {
            for p in &o.parts {
                codes.push(p.code);
                if let Some(sp) = p.split {
                    codes.extend([sp.then, sp.other]);
                }
            }
        };
        self.actions.iter().for_each(&mut add);
        self.choices
            .iter()
            .flat_map(|c| c.arms.iter().flatten())
            .for_each(&mut add);
        // A board walk's fixed parts, answered before the walk (`Machine::paths`).
        for w in self.paths.iter().chain(&self.groups) {
            codes.extend(w.parts.iter().filter(|p| p.1).map(|p| p.0));
        }
        self.flag_nodes.clear();
        self.flag_graphs.clear();
        self.flag_graphs.resize(n, (0, 0));
        for code in codes {
            if code.end > code.start + 1 && self.is_flag_code(code) {
                if let Some(root) = self.flag_graph(code) {
                    self.flag_graphs[code.start as usize] = (code.end, root);
                }
            }
        }
    }

    /// Where flag code goes from op `pc` with the flag `flag` (as [`Program::is_flag_code`]
    /// code runs): the position of the next comparison, or the answer. `None`: a shape not
    /// foreseen.
    fn flag_step(&self, code: Code, mut pc: u32, mut flag: bool) -> Option<Result<u32, bool>> {
        for _ in 0..=(code.end - code.start) {
            if pc >= code.end {
                return Some(Err(flag));
            }
            if pc < code.start {
                return None;
            }
            match self.ops[pc as usize] {
                Op::Cmp(_) => return Some(Ok(pc)),
                Op::JumpIfNot(t) | Op::AndJump(t) if !flag => pc = t,
                Op::OrJump(t) if flag => pc = t,
                Op::Jump(t) => pc = t,
                Op::Not => {
                    flag = !flag;
                    pc += 1;
                }
                Op::JumpIfNot(_) | Op::AndJump(_) | Op::OrJump(_) => pc += 1,
                _ => return None,
            }
        }
        None
    }

    /// The flag graph of flag code ([`FlagNode`]): its root, or `None` when its shape is not
    /// foreseen (it then runs as code).
    fn flag_graph(&mut self, code: Code) -> Option<u32> {
        let base = self.flag_nodes.len() as u32;
        // The comparisons reached, in the order met, and each one's two next steps.
        let mut seen: Vec<u32> = Vec::new();
        let mut steps: Vec<(Result<u32, bool>, Result<u32, bool>)> = Vec::new();
        let first = self.flag_step(code, code.start, false)?;
        if let Ok(pc) = first {
            seen.push(pc);
        }
        let mut i = 0;
        while i < seen.len() {
            let pc = seen[i];
            let then = self.flag_step(code, pc + 1, true)?;
            let other = self.flag_step(code, pc + 1, false)?;
            for next in [then, other].into_iter().flatten() {
                // Only forward: the graph has no cycle.
                if next <= pc {
                    return None;
                }
                if !seen.contains(&next) {
                    seen.push(next);
                }
            }
            steps.push((then, other));
            i += 1;
        }
        let node = |r: Result<u32, bool>| -> u32 {
            match r {
                Ok(pc) => base + seen.iter().position(|&p| p == pc).unwrap_or(0) as u32,
                Err(true) => FlagNode::TRUE,
                Err(false) => FlagNode::FALSE,
            }
        };
        for (k, &pc) in seen.iter().enumerate() {
            let Op::Cmp(cmp) = self.ops[pc as usize] else {
                return None;
            };
            let (then, other) = steps[k];
            self.flag_nodes.push(FlagNode {
                cmp,
                pc,
                then: node(then),
                other: node(other),
            });
        }
        Some(node(first))
    }

    /// Ops that read or write only one flag: a comparison, the jumps of `if`, `and` and `or`,
    /// and `not`. Code made of them alone (a guard such as `if a == b then c == none else
    /// d != me`) never has more than one flag alive.
    pub fn is_flag_op(op: Op) -> bool {
        matches!(
            op,
            Op::Cmp(_) | Op::JumpIfNot(_) | Op::Jump(_) | Op::AndJump(_) | Op::OrJump(_) | Op::Not
        )
    }

    /// Whether `code` is a flag computation ([`Program::flag_runs`]).
    #[inline]
    pub fn is_flag_code(&self, code: Code) -> bool {
        code.end > code.start
            && self
                .flag_runs
                .get(code.start as usize)
                .is_some_and(|&e| e >= code.end)
    }

    /// The span recorded for the op at `pc` (ops that can fail record the span of what they
    /// compute), if any.
    pub fn span_at(&self, pc: u32) -> Option<Span> {
        self.spans
            .binary_search_by_key(&pc, |(p, _)| *p)
            .ok()
            .map(|i| self.spans[i].1)
    }

    /// The position of a value among the values of its kind (a space's index, an enum value's
    /// position, a seat), for memo keys; `None` for values that have no such position.
    pub fn position(v: Value) -> Option<u32> {
        match v {
            Value::Player(p) => Some(p as u32),
            Value::Enum(_, i) => Some(i as u32),
            Value::Space(_, s) => Some(s),
            _ => None,
        }
    }

    /// The code of an index value for a value index: `none` is 0, then the values in order.
    pub fn value_code(v: Value) -> Option<u32> {
        match v {
            Value::None => Some(0),
            Value::Player(p) => Some(p as u32 + 1),
            Value::Enum(_, i) => Some(i as u32 + 1),
            Value::Bool(b) => Some(b as u32 + 1),
            Value::Space(_, s) => Some(s + 1),
            _ => None,
        }
    }

    /// Keeps the value index of `var` (if it has one) in `bits` (the state's index bits) up
    /// to date with a write of its entry `pos` from `old` to `new`.
    #[inline(always)]
    pub fn index_write(&self, var: VarId, pos: usize, old: Value, new: Value, bits: &mut [u64]) {
        let Some(ix) = self.var_index.get(var).copied().flatten() else {
            return;
        };
        if old == new {
            return;
        }
        let ix = self.indexes[ix as usize];
        let word = pos / 64;
        let bit = 1u64 << (pos % 64);
        let at = |c: u32| (ix.base + c * ix.words) as usize + word;
        if let Some(c) = Program::value_code(old).filter(|c| *c < ix.codes) {
            if let Some(w) = bits.get_mut(at(c)) {
                *w &= !bit;
            }
        }
        if let Some(c) = Program::value_code(new).filter(|c| *c < ix.codes) {
            if let Some(w) = bits.get_mut(at(c)) {
                *w |= bit;
            }
        }
    }
}
