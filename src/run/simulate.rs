//! `simulate`: many seeded games, played by random players or by the agents given,
//! summarised in a [`Summary`].

use super::summary::{ErrorStats, Place, Shard, Summary};
use super::{agent_seed, game_seed, in_threads, playout_within, seat_seed, Seats};
use crate::agents::{Agent, AgentSpec, RandomAgent};
use crate::engine::{Action, Actor, Config, RunError, State};
use crate::ir::{ActionId, Arm, Game};

/// How to run a simulation: how many games, on how many threads, which share of them.
#[derive(Clone, Copy)]
pub struct Options<'a> {
    /// Games of the whole run (games `0..games`).
    pub games: u64,
    /// Threads to use; the summary is the same for any number.
    pub threads: usize,
    /// Play only this shard's games (`i % N == I`); the seeds of the games do not change.
    pub shard: Option<Shard>,
    /// Called with 1 as each game finishes (from any thread), to show progress.
    pub progress: Option<&'a (dyn Fn(u64) + Sync)>,
    /// The agent of each seat, in seat order; one for every seat; or none: random players.
    /// [`simulate_agents`] checks the number.
    pub agents: &'a [AgentSpec],
    /// A harness limit: a game whose players have taken this many decisions without reaching
    /// an end is stopped and counted as unfinished (not an error).
    pub max_turns: Option<u64>,
    /// Read the lead (the `heuristic`, else the `score`) before every player decision for
    /// the measures of play ([`super::play`]): costly in games whose formula walks the board
    /// (a card game's 3,000 games: 2.3 s of CPU instead of 1.9 s), so asked for (`simulate --lead`).
    pub lead: bool,
}

impl Options<'_> {
    /// `games` games on one thread, all of them, no progress shown.
    pub fn new(games: u64) -> Self {
        Options {
            games,
            threads: 1,
            shard: None,
            progress: None,
            agents: &[],
            max_turns: None,
            lead: false,
        }
    }
}

/// The options of a game's choices, each with the slot its counts go to in
/// [`Summary::actions`]: declared actions offered in some `choose` (in declaration order),
/// then the inline options of the choices (one slot per distinct name).
pub struct ActionSlots {
    of_arm: Vec<Vec<u32>>,
    /// The name of each slot.
    pub names: Vec<String>,
}

impl ActionSlots {
    /// The slots of a game.
    pub fn of(g: &Game) -> ActionSlots {
        let mut names: Vec<String> = g
            .actions
            .iter()
            .filter(|a| a.offered)
            .map(|a| a.name.clone())
            .collect();
        let mut slot_of_action = vec![u32::MAX; g.actions.len()];
        let mut k = 0;
        for (i, a) in g.actions.iter().enumerate() {
            if a.offered {
                slot_of_action[i] = k;
                k += 1;
            }
        }
        let mut of_arm = Vec::with_capacity(g.choices.len());
        for c in g.choices.iter() {
            let mut arms = Vec::with_capacity(c.arms.len());
            for arm in &c.arms {
                let slot = match arm {
                    Arm::Action(ai) => slot_of_action[ai.0 as usize],
                    Arm::Inline { label, binds, .. } => {
                        let name = match label {
                            Some(l) => l.clone(),
                            None => format!(
                                "choose {}",
                                binds
                                    .iter()
                                    .map(|b| b.name.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        };
                        match names.iter().position(|n| *n == name) {
                            Some(p) => p as u32,
                            None => {
                                names.push(name);
                                names.len() as u32 - 1
                            }
                        }
                    }
                };
                arms.push(slot);
            }
            of_arm.push(arms);
        }
        ActionSlots { of_arm, names }
    }

    fn slot(&self, choice: Option<usize>, a: &Action) -> Option<usize> {
        let s = *self.of_arm.get(choice?)?.get(a.arm as usize)?;
        (s != u32::MAX).then_some(s as usize)
    }
}

/// The action declaration an action of the current choice comes from (`None` for an inline
/// option of a `choose`).
pub fn action_decl(g: &Game, st: &State, a: &Action) -> Option<ActionId> {
    let choice = g.waiting_choice(st)?;
    match g.choices[choice].arms.get(a.arm as usize)? {
        Arm::Action(ai) => Some(*ai),
        Arm::Inline { .. } => None,
    }
}

/// What one game did, counted as it is played (kept between games, so that counting
/// allocates nothing per decision).
struct Tally {
    legal: Vec<bool>,
    chosen: Vec<u64>,
    seats: Vec<u64>,
    first: Option<u8>,
    play: super::play::PlayTrace,
    /// [`Options::lead`].
    lead: bool,
}

impl Tally {
    fn new(seats: usize, slots: usize) -> Tally {
        Tally {
            legal: vec![false; slots],
            chosen: vec![0; slots],
            seats: vec![0; seats],
            first: None,
            play: Default::default(),
            lead: false,
        }
    }

    fn reset(&mut self) {
        self.legal.fill(false);
        self.chosen.fill(0);
        self.seats.fill(0);
        self.first = None;
    }
}

/// An agent that counts, for the summary, what another one is offered and chooses.
struct Recording<'a, A: Agent> {
    agent: A,
    tally: &'a mut Tally,
    slots: &'a ActionSlots,
}

impl<A: Agent> Agent for Recording<'_, A> {
    fn choose(&mut self, g: &Game, st: &State, legal: &[Action]) -> Option<Action> {
        let a = self.agent.choose(g, st, legal)?;
        if let Actor::Player(p) = g.actor(st) {
            let choice = g.waiting_choice(st).map(|c| c.0 as usize);
            for l in legal {
                if let Some(k) = self.slots.slot(choice, l) {
                    self.tally.legal[k] = true;
                }
            }
            if let Some(k) = self.slots.slot(choice, &a) {
                self.tally.chosen[k] += 1;
            }
            if let Some(n) = self.tally.seats.get_mut(p as usize) {
                *n += 1;
            }
            self.tally.play.decision(g, st, legal.len());
            self.tally.first.get_or_insert(p);
        }
        Some(a)
    }
}

/// Each seat's own agent, and a random one for chance (when chance is external): the same
/// choices as [`Seats::Each`], as one agent that [`Recording`] can wrap.
struct PerSeat {
    seats: Vec<Box<dyn Agent + Send>>,
    chance: RandomAgent,
}

impl Agent for PerSeat {
    fn choose(&mut self, g: &Game, st: &State, legal: &[Action]) -> Option<Action> {
        match g.actor(st) {
            Actor::Player(p) => self.seats.get_mut(p as usize)?.choose(g, st, legal),
            _ => self.chance.choose(g, st, legal),
        }
    }
}

/// The agent of each of `players` seats: `agents` one per seat, or one for every seat, or
/// random players when none is given. An error when the number fits neither.
pub fn seat_agents(agents: &[AgentSpec], players: u8) -> Result<Vec<AgentSpec>, RunError> {
    let n = players as usize;
    match agents.len() {
        0 => Ok(vec![AgentSpec::Random; n]),
        1 => Ok(vec![agents[0].clone(); n]),
        k if k == n => Ok(agents.to_vec()),
        k => Err(RunError::config(format!(
            "{k} agents for {n} players: give one agent for every seat, or one per seat"
        ))),
    }
}

/// A run error as the summary keeps it: code, message, place.
fn error_stats(
    g: &Game,
    code: &str,
    message: String,
    span: Option<crate::source::Span>,
    game: u64,
    seed: u64,
) -> ErrorStats {
    let place = span.map(|sp| {
        let src = g.source(sp);
        let (line, column) = src.line_col(sp.start);
        Place {
            file: src.name.clone(),
            line,
            column,
            text: src.text.lines().nth(line - 1).unwrap_or("").to_string(),
        }
    });
    ErrorStats {
        code: code.to_string(),
        message,
        place,
        count: 1,
        first_game: game,
        seed,
    }
}

/// Plays game `i` of the run into `s`: seed [`game_seed`]`(cfg.seed, i)`. When every seat is
/// random, one [`RandomAgent`] seeded with [`agent_seed`] of it plays every seat; otherwise
/// each seat gets its agent seeded with [`seat_seed`], and chance (external only) a random
/// agent.
#[allow(clippy::too_many_arguments)]
fn run_one(
    g: &Game,
    cfg: &Config,
    i: u64,
    agents: &[AgentSpec],
    max_turns: u64,
    buf: &mut Vec<Action>,
    spare: &mut Option<State>,
    tally: &mut Tally,
    slots: &ActionSlots,
    s: &mut Summary,
) {
    let seed = game_seed(cfg.seed, i);
    let c = Config {
        seed,
        ..cfg.clone()
    };
    tally.reset();
    let lead = tally.lead;
    tally.play.reset(g, cfg.players, lead);
    // The match is played in the thread's spare state, started into the room of the last.
    let mut play = |rec: &mut dyn Agent, buf: &mut Vec<Action>| -> Result<u64, RunError> {
        let st = match &mut *spare {
            Some(st) => {
                g.start_into(&c, st)?;
                st
            }
            None => spare.insert(g.start(&c)?),
        };
        let p = playout_within(g, st, &mut Seats::One(rec), buf, max_turns, |_, _| {})?;
        Ok(p.turns)
    };
    let result: Result<u64, RunError> = if agents.iter().all(AgentSpec::is_random) {
        let mut rec = Recording {
            agent: RandomAgent::new(agent_seed(seed)),
            tally: &mut *tally,
            slots,
        };
        play(&mut rec, buf)
    } else {
        let mut rec = Recording {
            agent: PerSeat {
                seats: agents
                    .iter()
                    .enumerate()
                    .map(|(p, a)| a.build(seat_seed(seed, p as u8)))
                    .collect(),
                chance: RandomAgent::new(agent_seed(seed)),
            },
            tally: &mut *tally,
            slots,
        };
        play(&mut rec, buf)
    };
    s.games += 1;
    for (a, (legal, chosen)) in s
        .actions
        .iter_mut()
        .zip(tally.legal.iter().zip(&tally.chosen))
    {
        a.legal_games += u64::from(*legal);
        a.chosen += chosen;
    }
    let (turns, st) = match (result, spare.as_ref()) {
        (Ok(turns), Some(st)) => (turns, st),
        (Ok(_), None) => return,
        (Err(e), _) => {
            let message = e.to_string();
            // One game more: the counts of one process stay far below `u64::MAX`.
            let _ = s.add_error(error_stats(g, e.code(), message, e.span(), i, seed));
            return;
        }
    };
    let Some(o) = st.outcome() else {
        if turns >= max_turns {
            s.unfinished += 1;
            return;
        }
        let message = "the game stopped without an outcome".to_string();
        let _ = s.add_error(error_stats(g, "no_outcome", message, None, i, seed));
        return;
    };
    s.completed += 1;
    *s.lengths.entry(turns).or_default() += 1;
    for (p, sc) in o.scores.iter().enumerate() {
        if let Some(h) = s.scores.get_mut(p) {
            *h.entry(*sc).or_default() += 1;
        }
    }
    for w in &o.winners {
        if let Some(n) = s.wins.get_mut(*w as usize) {
            *n += 1;
        }
    }
    if o.winners.is_empty() {
        s.draws += 1;
    }
    if o.scores.iter().all(|&x| x == 0) {
        s.all_zero += 1;
    }
    tally.play.finish(&o.winners, &mut s.play);
    for (d, n) in s.decisions.iter_mut().zip(&tally.seats) {
        *d += n;
    }
    if let Some(f) = tally.first {
        let f = f as usize;
        if f < s.first_moves.len() {
            s.first_moves[f] += 1;
            if o.winners.contains(&(f as u8)) {
                s.first_mover_wins[f] += 1;
            }
        }
    }
}

/// Plays `games` random games on one thread and summarises them. The same seed gives the
/// same summary: game `i` always gets the same seed.
pub fn simulate(g: &Game, cfg: &Config, games: u64) -> Summary {
    simulate_with(g, cfg, &Options::new(games))
}

/// [`simulate_with`], after checking that the agents of `opts` fit the players: one per
/// seat, one for every seat, or none.
pub fn simulate_agents(g: &Game, cfg: &Config, opts: &Options) -> Result<Summary, RunError> {
    let agents = seat_agents(opts.agents, cfg.players)?;
    Ok(simulate_with(
        g,
        cfg,
        &Options {
            agents: &agents,
            ..*opts
        },
    ))
}

/// Plays the games of `opts` and summarises them. The summary is the same whatever the number
/// of threads (each thread counts its own games; counts add up in any order), and the
/// summaries of the shards `0/N` .. `N-1/N`, merged, are the summary of the whole run.
pub fn simulate_with(g: &Game, cfg: &Config, opts: &Options) -> Summary {
    let n = cfg.players as usize;
    let slots = ActionSlots::of(g);
    let agents: Vec<AgentSpec> = (0..n)
        .map(|p| {
            opts.agents
                .get(p)
                .or(opts.agents.first())
                .cloned()
                .unwrap_or(AgentSpec::Random)
        })
        .collect();
    let max_turns = opts.max_turns.unwrap_or(u64::MAX);
    let empty = || {
        Summary::new(
            &g.name,
            cfg.variant.clone(),
            cfg.players,
            cfg.seed,
            agents.iter().map(|a| a.to_string()).collect(),
            &slots.names,
        )
    };
    let shard = opts.shard.unwrap_or(Shard { index: 0, count: 1 });
    let mine = shard.games_of(opts.games);
    let threads = opts.threads.max(1);
    let parts = in_threads(threads, |t| {
        let mut s = empty();
        let mut buf = Vec::new();
        let mut spare = None;
        let mut tally = Tally::new(n, slots.names.len());
        tally.lead = opts.lead;
        let mut j = t as u64;
        while j < mine {
            let i = shard.index + j * shard.count;
            run_one(
                g, cfg, i, &agents, max_turns, &mut buf, &mut spare, &mut tally, &slots, &mut s,
            );
            if let Some(p) = opts.progress {
                p(1);
            }
            j += threads as u64;
        }
        s
    });
    let mut total = empty();
    total.shard = opts.shard.map(|s| (s, opts.games));
    for (t, part) in parts.into_iter().enumerate() {
        match part {
            // The games of one process: their counts stay far below `u64::MAX`.
            Some(p) => {
                let _ = total.merge(p);
            }
            // The games of a thread that panicked count as errors.
            None => {
                let count = (t as u64..mine).step_by(threads).count() as u64;
                if count > 0 {
                    let i = shard.index + t as u64 * shard.count;
                    let message = "a simulation thread panicked".to_string();
                    let mut e = error_stats(g, "panic", message, None, i, game_seed(cfg.seed, i));
                    e.count = count;
                    total.games += count;
                    let _ = total.add_error(e);
                }
            }
        }
    }
    total
}
