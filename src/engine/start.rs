//! Starting a match: the configuration checked, the state built, the setup run.
use super::vm::{with_machine, DEFAULT_FUEL};
use super::zones::Zones;
use super::*;
use crate::ir::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Starts remembered per thread (see [`Game::start`]).
const MAX_STARTS: usize = 8;

thread_local! {
    static STARTS: std::cell::RefCell<Vec<(u64, Config, State)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// A copy of a remembered start with a generator of its own seed. The stacks keep the room
/// the setup gave them (a clone's room is only what it holds), so play does not grow them.
fn copy_start(st: &State, seed: u64) -> State {
    let mut copy = st.clone();
    copy.rng = ChaCha8Rng::seed_from_u64(seed);
    let room = |len: usize, cap: usize| cap.saturating_sub(len);
    copy.frames
        .reserve(room(copy.frames.len(), st.frames.capacity()));
    copy.locals
        .reserve(room(copy.locals.len(), st.locals.capacity()));
    copy.iters
        .reserve(room(copy.iters.len(), st.iters.capacity()));
    copy.cache
        .reserve(room(copy.cache.len(), st.cache.capacity()));
    copy.runs.reserve(room(copy.runs.len(), st.runs.capacity()));
    copy.commits
        .reserve(room(copy.commits.len(), st.commits.capacity()));
    copy
}

/// Two configurations that start the same match but for the seed.
fn same_but_seed(a: &Config, b: &Config) -> bool {
    a.players == b.players
        && a.variant == b.variant
        && a.chance == b.chance
        && a.fuel == b.fuel
        && a.set == b.set
}

impl Game {
    /// Starts a match: checks the configuration, runs the setup, and stops at the first decision.
    ///
    /// A start that drew nothing from the random generator is the same for every seed: it is
    /// remembered (per thread, per configuration without the seed) and later starts copy it
    /// with a generator of their own seed instead of running the setup again.
    pub fn start(&self, cfg: &Config) -> Result<State, RunError> {
        let copied = STARTS.with(|cell| {
            let starts = cell.try_borrow().ok()?;
            let (_, _, st) = starts
                .iter()
                .find(|(id, key, _)| *id == self.program.id && same_but_seed(key, cfg))?;
            Some(copy_start(st, cfg.seed))
        });
        if let Some(st) = copied {
            return Ok(st);
        }
        let st = self.start_fresh(cfg)?;
        if st.rng == ChaCha8Rng::seed_from_u64(cfg.seed) {
            let copy = copy_start(&st, cfg.seed);
            STARTS.with(|cell| {
                if let Ok(mut starts) = cell.try_borrow_mut() {
                    if starts.len() >= MAX_STARTS {
                        starts.remove(0);
                    }
                    starts.push((self.program.id, cfg.clone(), st));
                }
            });
            return Ok(copy);
        }
        Ok(st)
    }

    /// [`Game::start`] into a state kept from an earlier match: a remembered start is copied
    /// into its room (no allocation once the room is there), anything else replaces it.
    /// The match is the same as the one [`Game::start`] gives.
    pub fn start_into(&self, cfg: &Config, into: &mut State) -> Result<(), RunError> {
        let copied = STARTS.with(|cell| {
            let starts = cell.try_borrow().ok()?;
            let (_, _, st) = starts
                .iter()
                .find(|(id, key, _)| *id == self.program.id && same_but_seed(key, cfg))?;
            into.clone_from(st);
            into.rng = ChaCha8Rng::seed_from_u64(cfg.seed);
            Some(())
        });
        if copied.is_none() {
            *into = self.start(cfg)?;
        }
        Ok(())
    }

    fn start_fresh(&self, cfg: &Config) -> Result<State, RunError> {
        // The game's native code (enumerators, `end when`, functions) is built before it
        // runs, once per game: no decision pays for it in the middle of a match.
        let _ = crate::lir::listing::enumerators(self);
        if cfg.players < self.min_players || cfg.players > self.max_players {
            let range = if self.min_players == self.max_players {
                format!("{}", self.min_players)
            } else {
                format!("{} to {}", self.min_players, self.max_players)
            };
            return Err(RunError::config(format!(
                "{} is played by {range} players, not {}",
                self.name, cfg.players
            )));
        }
        let (consts, variant) = self.config_consts(cfg)?;
        let mut fields = Vec::new();
        for c in &self.comps {
            fields.extend_from_slice(&c.fields);
        }
        let mut zones = Zones::new(self.instances.len(), self.comps.len());
        for (i, c) in self.comps.enumerate() {
            zones.push_top(i, c.zone);
        }
        let fuel = match cfg.fuel {
            Some(0) => return Err(RunError::config("the work budget must be at least 1")),
            Some(f) => f,
            None => DEFAULT_FUEL,
        };
        let mut st = State {
            players: cfg.players,
            variant,
            consts,
            vars: vec![Value::None; self.var_slots as usize],
            revealed: vec![false; fields.len()],
            opened: Vec::new(),
            memory: (0..self.memories.len())
                .map(|_| std::sync::Arc::new(Vec::new()))
                .collect(),
            grants: vec![0; fields.len()],
            fields,
            zones,
            index: vec![0; self.program.index_words as usize],
            fuel,
            frozen: 0,
            frames: vec![],
            locals: vec![],
            iters: vec![],
            current: None,
            wait: Wait::Running,
            phase: Phase::Setup,
            rng: ChaCha8Rng::seed_from_u64(cfg.seed),
            chance: cfg.chance,
            chance_step: 0,
            commits: vec![],
            block: None,
            cache: vec![],
            runs: vec![],
            decisions: 0,
            window: Default::default(),
            outcome: None,
            stamps: Default::default(),
        };
        with_machine(fuel, |m| -> Result<(), RunError> {
            let mut locals = [Value::None; MAX_LOCALS];
            for (vid, v) in self.vars.enumerate() {
                let init = match self.program.var_inits[vid] {
                    Some(code) => m
                        .eval(self, &st, code, &mut locals, 0)
                        .map_err(|e| e.or_span(Some(v.span)))?,
                    None => match v.ty {
                        Type::Int => Value::Int(v.range.map_or(0, |(lo, hi)| 0.clamp(lo, hi))),
                        Type::Bool => Value::Bool(false),
                        _ => Value::None,
                    },
                };
                let init = match (v.range, init) {
                    (Some((lo, hi)), Value::Int(n)) if v.clamp => Value::Int(n.clamp(lo, hi)),
                    _ => init,
                };
                if let (Some((lo, hi)), Value::Int(n)) = (v.range, init) {
                    if n < lo || n > hi {
                        return Err(err(
                            format!(
                                "`{}` would start at {n}, outside its range {lo}..{hi}",
                                v.name
                            ),
                            Some(v.span),
                        ));
                    }
                }
                for k in 0..v.count {
                    st.set_var(&self.program, vid, v.base, (v.base + k) as usize, init);
                }
            }
            Ok(())
        })?;
        st.index = st.computed_index(self);
        let first = self.setup.unwrap_or(self.flow);
        if self.setup.is_none() {
            st.phase = Phase::Flow;
            st.freeze(self);
        }
        self.push_frame(&mut st, first, 0, &[])?;
        self.run(&mut st)?;
        Ok(st)
    }
}

impl Game {
    /// The constants of a match: the file's values, then each variant of the configuration in
    /// order (two of one group, or two that set a constant to different values, are refused),
    /// then the values set by name; and the first variant in play.
    fn config_consts(
        &self,
        cfg: &Config,
    ) -> Result<(Table<ConstId, Value>, Option<VariantId>), RunError> {
        let mut consts: Table<ConstId, Value> = self.consts.iter().map(|c| c.value).collect();
        let names: Vec<&str> = match &cfg.variant {
            None => Vec::new(),
            Some(list) => list.split(',').map(str::trim).collect(),
        };
        let mut chosen: Vec<VariantId> = Vec::new();
        for name in names {
            let Some(id) = self.variants.ids().find(|&v| self.variants[v].name == name) else {
                let known: Vec<&str> = self.variants.iter().map(|v| v.name.as_str()).collect();
                return Err(RunError::config(format!(
                    "unknown variant `{}`; this game has: {}",
                    crate::source::quote(name, 40),
                    if known.is_empty() {
                        "none".into()
                    } else {
                        known.join(", ")
                    }
                )));
            };
            let v = &self.variants[id];
            for &other in &chosen {
                let o = &self.variants[other];
                if other == id {
                    return Err(RunError::config(format!("variant `{name}` is named twice")));
                }
                if let (Some(g), Some(h)) = (&v.group, &o.group) {
                    if g == h {
                        return Err(RunError::config(format!(
                            "variants `{}` and `{name}` cannot be played together: both are of \
                             the group `{g}`",
                            o.name
                        )));
                    }
                }
                for (c, x) in &v.sets {
                    if let Some((_, y)) = o.sets.iter().find(|(d, y)| d == c && y != x) {
                        return Err(RunError::config(format!(
                            "variants `{}` and `{name}` cannot be played together: they set \
                             `{}` to {} and {}",
                            o.name,
                            self.consts[*c].name,
                            self.show_static(*y),
                            self.show_static(*x)
                        )));
                    }
                }
            }
            for (c, x) in &v.sets {
                self.settable(*c, *x, &format!("variant `{name}`"))?;
                consts[*c] = *x;
            }
            chosen.push(id);
        }
        for (name, text) in &cfg.set {
            let Some(c) = self.consts.ids().find(|&c| self.consts[c].name == *name) else {
                let known: Vec<&str> = self.consts.iter().map(|c| c.name.as_str()).collect();
                return Err(RunError::config(format!(
                    "`{}` is not a constant of this game; its constants: {}",
                    crate::source::quote(name, 40),
                    if known.is_empty() {
                        "none".into()
                    } else {
                        known.join(", ")
                    }
                )));
            };
            let v = self.const_value(c, text)?;
            self.settable(c, v, "`--set`")?;
            consts[c] = v;
        }
        Ok((consts, chosen.first().copied()))
    }

    /// Refuses to give constant `c` the value `v` (by `by`, a variant or `--set`) when a
    /// `components` table reads it: tables are made when the file is read, so the table would
    /// keep the value written, and the match would not be the one asked for.
    fn settable(&self, c: ConstId, v: Value, by: &str) -> Result<(), RunError> {
        let def = &self.consts[c];
        match def.table_read {
            Some(at) if v != def.value => {
                let (line, _) = self.source(at).line_col(at.start);
                Err(RunError::config(format!(
                    "{by} cannot change `{}`: the `components` table at line {line} reads it \
                     when the file is read, so that table would keep {}; a rule that reads it \
                     in `setup` (deal that many, write the field) changes with it",
                    def.name,
                    self.show_static(def.value)
                )))
            }
            _ => Ok(()),
        }
    }

    /// A value written for a constant (`--set NAME=VALUE`), read as the constant's type.
    fn const_value(&self, c: ConstId, text: &str) -> Result<Value, RunError> {
        let def = &self.consts[c];
        let t = text.trim();
        let v = match def.value {
            Value::Int(_) => t.parse::<i64>().ok().map(Value::Int),
            Value::Bool(_) => t.parse::<bool>().ok().map(Value::Bool),
            Value::Enum(e, _) => {
                let en = &self.enums[e];
                let bare = t
                    .strip_prefix(en.name.as_str())
                    .and_then(|r| r.strip_prefix('.'))
                    .unwrap_or(t);
                en.values
                    .iter()
                    .position(|n| n == bare)
                    .map(|i| Value::Enum(e, i as u16))
            }
            _ => None,
        };
        v.ok_or_else(|| {
            let kind = match def.value {
                Value::Int(_) => "a whole number".to_string(),
                Value::Bool(_) => "`true` or `false`".to_string(),
                Value::Enum(e, _) => format!(
                    "one of {}",
                    self.enums[e]
                        .values
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                _ => "a value".to_string(),
            };
            RunError::config(format!(
                "`{}` cannot be set to `{}`: it takes {kind}",
                def.name,
                crate::source::quote(t, 40)
            ))
        })
    }
}
