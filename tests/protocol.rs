//! The line protocol (`rulebook serve`): transcripts, agreement with the library, bad requests,
//! saves; and views that leak nothing, for every game in rules/.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rulebook::engine::{Actor, ChanceMode, Config, Match};
use rulebook::Game;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

fn game(path: &str) -> Game {
    let text = std::fs::read_to_string(path).expect("readable");
    rulebook::load(path, &text).game.expect("valid rules")
}

/// Every seed game in rules/ (the classics are checked elsewhere).
fn seed_games() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir("rules")
        .expect("rules/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rules"))
        .map(|p| p.display().to_string())
        .collect();
    v.sort();
    assert!(!v.is_empty());
    v
}

struct Server {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Server {
    fn start(rules: &str) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rulebook"))
            .args(["serve", rules])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("serve starts");
        let input = child.stdin.take().expect("stdin");
        let output = BufReader::new(child.stdout.take().expect("stdout"));
        Server {
            child,
            input,
            output,
        }
    }
    fn send_raw(&mut self, line: &str) -> Value {
        writeln!(self.input, "{line}").expect("write");
        self.input.flush().expect("flush");
        let mut reply = String::new();
        self.output.read_line(&mut reply).expect("read");
        serde_json::from_str(&reply).unwrap_or_else(|e| panic!("reply is not JSON ({e}): {reply}"))
    }
    fn send(&mut self, v: Value) -> Value {
        self.send_raw(&v.to_string())
    }
    fn finish(mut self) -> i32 {
        drop(self.input);
        self.child.wait().expect("exits").code().unwrap_or(-1)
    }
}

/// A transcript: requests and replies, one pair per line, snapshotted.
fn transcript(rules: &str, requests: &[&str]) -> String {
    let mut s = Server::start(rules);
    let mut out = String::new();
    for r in requests {
        let reply = s.send_raw(r);
        out += &format!("> {r}\n< {reply}\n");
    }
    assert_eq!(s.finish(), 0, "end of input ends the server with 0");
    out
}

#[test]
fn tic_tac_toe_transcript() {
    let t = transcript(
        "rules/classic/tic_tac_toe.rules",
        &[
            r#"{"cmd":"new","players":2,"seed":1,"variant":null,"chance":"seeded"}"#,
            r#"{"cmd":"apply","action":"place cell=b2"}"#,
            r#"{"cmd":"why","action":"place cell=b2"}"#,
            r#"{"cmd":"apply","action":"place cell=a1"}"#,
            r#"{"cmd":"view","seat":0}"#,
            r#"{"cmd":"undo"}"#,
            r#"{"cmd":"status"}"#,
            r#"{"cmd":"save"}"#,
        ],
    );
    insta::assert_snapshot!(t);
}

#[test]
fn omega_shift_transcript_with_external_chance() {
    let t = transcript(
        "rules/omega_shift.rules",
        &[
            r#"{"cmd":"new","players":2,"seed":3,"chance":"external"}"#,
            r#"{"cmd":"legal"}"#,
            r#"{"cmd":"apply","action":"chance omega-blue"}"#,
            r#"{"cmd":"status"}"#,
            r#"{"cmd":"why","action":"draw"}"#,
        ],
    );
    insta::assert_snapshot!(t);
}

/// Every kind of bad request gets its error, and the match is exactly as it was.
#[test]
fn bad_requests_leave_the_match_unchanged() {
    let mut s = Server::start("rules/omega_shift.rules");
    assert_eq!(s.send(json!({"cmd":"legal"}))["error"]["code"], "no_match");
    assert_eq!(
        s.send(json!({"cmd":"new","players":3}))["error"]["code"],
        "bad_config"
    );
    assert_eq!(
        s.send(json!({"cmd":"new","players":2,"variant":"turbo"}))["error"]["code"],
        "bad_config"
    );
    assert_eq!(
        s.send(json!({"cmd":"new","players":2,"seed":5}))["ok"],
        true
    );
    let before = s.send(json!({"cmd":"state"}));
    let cases = [
        ("not json at all", "bad_json"),
        (r#"{"nocmd":1}"#, "bad_request"),
        (r#"{"cmd":"fly"}"#, "unknown_command"),
        (
            r#"{"cmd":"apply","action":"play card=nothing-99"}"#,
            "illegal_action",
        ),
        (r#"{"cmd":"apply","action":"draw"}"#, "illegal_action"),
        (r#"{"cmd":"apply"}"#, "bad_request"),
        (r#"{"cmd":"view","seat":2}"#, "bad_seat"),
        (r#"{"cmd":"view","seat":"x"}"#, "bad_seat"),
        (
            r#"{"cmd":"load","data":"(version: 1, garbage"}"#,
            "bad_save",
        ),
        (
            r#"{"cmd":"load","data":"(version: 1, rules_hash: \"0000000000000000\", config: (players: 2, variant: None, seed: 1, chance: Seeded), log: [])"}"#,
            "bad_save",
        ),
        (r#"{"cmd":"undo"}"#, "nothing_to_undo"),
    ];
    for (req, code) in cases {
        let r = s.send_raw(req);
        assert_eq!(r["error"]["code"], code, "{req} -> {r}");
        assert!(r["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()));
        assert_eq!(
            s.send(json!({"cmd":"state"})),
            before,
            "{req} changed the match"
        );
    }
    assert_eq!(s.finish(), 0);
}

/// A save made by the server loads back into the same state; a save from a changed rules
/// file is refused.
#[test]
fn saves_round_trip_and_changed_rules_are_refused() {
    let g = game("rules/omega_shift.rules");
    let mut m = Match::new(
        &g,
        Config {
            players: 2,
            variant: None,
            seed: 21,
            chance: ChanceMode::Seeded,
        },
    )
    .expect("starts");
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    for _ in 0..40 {
        let legal = m.legal().expect("legal");
        let (a, _) = legal[rng.gen_range(0..legal.len())];
        m.apply(&a).expect("applies");
    }
    let text = m.save_text();
    let back = Match::load_text(&g, &text).expect("loads");
    assert_eq!(
        serde_json::to_value(back.state()).expect("json"),
        serde_json::to_value(m.state()).expect("json")
    );
    assert_eq!(back.log(), m.log());
    let changed = rulebook::load(
        "changed.rules",
        &(g.sources[0].text.clone() + "\n// a changed file\n"),
    )
    .game
    .expect("valid");
    let err = Match::load_text(&changed, &text).err().expect("refused");
    assert!(
        err.message().contains("different rules file"),
        "{}",
        err.message()
    );
}

/// For every seed game: 200 random games played through the protocol with external chance
/// reach the same legal actions at every step and the same outcome as the same decisions
/// applied in-process.
#[test]
fn protocol_games_agree_with_the_library() {
    for rules in seed_games() {
        let g = game(&rules);
        let players = g.min_players.max(2).min(g.max_players);
        let mut s = Server::start(&rules);
        for i in 0..200u64 {
            let cfg = Config {
                players,
                variant: None,
                seed: i,
                chance: ChanceMode::External,
            };
            let mut local = Match::new(&g, cfg).expect("starts");
            assert_eq!(
                s.send(json!({"cmd":"new","players":players,"seed":i,"chance":"external"}))["ok"],
                true
            );
            let mut rng = ChaCha8Rng::seed_from_u64(i);
            let mut steps = 0;
            while local.actor() != Actor::Nobody {
                steps += 1;
                assert!(steps < 100_000, "{rules}: game {i} does not end");
                let reply = s.send(json!({"cmd":"legal"}));
                let local_legal = local.legal().expect("legal");
                let texts: Vec<&str> = local_legal.iter().map(|(_, t)| t.as_str()).collect();
                let text = if local.actor() == Actor::Chance {
                    let outcomes = reply["outcomes"].as_array().expect("outcomes");
                    let remote: Vec<&str> = outcomes
                        .iter()
                        .map(|o| o["text"].as_str().expect("text"))
                        .collect();
                    assert_eq!(remote, texts, "{rules}: game {i} step {steps}");
                    let total: f64 = outcomes
                        .iter()
                        .map(|o| o["probability"].as_f64().expect("p"))
                        .sum();
                    assert!((total - 1.0).abs() < 1e-9, "probabilities sum to 1");
                    let mut r: f64 = rng.gen();
                    let mut pick = remote[remote.len() - 1];
                    for (o, t) in outcomes.iter().zip(&remote) {
                        r -= o["probability"].as_f64().expect("p");
                        if r < 0.0 {
                            pick = t;
                            break;
                        }
                    }
                    pick.to_string()
                } else {
                    let remote: Vec<&str> = reply["actions"]
                        .as_array()
                        .expect("actions")
                        .iter()
                        .map(|a| a["text"].as_str().expect("text"))
                        .collect();
                    assert_eq!(remote, texts, "{rules}: game {i} step {steps}");
                    remote[rng.gen_range(0..remote.len())].to_string()
                };
                let r = s.send(json!({"cmd":"apply","action":text}));
                assert_eq!(r["ok"], true, "{rules}: {text}: {r}");
                local.apply_text(&text).expect("applies locally");
            }
            let status = s.send(json!({"cmd":"status"}));
            let o = local.state().outcome().expect("over");
            assert_eq!(status["finished"], true);
            assert_eq!(status["scores"], json!(o.scores), "{rules}: game {i}");
            assert_eq!(status["winners"], json!(o.winners), "{rules}: game {i}");
        }
        assert_eq!(s.finish(), 0);
    }
}

/// For every seed game, at every decision of random games: what a seat sees does not change
/// when everything it may not see is reshuffled (hidden components, secret fields).
#[test]
fn views_never_hold_what_a_seat_may_not_see() {
    for rules in seed_games() {
        let g = game(&rules);
        // Every player count in the base game; the smallest and largest in each variant.
        let mut configs = vec![];
        for players in g.min_players..=g.max_players {
            for i in 0..5u64 {
                configs.push((players, None, i));
            }
        }
        for v in &g.variants {
            for players in [g.min_players, g.max_players] {
                configs.push((players, Some(v.name.clone()), 0));
            }
        }
        for (players, variant, i) in configs {
            let cfg = Config {
                players,
                variant,
                seed: i,
                chance: ChanceMode::Seeded,
            };
            let mut m = Match::new(&g, cfg).expect("starts");
            let mut rng = ChaCha8Rng::seed_from_u64(100 + i);
            let mut steps = 0;
            while m.actor() != Actor::Nobody && steps < 400 {
                steps += 1;
                for seat in 0..players {
                    let v = g.view(m.state(), Some(seat));
                    let other = g.determinize(m.state(), Some(seat), &mut rng);
                    assert_eq!(
                        v,
                        g.view(&other, Some(seat)),
                        "{rules}: seat p{} sees hidden information at step {steps}",
                        seat + 1
                    );
                }
                let legal = m.legal().expect("legal");
                let (a, _) = legal[rng.gen_range(0..legal.len())];
                m.apply(&a).expect("applies");
            }
        }
    }
}
