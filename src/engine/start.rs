//! Starting a match: the configuration checked, the state built, the setup run.
use super::eval::{Ctx, Env};
use super::*;
use crate::ir::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

impl Game {
    /// Starts a match: checks the configuration, runs the setup, and stops at the first decision.
    pub fn start(&self, cfg: &Config) -> Result<State, RunError> {
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
        let mut consts: Table<ConstId, Value> = self.consts.iter().map(|c| c.value).collect();
        let variant = match &cfg.variant {
            None => None,
            Some(name) => {
                let Some(i) = self.variants.iter().position(|v| &v.name == name) else {
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
                let id = VariantId(i as u16);
                for (c, v) in &self.variants[id].sets {
                    consts[*c] = *v;
                }
                Some(id)
            }
        };
        let mut fields = Vec::new();
        for c in &self.comps {
            fields.extend_from_slice(&c.fields);
        }
        // Each zone gets room for the components that could ever be in it (up to 64), so that
        // moving components during play does not allocate.
        let mut per_type: Table<TypeId, usize> = vec![0usize; self.types.len()].into();
        for c in &self.comps {
            per_type[c.ty] += 1;
        }
        let mut zones: Table<InstId, Vec<CompId>> = self
            .instances
            .iter()
            .map(|i| Vec::with_capacity(per_type[self.zones[i.zone].ty].min(64)))
            .collect();
        let mut loc: Table<CompId, InstId> = Table::new();
        for (i, c) in self.comps.enumerate() {
            zones[c.zone].push(i);
            loc.push(c.zone);
        }
        let mut st = State {
            players: cfg.players,
            variant,
            consts,
            vars: vec![Value::None; self.var_slots as usize],
            revealed: vec![false; fields.len()],
            fields,
            zones,
            loc,
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
            cache: vec![],
            decisions: 0,
            outcome: None,
        };
        for v in &self.vars {
            let init = match &v.init {
                Some(e) => {
                    let mut locals = [Value::None; MAX_LOCALS];
                    let ctx = Ctx { g: self, s: &st };
                    ctx.eval(
                        e,
                        &mut Env {
                            locals: &mut locals,
                            me: 0,
                            depth: 0,
                        },
                    )
                    .map_err(|e| e.or_span(Some(v.span)))?
                }
                None => match v.ty {
                    Type::Int => Value::Int(v.range.map_or(0, |(lo, hi)| 0.clamp(lo, hi))),
                    Type::Bool => Value::Bool(false),
                    _ => Value::None,
                },
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
                st.vars[(v.base + k) as usize] = init;
            }
        }
        let first = self.setup.unwrap_or(self.flow);
        if self.setup.is_none() {
            st.phase = Phase::Flow;
        }
        self.push_frame(&mut st, first, 0, &[]);
        self.run(&mut st)?;
        Ok(st)
    }

    pub(crate) fn push_frame(&self, st: &mut State, proc: ProcId, me: u8, args: &[Value]) {
        let base = st.locals.len() as u32;
        let n = self.procs[proc].locals as usize;
        st.locals
            .resize(base as usize + n.max(args.len()), Value::None);
        st.locals[base as usize..base as usize + args.len()].copy_from_slice(args);
        st.frames.push(Frame {
            proc,
            pc: 0,
            base,
            me,
        });
    }
}
