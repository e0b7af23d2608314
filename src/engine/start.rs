//! Starting a match: the configuration checked, the state built, the setup run.
use super::vm::{with_machine, DEFAULT_FUEL};
use super::zones::Zones;
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
            cache: vec![],
            runs: vec![],
            decisions: 0,
            outcome: None,
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
