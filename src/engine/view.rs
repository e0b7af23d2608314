//! Views: the state as one seat may see it, derived from the visibility the rules declare.

use super::{show_value, Actor, State};
use crate::ir::{CompId, Game, InstId, TypeId, Visibility};
use serde::Serialize;

/// One zone instance as a seat sees it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ZoneView {
    /// The zone instance's name with its index labels, e.g. `hand[p2]` or `pile[red]`.
    pub zone: String,
    /// Number of components, always visible.
    pub count: usize,
    /// Names of the components the seat may see, bottom to top; hidden ones are absent.
    pub visible: Vec<String>,
    /// True when every component is visible to the seat (an empty zone is open).
    pub open: bool,
    /// For each visible component, its fields that its name does not show, as the seat sees
    /// them (`?` for a secret field it may not see).
    pub fields: Vec<Vec<(String, String)>>,
}

/// Everything one seat may know about a state.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct View {
    /// The seat this view is for (`None`: a spectator).
    pub seat: Option<u8>,
    /// The player whose turn it is, if any (see [`State::current`]).
    pub current: Option<u8>,
    /// `pN`, `chance` or `nobody`.
    pub actor: String,
    /// Every zone instance in instance order, except those owned by seats not in play.
    pub zones: Vec<ZoneView>,
    /// Variables, as `name[index] = value`.
    pub vars: Vec<(String, String)>,
    /// Whether the game is over.
    pub over: bool,
    /// The final scores in seat order, once the game is over.
    pub scores: Option<Vec<i64>>,
    /// The winning seats, once the game is over.
    pub winners: Option<Vec<u8>>,
}

impl Game {
    /// The state as `seat` may see it (`None`: a spectator, who sees only public things).
    ///
    /// With hands declared as `owner` zones, a player sees the cards in their own hand and
    /// only the number of cards in the other's.
    ///
    /// ```
    /// let text = r#"
    ///     game "Hands"
    ///     players 2
    ///     component Card { rank: int }
    ///     zone deck: Card hidden
    ///     zone hand[Player]: Card owner
    ///     components Card in deck { "c{rank}" for r in 1..30 { rank = r } }
    ///     setup { shuffle deck  for p in players { deal 8 from deck to hand[p] } }
    ///     action pass() { end }
    ///     flow { turn seat(0) { choose { pass } } }
    /// "#;
    /// let game = rulebook::load("hands.rules", text).game.expect("valid rules");
    /// let config = rulebook::Config { players: 2, seed: 7, ..Default::default() };
    /// let st = game.start(&config).unwrap();
    ///
    /// let view = game.view(&st, Some(0)); // what p1 may see
    /// let zone = |name: &str| view.zones.iter().find(|z| z.zone == name).unwrap();
    /// let mine = zone("hand[p1]");
    /// assert_eq!((mine.count, mine.visible.len(), mine.open), (8, 8, true));
    /// let theirs = zone("hand[p2]");
    /// assert!(theirs.visible.is_empty() && !theirs.open);
    /// assert_eq!(theirs.count, 8);
    /// ```
    pub fn view(&self, st: &State, seat: Option<u8>) -> View {
        if let Some(run) = self.block_run(st, seat) {
            // While a simultaneous block waits, a player sees its own part of it only.
            let mut view = self.view(run, seat);
            if let Actor::Player(p) = self.actor(st) {
                view.actor = format!("p{}", p + 1);
            }
            return view;
        }
        let mut zones = Vec::new();
        for inst in self.instances.ids() {
            let info = self.instances[inst];
            if info.owner.is_some_and(|o| o >= st.players) {
                continue;
            }
            let z = &self.zones[info.zone];
            let items = st.zones.items(inst);
            let sees_all = self.zone_open_to(st, inst, seat);
            let visible: Vec<String> = if sees_all {
                items
                    .iter()
                    .map(|&c| super::show_comp_for(self, st, c, seat))
                    .collect()
            } else if z.visibility == Visibility::Top {
                items
                    .last()
                    .map(|&c| super::show_comp_for(self, st, c, seat))
                    .into_iter()
                    .collect()
            } else {
                Vec::new()
            };
            let shown: Vec<CompId> = if sees_all {
                items
            } else if z.visibility == Visibility::Top {
                items.last().copied().into_iter().collect()
            } else {
                Vec::new()
            };
            let fields = shown
                .iter()
                .map(|&c| self.hidden_name_fields(st, c, seat))
                .collect();
            let count = st.zones.len(inst);
            zones.push(ZoneView {
                fields,
                zone: self.zone_instance_name(inst),
                count,
                open: sees_all || count == 0,
                visible,
            });
        }
        let vars = self.view_vars(st, seat, false);
        let actor = match self.actor(st) {
            Actor::Player(p) => format!("p{}", p + 1),
            Actor::Chance => "chance".into(),
            Actor::Nobody => "nobody".into(),
        };
        View {
            seat,
            current: st.current,
            actor,
            zones,
            vars,
            over: st.is_over(),
            scores: st.outcome().map(|o| o.scores.clone()),
            winners: st.outcome().map(|o| o.winners.clone()),
        }
    }

    /// Every variable entry as `name[index] = value`, for seats in play; `?` for a value
    /// `seat` may not see (unless `all`).
    fn view_vars(&self, st: &State, seat: Option<u8>, all: bool) -> Vec<(String, String)> {
        let mut vars = Vec::new();
        for (vid, v) in self.vars.enumerate() {
            for k in 0..v.count {
                let mut rest = k;
                let mut parts = Vec::new();
                let mut skip = false;
                for i in (0..v.dims.len()).rev() {
                    let x = rest % v.sizes[i];
                    rest /= v.sizes[i];
                    parts.push(match v.dims[i] {
                        crate::ir::Dim::Player => {
                            skip |= x >= st.players as u32;
                            format!("p{}", x + 1)
                        }
                        crate::ir::Dim::Enum(e) => self.enums[e].values[x as usize].clone(),
                        d @ (crate::ir::Dim::Board(_) | crate::ir::Dim::Range { .. }) => {
                            self.dim_value_name(d, x)
                        }
                    });
                }
                if skip {
                    continue;
                }
                parts.reverse();
                let name = if parts.is_empty() {
                    v.name.clone()
                } else {
                    format!("{}[{}]", v.name, parts.join(","))
                };
                let slot = (v.base + k) as usize;
                let value = if !all && !super::var_visible(self, st, vid, slot, seat) {
                    "?".to_string()
                } else {
                    match st.vars[slot] {
                        crate::ir::Value::Comp(c) => super::show_comp_for(self, st, c, seat),
                        other => show_value(self, st, other),
                    }
                };
                vars.push((name, value));
            }
        }
        vars
    }
}

impl Game {
    /// The fields of a component that its name leaves out, as `seat` sees them.
    pub fn hidden_name_fields(
        &self,
        st: &State,
        c: CompId,
        seat: Option<u8>,
    ) -> Vec<(String, String)> {
        let comp = &self.comps[c];
        let mut out = Vec::new();
        for (fi, f) in self.types[comp.ty].fields.iter().enumerate() {
            if comp
                .name
                .iter()
                .any(|p| matches!(p, crate::ir::NamePart::Field(x) if *x as usize == fi))
            {
                continue;
            }
            let v = if super::field_visible(self, st, c, fi as u16, seat) {
                show_value(self, st, st.field(c, fi as u16, self))
            } else {
                "?".into()
            };
            out.push((f.name.clone(), v));
        }
        out
    }

    /// Whether `seat` sees the components of a zone instance now.
    pub fn zone_open_to(&self, st: &State, inst: InstId, seat: Option<u8>) -> bool {
        if st.opened.binary_search(&inst.0).is_ok() {
            return true; // `reveal z`
        }
        let info = self.instances[inst];
        match self.zones[info.zone].visibility {
            Visibility::Public => true,
            Visibility::Owner => seat.is_some() && info.owner == seat,
            Visibility::Hidden | Visibility::Top => st.is_over(),
            Visibility::Secret => false,
        }
    }

    /// A state that `seat` cannot tell from `st`, drawn from what the seat sees and `rng`
    /// only: two states with equal views give equal states for equal generators. What the
    /// seat cannot see is dealt anew, one kind of hidden thing at a time:
    ///
    /// - components at places it cannot see are shuffled among those places (same type for
    ///   same type), taken in the order of their ids, not of where they lie;
    /// - secret fields it cannot see are dealt anew among the components that hold them (the
    ///   values of each field taken in sorted order);
    /// - the state's own generator, which settles future shuffles and rolls, is reseeded
    ///   from `rng`;
    /// - in a `choose each`, the other players' hidden commitments are dropped (they choose
    ///   again);
    /// - and the options of the waiting choice are listed again.
    ///
    /// It assumes that the seat knows which components exist and which values the secret
    /// fields of each type take between them (the game's components and the values dealt);
    /// values held by the locals of an effect paused at a choice are kept as they are. Used
    /// by bots to sample what they do not know, and by tests to prove that views leak
    /// nothing.
    ///
    /// ```
    /// use rand::SeedableRng;
    /// let text = r#"
    ///     game "Hands"
    ///     players 2
    ///     component Card { rank: int }
    ///     zone deck: Card hidden
    ///     zone hand[Player]: Card owner
    ///     components Card in deck { "c{rank}" for r in 1..30 { rank = r } }
    ///     setup { shuffle deck  for p in players { deal 8 from deck to hand[p] } }
    ///     action pass() { end }
    ///     flow { turn seat(0) { choose { pass } } }
    /// "#;
    /// let game = rulebook::load("hands.rules", text).game.expect("valid rules");
    /// let config = rulebook::Config { players: 2, seed: 7, ..Default::default() };
    /// let st = game.start(&config).unwrap();
    ///
    /// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    /// let guess = game.determinize(&st, Some(0), &mut rng);
    /// // p1 sees exactly the same game in the sampled state ...
    /// assert_eq!(game.view(&guess, Some(0)), game.view(&st, Some(0)));
    /// // ... though the hidden cards (p2's hand, the deck) were dealt anew.
    /// let hand_p2 = game.zone_instance("hand[p2]").unwrap();
    /// assert_eq!(guess.zone(hand_p2).len(), 8);
    /// assert_ne!(guess.zone(hand_p2), st.zone(hand_p2));
    /// ```
    pub fn determinize(&self, st: &State, seat: Option<u8>, rng: &mut impl rand::Rng) -> State {
        let mut out = st.clone();
        self.determinize_into(st, seat, rng, &mut out);
        out
    }

    /// Whether every seat always sees everything: no zone hides its components from anyone
    /// and no field is secret, so [`Game::determinize`] changes nothing but the generator.
    /// A new kind of hidden thing must be counted here as in `determinize`.
    pub fn hides_nothing(&self) -> bool {
        self.zones
            .iter()
            .all(|z| z.visibility == Visibility::Public)
            && self
                .types
                .iter()
                .all(|t| t.fields.iter().all(|f| f.seen_by.is_none()))
            && self.vars.iter().all(|v| v.visibility == Visibility::Public)
    }

    /// The entries of each variable that `seat` cannot see: their values, sorted, dealt
    /// among them at random (per variable). Whether a variable only `setup` writes changed.
    fn deal_hidden_vars(
        &self,
        st: &State,
        seat: Option<u8>,
        rng: &mut impl rand::Rng,
        out: &mut State,
    ) -> bool {
        let mut setup_only = false;
        for (vid, v) in self.vars.enumerate() {
            if v.visibility == Visibility::Public {
                continue;
            }
            let slots: Vec<usize> = (v.base as usize..(v.base + v.count) as usize)
                .filter(|&slot| !super::var_visible(self, st, vid, slot, seat))
                .collect();
            let mut vals: Vec<crate::ir::Value> = slots.iter().map(|&slot| st.vars[slot]).collect();
            vals.sort_unstable();
            shuffle(&mut vals, rng);
            for (&slot, val) in slots.iter().zip(vals) {
                setup_only |= out.vars[slot] != val && self.program.frozen.contains(&vid);
                out.set_var(&self.program, vid, v.base, slot, val);
            }
        }
        setup_only
    }

    /// [`Game::determinize`] written into `out`, whose allocations are reused.
    pub fn determinize_into(
        &self,
        st: &State,
        seat: Option<u8>,
        rng: &mut impl rand::Rng,
        out: &mut State,
    ) {
        out.clone_from(st);
        for t in self.types.ids() {
            self.deal_hidden_components(st, t, seat, rng, out);
            self.deal_secret_fields(st, t, seat, rng, out);
        }
        // Hidden variables only `setup` writes, dealt again: the fingerprint of what setup
        // left (`State::frozen`, copied from `st`) is taken again, else the answers
        // remembered for `st`'s values would be served to this world's.
        if self.deal_hidden_vars(st, seat, rng, out) && out.frozen != 0 {
            out.freeze(self);
        }
        out.rng = rand::SeedableRng::from_seed(rng.gen());
        forget_commitments(self, out, seat);
        if out.block.is_some() {
            self.simul_determinize(out, seat, rng.gen());
            return;
        }
        self.relist_options(out);
    }

    /// The components of type `t` at places `seat` cannot see, in the order of their ids,
    /// shuffled among those places (zone instances in order, each bottom to top).
    fn deal_hidden_components(
        &self,
        st: &State,
        t: TypeId,
        seat: Option<u8>,
        rng: &mut impl rand::Rng,
        out: &mut State,
    ) {
        let hidden = |inst: InstId| {
            let zone = &self.zones[self.instances[inst].zone];
            zone.ty == t && !self.zone_open_to(st, inst, seat) && st.zones.len(inst) > 0
        };
        if !self.instances.ids().any(hidden) {
            return;
        }
        // Hidden positions holding components of type t: (zone instance, index).
        let mut lists: Vec<(InstId, Vec<CompId>)> = Vec::new();
        let mut places = Vec::new();
        for inst in self.instances.ids() {
            let zone = &self.zones[self.instances[inst].zone];
            if zone.ty != t {
                continue;
            }
            let open = self.zone_open_to(st, inst, seat);
            let items = st.zones.items(inst);
            let top_open = zone.visibility == Visibility::Top;
            for i in 0..items.len() {
                if !(open || top_open && i + 1 == items.len()) {
                    places.push((lists.len(), i));
                }
            }
            lists.push((inst, items));
        }
        if places.is_empty() {
            return;
        }
        let mut comps: Vec<CompId> = places.iter().map(|&(l, i)| lists[l].1[i]).collect();
        comps.sort_unstable();
        shuffle(&mut comps, rng);
        for (&(l, i), &c) in places.iter().zip(&comps) {
            lists[l].1[i] = c;
        }
        for (inst, items) in &lists {
            out.zones.set_items(*inst, items);
            out.wrote(&self.program.families, self.program.families.inst(*inst));
        }
    }

    /// Each secret field of type `t` that `seat` cannot see on some components: its values
    /// on those components, sorted, dealt among them at random.
    fn deal_secret_fields(
        &self,
        st: &State,
        t: TypeId,
        seat: Option<u8>,
        rng: &mut impl rand::Rng,
        out: &mut State,
    ) {
        for (fi, f) in self.types[t].fields.iter().enumerate() {
            if f.seen_by.is_none() {
                continue;
            }
            let holders: Vec<CompId> = self
                .comps
                .ids()
                .filter(|&c| {
                    self.comps[c].ty == t && !super::field_visible(self, st, c, fi as u16, seat)
                })
                .collect();
            let mut vals: Vec<crate::ir::Value> = holders
                .iter()
                .map(|&c| st.fields[self.field_slot(c, fi as u16)])
                .collect();
            vals.sort_unstable();
            shuffle(&mut vals, rng);
            for (&c, v) in holders.iter().zip(vals) {
                let slot = self.field_slot(c, fi as u16);
                out.set_field(&self.program, c, fi as u16, slot, v);
            }
        }
    }
}

/// A Fisher-Yates shuffle drawing from `rng`.
fn shuffle<T>(items: &mut [T], rng: &mut impl rand::Rng) {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.gen_range(0..=i));
    }
}

/// While a `choose each` waits, drops the commitments other seats than `seat` made: they
/// are hidden, so those seats choose again (a seat that takes no part stays out). Who must
/// act next does not change.
fn forget_commitments(g: &Game, st: &mut State, seat: Option<u8>) {
    let Some(choice) = g.waiting_choice(st) else {
        return;
    };
    if g.choices[choice].each.is_none() {
        return;
    }
    for (p, c) in st.commits.iter_mut().enumerate() {
        if seat != Some(p as u8) && c.is_some_and(|a| a != super::Action::SKIP) {
            *c = None;
        }
    }
}

impl Game {
    /// The state with nothing hidden, as canonical texts: every zone's components and every
    /// secret field, for tools and trusted clients (never for a player). Built like a
    /// spectator's [`View`] (`seat` is `None`), with every zone open.
    pub fn view_all(&self, st: &State) -> View {
        let mut open = st.clone();
        open.revealed.iter_mut().for_each(|r| *r = true);
        let mut view = self.view(&open, None);
        view.vars = self.view_vars(&open, None, true);
        let shown = self
            .instances
            .ids()
            .filter(|&inst| self.instances[inst].owner.is_none_or(|o| o < st.players));
        for (z, inst) in view.zones.iter_mut().zip(shown) {
            let items = open.zones.items(inst);
            z.visible = items
                .iter()
                .map(|&c| super::show_comp_for(self, &open, c, None))
                .collect();
            z.fields = items
                .iter()
                .map(|&c| self.hidden_name_fields(&open, c, None))
                .collect();
            z.open = true;
        }
        view
    }
}
