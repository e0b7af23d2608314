//! `rulebook play`: one human seat in the terminal, the other seats random.

use super::show;
use crate::agents::{Agent, RandomAgent};
use crate::engine::{Actor, Config};
use crate::ir::Game;
use std::io::{BufRead, Write};

/// Plays one match: `seat` (from 0) in the terminal, the other seats and chance random.
pub(crate) fn play(g: &Game, cfg: &Config, seat: u8) -> miette::Result<()> {
    if seat >= cfg.players {
        return Err(miette::miette!(
            "there is no seat {} with {} players",
            seat + 1,
            cfg.players
        ));
    }
    let mut st = g.start(cfg).map_err(|e| super::report(g, e))?;
    let mut agent = RandomAgent::new(crate::run::agent_seed(cfg.seed));
    let mut buf = Vec::new();
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    sayln!("{} — you are p{}", g.name, seat + 1);
    loop {
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
                            g.apply(&mut st, &a).map_err(|e| super::report(g, e))?;
                            break;
                        }
                        None => sayln!("`{line}` is not one of the legal actions; choose again"),
                    }
                }
            }
            actor => {
                g.legal(&st, &mut buf).map_err(|e| super::report(g, e))?;
                let a = agent
                    .choose(g, &st, &buf)
                    .ok_or_else(|| miette::miette!("no legal action"))?;
                if let Actor::Player(p) = actor {
                    sayln!("p{} plays {}", p + 1, g.action_text(&st, &a));
                }
                g.apply_unchecked(&mut st, &a)
                    .map_err(|e| super::report(g, e))?;
            }
        }
    }
    let view = g.view(&st, Some(seat));
    sayln!("\n{}", show::draw(g, &st, &view));
    say!("{}", show::outcome(st.outcome().expect("over")));
    Ok(())
}
