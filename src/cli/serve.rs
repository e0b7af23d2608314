//! `rulebook serve FILE [--seat K]`: the line protocol of [`crate::server`] on stdin and
//! stdout. Every line read gets exactly one reply line, whatever it holds: invalid UTF-8,
//! blank lines and lines longer than [`MAX_LINE_BYTES`] too (the rest of a long line is
//! skipped, never stored).

use crate::server::protocol::{ChanceModeName, Reply, Request, MAX_LINE_BYTES};
use crate::server::Session;
use std::io::{BufRead, Write};
use std::path::PathBuf;

#[derive(clap::Args)]
pub(crate) struct ServeArgs {
    /// The rules file.
    file: PathBuf,
    /// Bind the client to one seat, counted from 0 as everywhere in the protocol: it sees
    /// and plays that seat only, undoes only its own last decision, and may not start or
    /// load a match, read the whole state or save. The match is started here, from the
    /// options below, before the first request.
    #[arg(long)]
    seat: Option<u8>,
    /// Start the match now with this many players (default: the fewest the game allows).
    #[arg(long)]
    players: Option<u8>,
    /// Start the match now with this seed (default 0).
    #[arg(long)]
    seed: Option<u64>,
    /// Start the match now with this variant.
    #[arg(long)]
    variant: Option<String>,
    /// Start the match now with chance settled by the seed or by decisions of the chance
    /// actor.
    #[arg(long, value_parser = ["seeded", "external"])]
    chance: Option<String>,
    /// Start by loading this save (instead of a new match).
    #[arg(long, conflicts_with_all = ["players", "seed", "variant", "chance"])]
    load: Option<PathBuf>,
    /// Threads a `suggest` searches on (root parallelism).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// The search a `suggest` runs: `mcts`, `mcts:N` or with settings (`mcts:2000:c=0.5`);
    /// playouts named in the request take the place of its budget.
    #[arg(long, default_value = "mcts")]
    agent: crate::agents::AgentSpec,
}

/// Runs `serve` from the command line. Returns the exit code.
pub(crate) fn run(args: &ServeArgs) -> miette::Result<i32> {
    let g = super::load_game(&args.file)?;
    let crate::agents::AgentSpec::Mcts(search) = args.agent.clone() else {
        return Err(miette::miette!(
            "serve: --agent must be an MCTS agent (mcts, mcts:N, mcts:N:c=..), not {}",
            args.agent
        ));
    };
    if let Some(k) = args.seat.filter(|&k| k >= g.max_players) {
        return Err(miette::miette!(
            "serve: --seat {k} is not a seat of this game: it takes at most {} players, seats \
             from 0 to {} (p1 to p{})",
            g.max_players,
            g.max_players.saturating_sub(1),
            g.max_players
        ));
    }
    let mut session = Session::new(&g, args.seat)
        .with_search(search)
        .with_threads(args.threads);
    let start = args.seat.is_some()
        || args.players.is_some()
        || args.seed.is_some()
        || args.variant.is_some()
        || args.chance.is_some()
        || args.load.is_some();
    if start {
        // The host's request, made by the command line for the client to come.
        let request = match &args.load {
            Some(path) => Request::Load {
                data: super::read(path)?,
            },
            None => Request::New {
                players: args.players,
                seed: args.seed,
                variant: args.variant.clone(),
                chance: args.chance.as_deref().map(|c| match c {
                    "external" => ChanceModeName::External,
                    _ => ChanceModeName::Seeded,
                }),
                set: None,
            },
        };
        if let Reply::Error { error } = session.run_as(None, request) {
            return Err(miette::miette!(
                "serve: cannot start the match: {}",
                error.message
            ));
        }
    }
    serve(
        &mut session,
        std::io::stdin().lock(),
        std::io::stdout().lock(),
    )
    .map_err(|e| miette::miette!("serve: {e}"))?;
    Ok(0)
}

/// What [`read_line`] found.
enum Line {
    /// A whole line (its end removed), at most [`MAX_LINE_BYTES`] long.
    Whole,
    /// A line longer than that: what was kept is to be ignored.
    TooLong,
    /// The end of the input.
    End,
}

/// Reads one line into `buf` (cleared first), keeping at most [`MAX_LINE_BYTES`] of it.
fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<Line> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(match (any, too_long) {
                (false, _) => Line::End,
                (true, true) => Line::TooLong,
                (true, false) => Line::Whole,
            });
        }
        any = true;
        let (part, used, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], i + 1, true),
            None => (chunk, chunk.len(), false),
        };
        if buf.len() + part.len() > MAX_LINE_BYTES {
            too_long = true;
            buf.clear();
        } else if !too_long {
            buf.extend_from_slice(part);
        }
        input.consume(used);
        if done {
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(if too_long { Line::TooLong } else { Line::Whole });
        }
    }
}

/// Answers every line of `input` on `out`, one reply line each, until the end of the input.
fn serve(
    session: &mut Session,
    mut input: impl BufRead,
    mut out: impl Write,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    loop {
        let reply = match read_line(&mut input, &mut buf)? {
            Line::End => return Ok(()),
            Line::TooLong => Session::too_long(),
            Line::Whole => session.handle(&buf),
        };
        writeln!(out, "{}", super::json_safe(&reply.to_string()))?;
        out.flush()?;
    }
}
