//! Agents named as the command line names them: `random`, `mcts` (the default budget),
//! `mcts:N` (N playouts per decision), `mcts:2s` or `mcts:250ms` (a time per decision),
//! followed by settings if wanted: `mcts:2000:c=0.7:w=0:d=1` (`c` the exploration constant,
//! `w` the weight of the score in the reward, `rollout` the most decisions of a playout, `d=1`
//! decisive moves in playouts, `g=P:k=N` playout moves chosen by the heuristic among N with
//! probability P, `pw=C` progressive widening, `m=E` MAST playouts: the best-averaging action
//! with probability E). A budget is at most [`MAX_TIME`] (10 s) or
//! [`MAX_PLAYOUTS`] (1,000,000 playouts) per decision.

use super::{Agent, Budget, Mcts, MctsConfig, RandomAgent};
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// The most time an agent may be given per decision: a spec asking more is refused, so that a
/// typo (`mcts:3600s`) cannot hold a server or a simulation for hours per move.
pub const MAX_TIME: Duration = Duration::from_secs(10);

/// The most playouts an agent may be given per decision.
pub const MAX_PLAYOUTS: u64 = 1_000_000;

/// Which agent plays a seat, and how.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentSpec {
    /// [`RandomAgent`].
    Random,
    /// [`Mcts`] with this configuration.
    Mcts(MctsConfig),
}

impl AgentSpec {
    /// A comma-separated list of agents: `mcts:2000,random`.
    pub fn parse_list(text: &str) -> Result<Vec<AgentSpec>, String> {
        text.split(',').map(|s| s.trim().parse()).collect()
    }

    /// The agent, its choices determined by `seed`.
    pub fn build(&self, seed: u64) -> Box<dyn Agent + Send> {
        match self {
            AgentSpec::Random => Box::new(RandomAgent::new(seed)),
            AgentSpec::Mcts(c) => Box::new(Mcts::new(c.clone(), seed)),
        }
    }

    /// The same agent searching on `threads` threads (random agents do not search).
    pub fn with_threads(mut self, threads: usize) -> Self {
        if let AgentSpec::Mcts(c) = &mut self {
            c.threads = threads.max(1);
        }
        self
    }

    /// Whether it is the random agent.
    pub fn is_random(&self) -> bool {
        matches!(self, AgentSpec::Random)
    }
}

impl FromStr for AgentSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "unknown agent `{}`: use random, mcts, mcts:N (N playouts per decision), \
                 mcts:2s or mcts:250ms (a time per decision), then settings if wanted \
                 (mcts:2000:c=0.7:w=0:rollout=500:d=1:g=0.5:k=4:pw=1:m=0.8)",
                crate::source::quote(s, 40)
            )
        };
        let mut parts = s.split(':');
        let name = parts.next().unwrap_or_default();
        let budget = parts.next();
        match (name, budget) {
            ("random", None) => Ok(AgentSpec::Random),
            ("mcts", None) => Ok(AgentSpec::Mcts(MctsConfig::default())),
            ("mcts", Some(a)) => {
                let too_long = || {
                    format!(
                        "`{}`: an agent may take at most 10 s per decision",
                        crate::source::quote(s, 40)
                    )
                };
                let too_many = || {
                    format!(
                        "`{}`: an agent may run at most {MAX_PLAYOUTS} playouts per decision",
                        crate::source::quote(s, 40)
                    )
                };
                let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
                let budget = if let Some(ms) = a.strip_suffix("ms") {
                    if !digits(ms) {
                        return Err(bad());
                    }
                    let ms: u64 = ms.parse().map_err(|_| too_long())?;
                    Budget::Time(Duration::from_millis(ms))
                } else if let Some(secs) = a.strip_suffix('s') {
                    let secs: f64 = secs.parse().map_err(|_| bad())?;
                    if !(secs.is_finite() && secs > 0.0) {
                        return Err(bad());
                    }
                    if secs > MAX_TIME.as_secs_f64() {
                        return Err(too_long());
                    }
                    Budget::Time(Duration::from_secs_f64(secs))
                } else {
                    if !digits(a) {
                        return Err(bad());
                    }
                    Budget::Playouts(a.parse().map_err(|_| too_many())?)
                };
                match budget {
                    Budget::Time(t) if t > MAX_TIME => return Err(too_long()),
                    Budget::Playouts(n) if n > MAX_PLAYOUTS => return Err(too_many()),
                    _ => {}
                }
                if matches!(budget, Budget::Playouts(0)) || budget == Budget::Time(Duration::ZERO) {
                    return Err(format!("`{s}`: the budget must be more than 0"));
                }
                let mut config = MctsConfig {
                    budget,
                    ..MctsConfig::default()
                };
                for setting in parts {
                    let (key, value) = setting.split_once('=').ok_or_else(bad)?;
                    let number = || -> Result<f64, String> {
                        value
                            .parse::<f64>()
                            .ok()
                            .filter(|x| x.is_finite() && *x >= 0.0)
                            .ok_or_else(|| format!("`{s}`: {key} must be a number from 0"))
                    };
                    match key {
                        "c" => config.exploration = number()?,
                        "w" if number()? <= 1.0 => config.score_weight = number()?,
                        "pw" => config.widen = number()?,
                        "m" if number()? <= 1.0 => config.mast = number()?,
                        "rave" => config.rave = number()?,
                        "g" if number()? <= 1.0 => config.greedy = number()?,
                        "k" => {
                            config.sample =
                                value.parse().ok().filter(|&k| k >= 1).ok_or_else(bad)?
                        }
                        "rollout" => config.max_rollout = value.parse().map_err(|_| bad())?,
                        "reuse" => {
                            config.reuse = match value {
                                "0" => false,
                                "1" => true,
                                _ => return Err(bad()),
                            }
                        }
                        "d" => {
                            config.decisive = match value {
                                "0" => false,
                                "1" => true,
                                _ => return Err(bad()),
                            }
                        }
                        _ => return Err(bad()),
                    }
                }
                Ok(AgentSpec::Mcts(config))
            }
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for AgentSpec {
    /// The text that parses back to it: its budget, and the settings that differ from the
    /// defaults (threads are not written).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let AgentSpec::Mcts(c) = self else {
            return write!(f, "random");
        };
        match c.budget {
            Budget::Playouts(n) => write!(f, "mcts:{n}")?,
            Budget::Time(d) if d.subsec_millis() == 0 && d.as_secs() > 0 => {
                write!(f, "mcts:{}s", d.as_secs())?
            }
            Budget::Time(d) => write!(f, "mcts:{}ms", d.as_millis())?,
        }
        let default = MctsConfig::default();
        if c.exploration != default.exploration {
            write!(f, ":c={}", c.exploration)?;
        }
        if c.score_weight != default.score_weight {
            write!(f, ":w={}", c.score_weight)?;
        }
        if c.max_rollout != default.max_rollout {
            write!(f, ":rollout={}", c.max_rollout)?;
        }
        if c.decisive != default.decisive {
            write!(f, ":d={}", u8::from(c.decisive))?;
        }
        if c.greedy != default.greedy {
            write!(f, ":g={}", c.greedy)?;
        }
        if c.sample != default.sample {
            write!(f, ":k={}", c.sample)?;
        }
        if c.widen != default.widen {
            write!(f, ":pw={}", c.widen)?;
        }
        if c.mast != default.mast {
            write!(f, ":m={}", c.mast)?;
        }
        if c.rave != default.rave {
            write!(f, ":rave={}", c.rave)?;
        }
        if c.reuse != default.reuse {
            write!(f, ":reuse={}", u8::from(c.reuse))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print_back() {
        for text in [
            "random",
            "mcts:2000",
            "mcts:2s",
            "mcts:250ms",
            "mcts:50:c=0.7:w=0:rollout=30",
            "mcts:50:c=1:rollout=30:d=1",
            "mcts:50:rollout=40:g=0.8:k=6",
            "mcts:50:g=1",
            "mcts:50:rollout=40:pw=1.5",
            "mcts:200:m=0.5",
            "mcts:200:m=0.5:rave=300",
            "mcts:200ms:reuse=1",
        ] {
            let spec: AgentSpec = text.parse().expect(text);
            assert_eq!(spec.to_string(), text);
        }
        assert_eq!(
            "mcts".parse::<AgentSpec>().map(|s| s.to_string()),
            Ok(format!("mcts:{}", super::super::DEFAULT_PLAYOUTS))
        );
        assert_eq!(
            AgentSpec::parse_list("mcts:5, random").map(|l| l.len()),
            Ok(2)
        );
        for bad in [
            "",
            "mcts:",
            "mcts:0",
            "mcts:-3",
            "mcts:xs",
            "mcts:0ms",
            "alpha",
            "random:3",
            "mcts:5:c",
            "mcts:5:c=-1",
            "mcts:5:w=2",
            "mcts:5:d=2",
            "mcts:5:g=1.5",
            "mcts:5:k=0",
            "mcts:5:k=x",
            "mcts:5:pw=-1",
            "mcts:5:m=1.5",
        ] {
            assert!(bad.parse::<AgentSpec>().is_err(), "{bad}");
        }
        // A budget past the limits is refused, saying the limit.
        for (over, limit) in [
            ("mcts:3600s", "at most 10 s"),
            ("mcts:10001ms", "at most 10 s"),
            ("mcts:10.5s", "at most 10 s"),
            ("mcts:1000001", "at most 1000000 playouts"),
            ("mcts:99999999999999999999", "at most 1000000 playouts"),
        ] {
            let e = over.parse::<AgentSpec>().expect_err(over);
            assert!(e.contains(limit), "{over}: {e}");
        }
        for within in ["mcts:10s", "mcts:10000ms", "mcts:1000000"] {
            assert!(within.parse::<AgentSpec>().is_ok(), "{within}");
        }
    }
}
