//! `rulebook fmt`: files in the canonical layout, in place, or checked, or stdin to stdout.

use super::{read, render, MAX_FILE_BYTES};
use crate::fmt::{self, FmtError, Kind};
use clap::Args;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub(crate) struct FmtArgs {
    /// Rules and scenario files (`.scenarios`) to format in place; `-` reads stdin and writes
    /// the formatted text to stdout. In a Markdown file (`.md`), the ```rules blocks are
    /// formatted.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Change nothing: list the files that would change, and exit 1 if any would.
    #[arg(long)]
    check: bool,
}

/// Formats the files; returns the exit code: 1 when a file does not parse, or, with
/// `--check`, when one would change.
pub(crate) fn run(args: &FmtArgs) -> miette::Result<i32> {
    let mut failed = false;
    for path in &args.files {
        let stdin = path == Path::new("-");
        let (name, text) = if stdin {
            ("<stdin>".to_string(), read_stdin()?)
        } else {
            match read(path) {
                Ok(text) => (path.display().to_string(), text),
                Err(e) => {
                    eprintln!("{e}");
                    failed = true;
                    continue;
                }
            }
        };
        let kind = if stdin {
            Kind::of_text(&text)
        } else {
            Kind::of_name(&name)
        };
        let markdown = !stdin && path.extension().is_some_and(|x| x == "md");
        let formatted = if markdown {
            fmt::format_markdown(&name, &text)
        } else {
            fmt::format(&name, &text, kind)
        };
        let out = match formatted {
            Ok(out) => out,
            Err(FmtError::Syntax(e)) => {
                eprint!("{}", render(e.as_ref()));
                eprintln!("{name}: not formatted: it does not parse");
                failed = true;
                continue;
            }
            Err(e) => {
                eprintln!("{e}");
                failed = true;
                continue;
            }
        };
        if args.check {
            if out != text {
                println!("{name}");
                failed = true;
            }
        } else if stdin {
            std::io::stdout()
                .write_all(out.as_bytes())
                .map_err(|e| miette::miette!("cannot write the formatted text: {e}"))?;
        } else if out != text {
            std::fs::write(path, out).map_err(|e| miette::miette!("cannot write {name}: {e}"))?;
        }
    }
    Ok(i32::from(failed))
}

fn read_stdin() -> miette::Result<String> {
    let mut text = String::new();
    std::io::stdin()
        .take(MAX_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| miette::miette!("cannot read stdin: {e}"))?;
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(miette::miette!(
            "cannot read stdin: larger than {} MiB",
            MAX_FILE_BYTES >> 20
        ));
    }
    Ok(text)
}
