//! `rulebook serve FILE [--seat K]`: the line protocol of [`crate::server`] on stdin and
//! stdout. Every line read gets exactly one reply line, whatever it holds: invalid UTF-8,
//! blank lines and lines longer than [`MAX_LINE_BYTES`] too (the rest of a long line is
//! skipped, never stored).

use crate::server::protocol::MAX_LINE_BYTES;
use crate::server::Session;
use std::io::{BufRead, Write};
use std::path::PathBuf;

#[derive(clap::Args)]
pub(crate) struct ServeArgs {
    /// The rules file.
    file: PathBuf,
    /// Bind the client to one seat, counted from 0 as everywhere in the protocol: it sees
    /// and plays that seat only, and may not read the whole state, save or undo.
    #[arg(long)]
    seat: Option<u8>,
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
    let mut session = Session::new(&g, args.seat)
        .with_search(search)
        .with_threads(args.threads);
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
