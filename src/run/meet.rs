//! Where the shards of a `tune` search meet: every shard runs the same search, plays its own
//! share of each batch's games ([`super::Shard`]), writes that share's summary to a directory
//! all shards can read (a shared file system), and waits until every share of the batch is
//! there; each then adds them up ([`super::compare::merge`], exact) and so takes the same next
//! step, and all end with the same result.
//!
//! A share is written to a temporary name and renamed, so a reader never sees half a file.
//! Each file carries the search's key (the rules, the options and the seed), so a file of
//! another search left in the directory is refused, not added.

use super::compare::merge;
use super::summary::Shard;
use super::Summary;
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};

/// The shards of a search and where they meet.
#[derive(Clone, Copy, Debug)]
pub struct Meeting<'a> {
    /// This process's shard.
    pub shard: Shard,
    /// The directory every shard reads and writes.
    pub dir: &'a Path,
    /// How long a shard waits for the others' share of a batch before giving up.
    pub wait: Duration,
}

impl Meeting<'_> {
    /// The file of shard `index`'s share of batch `batch`.
    fn file(&self, batch: u64, index: u64) -> std::path::PathBuf {
        self.dir.join(format!(
            "tune-batch{batch:05}-shard{index}-of{}.json",
            self.shard.count
        ))
    }

    /// Writes this shard's summary of batch `batch`, waits for every other shard's, and
    /// returns the summary of the whole batch. `key` names the search.
    pub fn exchange(&self, key: u64, batch: u64, mine: Summary) -> Result<Summary, String> {
        let own = self.file(batch, self.shard.index);
        let text =
            json!({ "search": format!("{key:016x}"), "batch": batch, "summary": mine.to_json() })
                .to_string();
        let tmp = own.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, &own))
            .map_err(|e| format!("tune: cannot write {}: {e}", own.display()))?;
        let start = Instant::now();
        let mut shares = Vec::new();
        for index in 0..self.shard.count {
            let path = self.file(batch, index);
            let mut pause = Duration::from_millis(20);
            let text = loop {
                match std::fs::read_to_string(&path) {
                    Ok(t) => break t,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        if start.elapsed() >= self.wait {
                            return Err(format!(
                                "tune: shard {index}/{} did not write {} within {} s",
                                self.shard.count,
                                path.display(),
                                self.wait.as_secs()
                            ));
                        }
                        std::thread::sleep(pause);
                        pause = (pause * 2).min(Duration::from_secs(1));
                    }
                    Err(e) => return Err(format!("tune: cannot read {}: {e}", path.display())),
                }
            };
            shares.push(vec![read_share(&text, key, batch)
                .map_err(|e| format!("tune: {}: {e}", path.display()))?]);
        }
        let mut all = merge(shares)?;
        all.pop()
            .ok_or_else(|| "tune: no summary in the shares".into())
    }
}

/// The summary of one share, checked to be of this search and batch.
fn read_share(text: &str, key: u64, batch: u64) -> Result<Summary, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    if v.get("search").and_then(Value::as_str) != Some(format!("{key:016x}").as_str()) {
        return Err(
            "written by another search (another rules file, options or seed): \
                    give each search a directory of its own"
                .into(),
        );
    }
    if v.get("batch").and_then(Value::as_u64) != Some(batch) {
        return Err(format!("not batch {batch}"));
    }
    Summary::from_json(v.get("summary").ok_or("no summary")?)
}
