//! The summary of a simulation run. It holds raw counts only (histograms, sums, per-seat and
//! per-action counts, errors grouped by kind and place), which add up exactly across threads,
//! shards and machines; every figure shown (means, rates and their intervals, never-legal
//! actions) is derived from them when asked. Its JSON holds both, so that `rulebook merge`
//! can read the counts back and print exactly what one machine would have printed.

use super::stats::{self, Moments, Rate};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// `--shard I/N`: the games `i` with `i % N == I`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// `I`, from 0.
    pub index: u64,
    /// `N`, at least 1.
    pub count: u64,
}

impl Shard {
    /// Reads `I/N` (`0 <= I < N`).
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("a shard is I/N with 0 <= I < N (such as 0/4), not `{text}`");
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let index: u64 = i.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// Whether game `i` is this shard's.
    pub fn has(&self, i: u64) -> bool {
        i % self.count == self.index
    }

    /// How many of games `0..games` are this shard's.
    pub fn games_of(&self, games: u64) -> u64 {
        if games <= self.index {
            0
        } else {
            (games - self.index).div_ceil(self.count)
        }
    }
}

/// How often one option of the game's choices (a declared action, or an option written in a
/// `choose`) was legal and chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionStats {
    /// The action's name, the label of an inline option, or `choose x` for the value form.
    pub name: String,
    /// Games in which it was legal at least once.
    pub legal_games: u64,
    /// Times a player chose it.
    pub chosen: u64,
}

/// A place in a source file, as shown with an error.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Place {
    /// The file's name.
    pub file: String,
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1, in characters.
    pub column: usize,
    /// The text of that line.
    pub text: String,
}

/// The games that stopped with one kind of error at one place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorStats {
    /// The error's stable code (`rule`, `limit`, ...; `panic` for a crashed thread).
    pub code: String,
    /// The message of the first such game.
    pub message: String,
    /// Where in the rules it happened, when the error says.
    pub place: Option<Place>,
    /// Games that stopped so.
    pub count: u64,
    /// The first of them (in game order) and its seed, to replay it.
    pub first_game: u64,
    /// The seed of that game.
    pub seed: u64,
}

/// The figures of a simulation run (or a shard of one), as raw counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// The game's name.
    pub game: String,
    /// The variant played (`None`: the base rules).
    pub variant: Option<String>,
    /// Number of players.
    pub players: u8,
    /// The seed of the run.
    pub seed: u64,
    /// Who played each seat (a label per seat, such as `random`).
    pub agents: Vec<String>,
    /// The shard this summary covers and the games of the whole run; `None`: all of them.
    pub shard: Option<(Shard, u64)>,
    /// Games played.
    pub games: u64,
    /// Games that reached an outcome.
    pub completed: u64,
    /// Games stopped by a run error (a rule failed, no legal action, or no end within
    /// [`super::MAX_DECISIONS`] decisions).
    pub errors: u64,
    /// Games stopped, without an error, when they reached the harness's `--max-turns` before
    /// their end (neither completed nor errors).
    pub unfinished: u64,
    /// Completed games with no winner (draws, and games everybody lost).
    pub draws: u64,
    /// Completed games in which every seat scored 0.
    pub all_zero: u64,
    /// Measures of play over the completed games ([`super::play`]).
    pub play: super::play::PlayStats,
    /// Completed games by length (player decisions; chance's are not counted): length to
    /// number of games.
    pub lengths: BTreeMap<u64, u64>,
    /// Per seat: the completed games that seat won (a shared win counts for each winner).
    pub wins: Vec<u64>,
    /// Per seat: final score to the number of completed games ending with it.
    pub scores: Vec<BTreeMap<i64, u64>>,
    /// Per seat: decisions taken in completed games.
    pub decisions: Vec<u64>,
    /// Per seat: completed games in which that seat took the first player decision.
    pub first_moves: Vec<u64>,
    /// Per seat: of those, the games it won.
    pub first_mover_wins: Vec<u64>,
    /// Every option of the game's choices, declared actions first (in declaration order),
    /// then inline options.
    pub actions: Vec<ActionStats>,
    /// Errors grouped by code and place, in order of their first game.
    pub error_list: Vec<ErrorStats>,
}

impl Summary {
    /// An empty summary of a run.
    pub fn new(
        game: &str,
        variant: Option<String>,
        players: u8,
        seed: u64,
        agents: Vec<String>,
        actions: &[String],
    ) -> Summary {
        let n = players as usize;
        Summary {
            game: game.to_string(),
            variant,
            players,
            seed,
            agents,
            wins: vec![0; n],
            scores: vec![BTreeMap::new(); n],
            decisions: vec![0; n],
            first_moves: vec![0; n],
            first_mover_wins: vec![0; n],
            actions: actions
                .iter()
                .map(|name| ActionStats {
                    name: name.clone(),
                    legal_games: 0,
                    chosen: 0,
                })
                .collect(),
            ..Default::default()
        }
    }

    /// Records games stopped by an error (`e.count` of them); refused, the summary unchanged,
    /// when a count would pass `u64::MAX` (a corrupt or edited shard).
    pub fn add_error(&mut self, e: ErrorStats) -> Result<(), String> {
        let errors = sum(self.errors, e.count, "errors")?;
        match self
            .error_list
            .iter_mut()
            .find(|x| x.code == e.code && x.place == e.place)
        {
            Some(x) => {
                x.count = sum(x.count, e.count, "error_list.count")?;
                if e.first_game < x.first_game {
                    x.first_game = e.first_game;
                    x.seed = e.seed;
                    x.message = e.message;
                }
            }
            None => self.error_list.push(e),
        }
        self.errors = errors;
        self.error_list
            .sort_by(|a, b| (a.first_game, &a.code).cmp(&(b.first_game, &b.code)));
        Ok(())
    }

    /// Adds the counts of another summary of the same run (another thread's games, another
    /// shard). The result does not depend on the order of the additions. Refused, the summary
    /// unchanged, when a sum would pass `u64::MAX`: the error names the count (as the JSON
    /// names it).
    pub fn merge(&mut self, o: Summary) -> Result<(), String> {
        let mut s = self.clone();
        s.add_counts(o)?;
        *self = s;
        Ok(())
    }

    fn add_counts(&mut self, o: Summary) -> Result<(), String> {
        self.games = sum(self.games, o.games, "games")?;
        self.completed = sum(self.completed, o.completed, "completed")?;
        self.unfinished = sum(self.unfinished, o.unfinished, "unfinished")?;
        self.draws = sum(self.draws, o.draws, "draws")?;
        self.all_zero = sum(self.all_zero, o.all_zero, "scores.all_zero")?;
        self.play.add(&o.play)?;
        for (k, v) in o.lengths {
            add_to(self.lengths.entry(k).or_default(), v, "turns.histogram")?;
        }
        add_all(&mut self.wins, &o.wins, "wins")?;
        add_all(&mut self.decisions, &o.decisions, "decisions.total")?;
        add_all(&mut self.first_moves, &o.first_moves, "first_player.seats")?;
        add_all(
            &mut self.first_mover_wins,
            &o.first_mover_wins,
            "first_player.seat_wins",
        )?;
        for (mine, theirs) in self.scores.iter_mut().zip(o.scores) {
            for (k, v) in theirs {
                add_to(mine.entry(k).or_default(), v, "scores.histogram")?;
            }
        }
        for (mine, theirs) in self.actions.iter_mut().zip(o.actions) {
            add_to(
                &mut mine.legal_games,
                theirs.legal_games,
                "actions.legal_games",
            )?;
            add_to(&mut mine.chosen, theirs.chosen, "actions.chosen")?;
        }
        for e in o.error_list {
            self.add_error(e)?;
        }
        Ok(())
    }

    /// The moments of the game lengths.
    pub fn length_moments(&self) -> Moments {
        Moments::of(self.lengths.iter().map(|(k, v)| (*k as f64, *v)))
    }

    /// The moments of a seat's final scores.
    pub fn score_moments(&self, seat: usize) -> Moments {
        Moments::of(self.scores[seat].iter().map(|(k, v)| (*k as f64, *v)))
    }

    /// Mean, shortest and longest game (player decisions), over the completed games.
    pub fn turns(&self) -> (f64, u64, u64) {
        let min = self.lengths.keys().next().copied().unwrap_or(0);
        let max = self.lengths.keys().next_back().copied().unwrap_or(0);
        (self.length_moments().mean, min, max)
    }

    /// A seat's least and greatest final score (0 and 0 without completed games).
    pub fn score_range(&self, seat: usize) -> (i64, i64) {
        let h = &self.scores[seat];
        (
            h.keys().next().copied().unwrap_or(0),
            h.keys().next_back().copied().unwrap_or(0),
        )
    }

    /// Each seat's mean final score.
    pub fn mean_scores(&self) -> Vec<f64> {
        (0..self.scores.len())
            .map(|p| self.score_moments(p).mean)
            .collect()
    }

    /// Each seat's share of the completed games won, with its 95% Wilson interval.
    pub fn win_rates(&self) -> Vec<Rate> {
        self.wins
            .iter()
            .map(|w| stats::wilson(*w, self.completed))
            .collect()
    }

    /// The share of games with no winner.
    pub fn draw_rate(&self) -> Rate {
        stats::wilson(self.draws, self.completed)
    }

    /// How often the player who took the first decision won, with its 95% interval.
    pub fn first_player(&self) -> Rate {
        stats::wilson(
            self.first_mover_wins.iter().sum(),
            self.first_moves.iter().sum(),
        )
    }

    /// A seat's fair share of the wins: all wins over all seats' games. A first player who
    /// wins more often than this has an advantage.
    pub fn fair_share(&self) -> f64 {
        let seats_games = self.completed * self.players as u64;
        if seats_games == 0 {
            0.0
        } else {
            self.wins.iter().sum::<u64>() as f64 / seats_games as f64
        }
    }

    /// Each seat's mean decisions per completed game.
    pub fn mean_decisions(&self) -> Vec<f64> {
        self.decisions
            .iter()
            .map(|d| ratio(*d, self.completed))
            .collect()
    }

    /// The options never legal in any game.
    pub fn never_legal(&self) -> Vec<&str> {
        self.actions
            .iter()
            .filter(|a| a.legal_games == 0)
            .map(|a| a.name.as_str())
            .collect()
    }

    /// The error of the first failed game, with its game number and seed.
    pub fn first_error(&self) -> Option<String> {
        self.error_list
            .iter()
            .min_by_key(|e| e.first_game)
            .map(|e| format!("game {} (seed {}): {}", e.first_game, e.seed, e.message))
    }

    /// A label for the variant: its name, or `base rules`.
    pub fn variant_label(&self) -> &str {
        self.variant.as_deref().unwrap_or("base rules")
    }

    /// The summary as a JSON value: the counts (which [`Summary::from_json`] reads back) and
    /// the figures derived from them.
    pub fn to_json(&self) -> Value {
        let (mean, min, max) = self.turns();
        let rate =
            |r: Rate| json!({"rate": round(r.rate), "low": round(r.low), "high": round(r.high)});
        let fp = self.first_player();
        let mut v = json!({
            "game": self.game,
            "variant": self.variant,
            "players": self.players,
            "seed": self.seed,
            "agents": self.agents,
            "games": self.games,
            "completed": self.completed,
            "errors": self.errors,
            "unfinished": self.unfinished,
            "draws": self.draws,
            "turns": {
                "mean": round2(mean), "sd": round2(self.length_moments().var.sqrt()),
                "min": min, "max": max,
                "histogram": self.lengths.iter().map(|(k, v)| [*k, *v]).collect::<Vec<_>>(),
            },
            "wins": self.wins,
            "win_rate": self.win_rates().into_iter().map(rate).collect::<Vec<_>>(),
            "no_winner": rate(self.draw_rate()),
            "first_player": {
                "seats": self.first_moves,
                "seat_wins": self.first_mover_wins,
                "win_rate": rate(fp),
                "fair_share": round(self.fair_share()),
                "advantage": round(fp.rate - self.fair_share()),
            },
            "scores": {
                "mean": self.mean_scores().iter().map(|s| round2(*s)).collect::<Vec<_>>(),
                "sd": (0..self.scores.len()).map(|p| round2(self.score_moments(p).var.sqrt())).collect::<Vec<_>>(),
                "min": (0..self.scores.len()).map(|p| self.score_range(p).0).collect::<Vec<_>>(),
                "max": (0..self.scores.len()).map(|p| self.score_range(p).1).collect::<Vec<_>>(),
                "all_zero": self.all_zero,
                "histogram": self.scores.iter().map(|h| h.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>()).collect::<Vec<_>>(),
            },
            "decisions": {
                "total": self.decisions,
                "mean": self.mean_decisions().iter().map(|s| round2(*s)).collect::<Vec<_>>(),
            },
            "actions": self.actions.iter().map(|a| json!({
                "name": a.name, "legal_games": a.legal_games, "chosen": a.chosen,
            })).collect::<Vec<_>>(),
            "never_legal": self.never_legal(),
            "play": self.play.to_json(),
            "error_list": self.error_list.iter().map(|e| json!({
                "code": e.code, "message": e.message, "count": e.count,
                "first_game": e.first_game, "seed": e.seed,
                "place": e.place.as_ref().map(|p| json!({
                    "file": p.file, "line": p.line, "column": p.column, "text": p.text,
                })),
            })).collect::<Vec<_>>(),
        });
        if let Some((s, total)) = self.shard {
            v["shard"] = json!({"index": s.index, "count": s.count, "games": total});
        }
        v
    }

    /// The summary as one line of JSON, as `rulebook simulate --json` prints it.
    pub fn json(&self) -> String {
        self.to_json().to_string()
    }

    /// Reads the counts back from [`Summary::to_json`] (the derived figures are ignored).
    pub fn from_json(v: &Value) -> Result<Summary, String> {
        let seats = |v: &Value, what: &str| -> Result<Vec<u64>, String> {
            arr(v, what)?.iter().map(|x| num(x, what)).collect()
        };
        let mut s = Summary {
            game: text(&v["game"], "game")?,
            variant: match &v["variant"] {
                Value::Null => None,
                x => Some(text(x, "variant")?),
            },
            players: u8::try_from(num(&v["players"], "players")?)
                .map_err(|_| "players: out of range".to_string())?,
            seed: num(&v["seed"], "seed")?,
            agents: arr(&v["agents"], "agents")?
                .iter()
                .map(|x| text(x, "agents"))
                .collect::<Result<_, _>>()?,
            games: num(&v["games"], "games")?,
            completed: num(&v["completed"], "completed")?,
            unfinished: num(&v["unfinished"], "unfinished")?,
            errors: 0,
            draws: num(&v["draws"], "draws")?,
            all_zero: num(&v["scores"]["all_zero"], "scores.all_zero")?,
            play: super::play::PlayStats::from_json(&v["play"])?,
            wins: seats(&v["wins"], "wins")?,
            decisions: seats(&v["decisions"]["total"], "decisions.total")?,
            first_moves: seats(&v["first_player"]["seats"], "first_player.seats")?,
            first_mover_wins: seats(&v["first_player"]["seat_wins"], "first_player.seat_wins")?,
            ..Default::default()
        };
        for p in arr(&v["turns"]["histogram"], "turns.histogram")? {
            let (k, n) = pair(p, "turns.histogram")?;
            let at = s.lengths.entry(num(k, "turns.histogram")?).or_default();
            add_to(at, num(n, "turns.histogram")?, "turns.histogram")?;
        }
        for h in arr(&v["scores"]["histogram"], "scores.histogram")? {
            let mut m = BTreeMap::new();
            for p in arr(h, "scores.histogram")? {
                let (k, n) = pair(p, "scores.histogram")?;
                let k = k.as_i64().ok_or("scores.histogram: not an integer")?;
                add_to(
                    m.entry(k).or_default(),
                    num(n, "scores.histogram")?,
                    "scores.histogram",
                )?;
            }
            s.scores.push(m);
        }
        for a in arr(&v["actions"], "actions")? {
            s.actions.push(ActionStats {
                name: text(&a["name"], "actions.name")?,
                legal_games: num(&a["legal_games"], "actions.legal_games")?,
                chosen: num(&a["chosen"], "actions.chosen")?,
            });
        }
        for e in arr(&v["error_list"], "error_list")? {
            let place = match &e["place"] {
                Value::Null => None,
                p => Some(Place {
                    file: text(&p["file"], "place.file")?,
                    line: num(&p["line"], "place.line")? as usize,
                    column: num(&p["column"], "place.column")? as usize,
                    text: text(&p["text"], "place.text")?,
                }),
            };
            s.add_error(ErrorStats {
                code: text(&e["code"], "error_list.code")?,
                message: text(&e["message"], "error_list.message")?,
                place,
                count: num(&e["count"], "error_list.count")?,
                first_game: num(&e["first_game"], "error_list.first_game")?,
                seed: num(&e["seed"], "error_list.seed")?,
            })?;
        }
        if let Some(sh) = v.get("shard") {
            let shard = Shard {
                index: num(&sh["index"], "shard.index")?,
                count: num(&sh["count"], "shard.count")?,
            };
            if shard.count == 0 || shard.index >= shard.count {
                return Err("shard: index must be below count".into());
            }
            s.shard = Some((shard, num(&sh["games"], "shard.games")?));
        }
        let n = s.players as usize;
        for (what, len) in [
            ("wins", s.wins.len()),
            ("scores.histogram", s.scores.len()),
            ("decisions.total", s.decisions.len()),
            ("first_player.seats", s.first_moves.len()),
            ("first_player.seat_wins", s.first_mover_wins.len()),
            ("agents", s.agents.len()),
        ] {
            if len != n {
                return Err(format!("{what}: {len} seats, but {n} players"));
            }
        }
        if num(&v["errors"], "errors")? != s.errors {
            return Err("errors: not the sum of error_list's counts".into());
        }
        Ok(s)
    }

    /// The summary as aligned text lines, as `rulebook simulate` prints it.
    pub fn text(&self) -> String {
        let (mean, min, max) = self.turns();
        let seats = |v: Vec<String>| {
            v.iter()
                .enumerate()
                .map(|(i, x)| format!("p{} {x}", i + 1))
                .collect::<Vec<_>>()
                .join("  ")
        };
        let mut s = String::new();
        s += &format!("game       {}\n", self.game);
        if let Some(v) = &self.variant {
            s += &format!("variant    {v}\n");
        }
        s += &format!("agents     {}\n", seats(self.agents.clone()));
        s += &format!("games      {}\n", self.games);
        s += &format!("completed  {}\n", self.completed);
        s += &format!("errors     {}\n", self.errors);
        if let Some(e) = self.first_error() {
            s += &format!("           first error: {e}\n");
        }
        for e in self.error_list.iter().take(10) {
            let at = e.place.as_ref().map_or(String::new(), |p| {
                format!(" at {}:{}:{}", p.file, p.line, p.column)
            });
            s += &format!("           {} x {}{at}: {}\n", e.count, e.code, e.message);
        }
        if self.unfinished > 0 {
            s += &format!("unfinished {}  (stopped by --max-turns)\n", self.unfinished);
        }
        s += &format!(
            "turns      mean {mean:.1}  sd {:.1}  min {min}  max {max}\n",
            self.length_moments().var.sqrt()
        );
        s += &format!(
            "wins       {}  (no winner: {})\n",
            seats(self.wins.iter().map(|w| w.to_string()).collect()),
            self.draws
        );
        let d = self.draw_rate();
        s += &format!(
            "win rate   {}  (95% Wilson intervals; no winner {:.1}% ({:.1}-{:.1}))\n",
            seats(
                self.win_rates()
                    .iter()
                    .map(|r| format!(
                        "{:.1}% ({:.1}-{:.1})",
                        100.0 * r.rate,
                        100.0 * r.low,
                        100.0 * r.high
                    ))
                    .collect()
            ),
            100.0 * d.rate,
            100.0 * d.low,
            100.0 * d.high
        );
        let fp = self.first_player();
        s += &format!(
            "first      the first player won {:.1}% ({:.1}-{:.1}); a fair share is {:.1}%\n",
            100.0 * fp.rate,
            100.0 * fp.low,
            100.0 * fp.high,
            100.0 * self.fair_share()
        );
        s += &format!(
            "scores     {}\n",
            seats(
                self.mean_scores()
                    .iter()
                    .map(|m| format!("{m:.2}"))
                    .collect()
            )
        );
        s += &format!(
            "spread     {}\n",
            seats(
                (0..self.scores.len())
                    .map(|p| {
                        let (lo, hi) = self.score_range(p);
                        let sd = self.score_moments(p).var.sqrt();
                        format!("sd {sd:.2} min {lo} max {hi}")
                    })
                    .collect()
            )
        );
        s += &format!(
            "decisions  {}  (per game)\n",
            seats(
                self.mean_decisions()
                    .iter()
                    .map(|m| format!("{m:.1}"))
                    .collect()
            )
        );
        if self.play.decisions > 0 {
            s += &self.play.text();
        }
        let never = self.never_legal();
        s += &format!(
            "never legal {}\n",
            if never.is_empty() {
                "-".to_string()
            } else {
                never.join(", ")
            }
        );
        s
    }
}

/// `a + b`, or an error naming the count (`what`, as the JSON names it) that overflows.
fn sum(a: u64, b: u64, what: &str) -> Result<u64, String> {
    a.checked_add(b).ok_or_else(|| {
        format!(
            "{what}: the counts add up to more than {} (overflow)",
            u64::MAX
        )
    })
}

/// `*a += b`, checked as [`sum`].
fn add_to(a: &mut u64, b: u64, what: &str) -> Result<(), String> {
    *a = sum(*a, b, what)?;
    Ok(())
}

fn add_all(a: &mut [u64], b: &[u64], what: &str) -> Result<(), String> {
    for (x, y) in a.iter_mut().zip(b) {
        add_to(x, *y, what)?;
    }
    Ok(())
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Two decimals, as means are printed.
pub(crate) fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Four decimals, as rates are printed.
pub(crate) fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

fn num(v: &Value, what: &str) -> Result<u64, String> {
    v.as_u64()
        .ok_or_else(|| format!("{what}: expected a whole number, found {v}"))
}

fn text(v: &Value, what: &str) -> Result<String, String> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("{what}: expected a string, found {v}"))
}

fn arr<'a>(v: &'a Value, what: &str) -> Result<&'a Vec<Value>, String> {
    v.as_array()
        .ok_or_else(|| format!("{what}: expected a list, found {v}"))
}

fn pair<'a>(v: &'a Value, what: &str) -> Result<(&'a Value, &'a Value), String> {
    match v.as_array().map(Vec::as_slice) {
        Some([a, b]) => Ok((a, b)),
        _ => Err(format!("{what}: expected a [value, count] pair, found {v}")),
    }
}
