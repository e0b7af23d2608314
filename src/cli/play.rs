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
    let mut searching = searching_agents(cfg, seat, opponents)?;
    let mut m = Match::new(g, cfg.clone()).map_err(|e| super::report(g, e))?;
    // The other seats' decisions are told as this seat may read them (their hidden parts
    // hidden); `told` counts the decisions of the log told so far.
    let mut told = 0;
    // The random agent of every other seat and of chance, as before agents could be chosen.
    let mut agent = RandomAgent::new(crate::run::agent_seed(cfg.seed));
    let mut buf = Vec::new();
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    sayln!(
        "{} — you are p{} (type help for the commands)",
        g.name,
        seat + 1
    );
    // The view as last shown to the seat: after a decision only what changed since is drawn.
    let mut shown: Option<Vec<show::Block>> = None;
    // The length of the log before each of the seat's own decisions, for `undo`.
    let mut mine: Vec<usize> = Vec::new();
    'game: loop {
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
                let blocks = show::draw_blocks(g, &st, &view);
                match shown.as_deref().and_then(|old| show::changes(old, &blocks)) {
                    Some(c) if c.is_empty() => sayln!("\nnothing you can see has changed"),
                    Some(c) => sayln!("\nchanged:\n{c}"),
                    None => sayln!("\n{}", show::draw(g, &st, &view)),
                }
                shown = Some(blocks);
                g.legal(&st, &mut buf).map_err(|e| super::report(g, e))?;
                let list = || {
                    for (i, a) in buf.iter().enumerate() {
                        sayln!("  {:>3}) {}", i + 1, g.action_text(&st, a));
                    }
                };
                list();
                loop {
                    print!("your move (number, text, or help): ");
                    let _ = std::io::stdout().flush();
                    let Some(Ok(line)) = lines.next() else {
                        println!("\nend of input: leaving the game");
                        return Ok(());
                    };
                    let line = line.trim();
                    // A number, or a legal action's text, chooses (so that a command's word
                    // never hides an action of that name); then the commands.
                    let chosen = match line.parse::<usize>() {
                        Ok(n) if n >= 1 && n <= buf.len() => Some(buf[n - 1]),
                        Ok(_) => None,
                        Err(_) => g.parse_action(&st, line).ok().filter(|a| buf.contains(a)),
                    };
                    if let Some(a) = chosen {
                        mine.push(m.log().len());
                        m.apply(&a).map_err(|e| super::report(g, e))?;
                        told += 1;
                        break;
                    }
                    let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
                    match (word, rest.trim()) {
                        ("", _) => {}
                        ("help", "") => {
                            let example = buf.first().map(|a| g.action_text(&st, a));
                            say!("{}", help(example.as_deref().unwrap_or("")));
                        }
                        ("quit", "") => {
                            sayln!("leaving the game");
                            return Ok(());
                        }
                        ("board" | "show", "") => {
                            sayln!("\n{}", show::draw(g, &st, &view));
                            list();
                        }
                        ("undo", "") => match mine.pop() {
                            Some(n) => {
                                let back = m.log().len() - n;
                                while m.log().len() > n {
                                    m.undo().map_err(|e| super::report(g, e))?;
                                }
                                told = n;
                                shown = None;
                                sayln!("{}", took_back(back));
                                continue 'game;
                            }
                            None => sayln!("nothing to undo: you have made no decision yet"),
                        },
                        ("why", text) if !text.is_empty() => sayln!("{}", why(g, &m, seat, text)),
                        _ => sayln!(
                            "`{line}` is not one of the legal actions; choose again (type help)"
                        ),
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

/// A searching agent for each other seat whose opponent is not `random` (one spec for all,
/// or one per other seat in seat order), seeded as `simulate` seeds it; refuses a seat the
/// match does not have or a count of opponents that fits neither.
fn searching_agents(
    cfg: &Config,
    seat: u8,
    opponents: &[AgentSpec],
) -> miette::Result<Vec<Option<Box<dyn Agent + Send>>>> {
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
    Ok((0..cfg.players)
        .map(|p| {
            let k = (p as usize).saturating_sub(usize::from(p > seat));
            let spec = opponents.get(k).unwrap_or(&opponents[0]);
            (p != seat && !spec.is_random()).then(|| spec.build(crate::run::seat_seed(cfg.seed, p)))
        })
        .collect())
}

/// The answer to `why TEXT`: whether the action is legal now for `seat`, and if not why,
/// with the line of the rule that says so.
fn why(g: &Game, m: &Match, seat: u8, text: &str) -> String {
    match m.why_for(Some(seat), text) {
        Ok(w) if w.legal => format!("`{text}` is legal now"),
        Ok(w) => {
            let at = w.span.map_or(String::new(), |sp| {
                let (line, _) = g.source(sp).line_col(sp.start);
                format!(
                    " (line {line}: `{}`)",
                    crate::source::quote(g.source(sp).snippet(sp), 80)
                )
            });
            format!("`{text}` is not legal now: {}{at}", w.reason)
        }
        Err(e) => e.message().to_string(),
    }
}

/// What `undo` says after taking back `back` decisions (the seat's own and those after it).
fn took_back(back: usize) -> String {
    let after = match back {
        0 | 1 => String::new(),
        2 => " and the decision after it".to_string(),
        k => format!(" and the {} decisions after it", k - 1),
    };
    format!("took back your last decision{after}")
}

/// What `help` prints; `example` is the text of a legal action.
fn help(example: &str) -> String {
    format!(
        "\
choose a move by its number in the list, or by its text (`{example}`)
commands:
  help          this list
  board, show   the whole view again (after each decision only what changed is shown)
  undo          take back your last decision, and every decision made after it
  why ACTION    why an action is not legal now (`why {example}`)
  quit          leave the game (also at the end of input)
a legal action whose text is one of these words is played, not the command
"
    )
}
