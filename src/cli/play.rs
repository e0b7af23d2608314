//! `rulebook play`: one human seat in the terminal, the other seats played by agents.

use super::show;
use crate::agents::{Agent, AgentSpec, RandomAgent};
use crate::engine::{Actor, Config, Match};
use crate::ir::Game;
use std::io::{BufRead, Write};

/// Plays one match: `seat` (from 0) in the terminal, the other seats by `opponents` (one for
/// all, or one per other seat in seat order), chance at random.
pub(crate) fn play(
    g: &Game,
    cfg: &Config,
    seat: u8,
    opponents: &[AgentSpec],
) -> miette::Result<()> {
    if seat >= cfg.players {
        return Err(miette::miette!(
            "there is no seat {} with {} players",
            seat + 1,
            cfg.players
        ));
    }
    let others = cfg.players as usize - 1;
    if opponents.len() != 1 && opponents.len() != others {
        return Err(miette::miette!(
            "{} opponents for {others} other seats: give one agent for all, or one per other seat",
            opponents.len()
        ));
    }
    let mut m = Match::new(g, cfg.clone()).map_err(|e| super::report(g, e))?;
    // The other seats' decisions are told as this seat may read them (their hidden parts
    // hidden); `told` counts the decisions of the log told so far.
    let mut told = 0;
    // The random agent of every other seat and of chance, as before agents could be chosen;
    // a searching agent per seat, seeded as `simulate` seeds it.
    let mut agent = RandomAgent::new(crate::run::agent_seed(cfg.seed));
    let mut searching: Vec<Option<Box<dyn Agent + Send>>> = (0..cfg.players)
        .map(|p| {
            let k = (p as usize).saturating_sub(usize::from(p > seat));
            let spec = opponents.get(k).unwrap_or(&opponents[0]);
            (p != seat && !spec.is_random()).then(|| spec.build(crate::run::seat_seed(cfg.seed, p)))
        })
        .collect();
    let mut buf = Vec::new();
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    sayln!("{} — you are p{}", g.name, seat + 1);
    loop {
        for line in m
            .log_seen(Some(seat), told)
            .map_err(|e| super::report(g, e))?
        {
            if line.who != crate::ir::player_name(seat) {
                sayln!("{} plays {}", line.who, line.text);
            }
            told += 1;
        }
        let st = m.state().clone();
        match g.actor(&st) {
            Actor::Nobody => break,
            Actor::Player(p) if p == seat => {
                let view = g.view(&st, Some(seat));
                sayln!("\n{}", show::draw(g, &st, &view));
                g.legal(&st, &mut buf).map_err(|e| super::report(g, e))?;
                for (i, a) in buf.iter().enumerate() {
                    sayln!("  {:>3}) {}", i + 1, g.action_text(&st, a));
                }
                loop {
                    print!("your move (number or text): ");
                    let _ = std::io::stdout().flush();
                    let Some(Ok(line)) = lines.next() else {
                        println!("\nend of input: leaving the game");
                        return Ok(());
                    };
                    let line = line.trim();
                    let chosen = match line.parse::<usize>() {
                        Ok(n) if n >= 1 && n <= buf.len() => Some(buf[n - 1]),
                        Ok(_) => None,
                        Err(_) => g.parse_action(&st, line).ok(),
                    };
                    match chosen {
                        Some(a) => {
                            m.apply(&a).map_err(|e| super::report(g, e))?;
                            told += 1;
                            break;
                        }
                        None => sayln!("`{line}` is not one of the legal actions; choose again"),
                    }
                }
            }
            actor => {
                g.legal(&st, &mut buf).map_err(|e| super::report(g, e))?;
                let searcher = match actor {
                    Actor::Player(p) => searching.get_mut(p as usize).and_then(|a| a.as_mut()),
                    _ => None,
                };
                let a = match searcher {
                    Some(s) => s.choose(g, &st, &buf),
                    None => agent.choose(g, &st, &buf),
                }
                .ok_or_else(|| miette::miette!("no legal action"))?;
                m.apply(&a).map_err(|e| super::report(g, e))?;
            }
        }
    }
    let st = m.state();
    let view = g.view(st, Some(seat));
    sayln!("\n{}", show::draw(g, st, &view));
    say!("{}", show::outcome(st.outcome().expect("over")));
    Ok(())
}
