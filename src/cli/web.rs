//! `rulebook web FILE [--port P]`: serves the page of [`crate::web`] on 127.0.0.1 and watches
//! the rules file (its modification time and size, looked at every few hundred milliseconds;
//! no file-watching crate is needed for one file).

use crate::web::{http, RulesSource};
use std::path::PathBuf;
use std::time::SystemTime;

#[derive(clap::Args)]
pub(crate) struct WebArgs {
    /// The rules file; the page follows its changes.
    file: PathBuf,
    /// The port on 127.0.0.1 (0: any free port; the address is printed).
    #[arg(long, default_value_t = 8080)]
    port: u16,
}

/// The rules file, read again whenever its modification time or size changes.
struct FileSource {
    path: PathBuf,
    seen: Option<(Option<SystemTime>, u64)>,
}

impl RulesSource for FileSource {
    fn name(&self) -> String {
        self.path.display().to_string()
    }

    fn changed(&mut self) -> Option<Result<String, String>> {
        let stamp = std::fs::metadata(&self.path)
            .ok()
            .map(|m| (m.modified().ok(), m.len()));
        if self.seen.is_some() && stamp == self.seen {
            return None;
        }
        self.seen = stamp;
        Some(super::read(&self.path).map_err(|e| e.to_string()))
    }
}

/// Runs `web` from the command line. Returns the exit code.
pub(crate) fn run(args: &WebArgs) -> miette::Result<i32> {
    super::read(&args.file)?;
    let (listener, addr) = http::bind(&format!("127.0.0.1:{}", args.port))
        .map_err(|e| miette::miette!("cannot listen on 127.0.0.1:{}: {e}", args.port))?;
    let gate = http::Gate::new(addr.port()).map_err(|e| miette::miette!("web: {e}"))?;
    println!("rulebook web: http://{addr}/ (Ctrl-C stops it)");
    let source = FileSource {
        path: args.file.clone(),
        seen: None,
    };
    http::serve(listener, Box::new(source), gate).map_err(|e| miette::miette!("web: {e}"))?;
    Ok(0)
}
