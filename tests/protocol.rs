//! The line protocol (`rulebook serve`): transcripts, agreement with the library, bad requests,
//! saves; and views that leak nothing, for every game in rules/.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rulebook::engine::{Actor, ChanceMode, Config, Match};
use rulebook::server::protocol::{Code, Reply, Request};
use rulebook::server::Session;
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
        Server::start_with(&["serve", rules])
    }
    fn start_with(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rulebook"))
            .args(args)
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
        self.send_bytes(line.as_bytes())
    }
    /// Sends one line of any bytes (a line end is added) and reads one reply line.
    fn send_bytes(&mut self, line: &[u8]) -> Value {
        self.input.write_all(line).expect("write");
        self.input.write_all(b"\n").expect("write");
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
            r#"{"cmd":"legal"}"#,
            r#"{"cmd":"view","seat":0}"#,
            r#"{"cmd":"state"}"#,
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
        (r#"{"cmd":"view","seat":"x"}"#, "bad_request"),
        (r#"{"cmd":"new","players":2,"chance":5}"#, "bad_request"),
        (
            r#"{"cmd":"new","players":2,"chance":"dice"}"#,
            "bad_request",
        ),
        (r#"{"cmd":"legal","verbose":true}"#, "bad_request"),
        (r#"{"cmd":"apply","action":"draw","seat":0}"#, "bad_request"),
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
            fuel: None,
            set: Vec::new(),
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
    assert!(err.to_string().contains("different rules file"), "{err}");
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
                fuel: None,
                set: Vec::new(),
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
                fuel: None,
                set: Vec::new(),
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

/// Every line gets exactly one reply, and the server goes on: invalid UTF-8, blank lines,
/// lines of whitespace (non-breaking spaces too), lines longer than 1 MiB.
#[test]
fn every_line_gets_one_reply() {
    let mut s = Server::start("rules/classic/tic_tac_toe.rules");
    assert_eq!(s.send(json!({"cmd":"new","players":2}))["ok"], true);
    let long = format!(r#"{{"cmd":"apply","action":"{}"}}"#, "x".repeat(2 << 20));
    let cases: [(&[u8], &str); 7] = [
        (b"\xff\xfe{\"cmd\":\"legal\"}", "bad_json"),
        (b"", "bad_json"),
        (b"   \t ", "bad_json"),
        ("\u{a0}\u{a0}".as_bytes(), "bad_json"),
        ("\u{3000}".as_bytes(), "bad_json"),
        (long.as_bytes(), "too_long"),
        (b"{\"cmd\":\"legal\"}\r", ""),
    ];
    for (line, code) in cases {
        let r = s.send_bytes(line);
        if code.is_empty() {
            assert_eq!(r["actions"].as_array().map(Vec::len), Some(9), "{r}");
        } else {
            assert_eq!(r["error"]["code"], code, "{r}");
        }
    }
    assert_eq!(s.send(json!({"cmd":"status"}))["decisions"], 0);
    assert_eq!(s.finish(), 0);
}

/// An error message quotes at most 64 characters of the request.
#[test]
fn messages_quote_only_a_prefix_of_the_request() {
    let mut s = Server::start("rules/classic/tic_tac_toe.rules");
    assert_eq!(s.send(json!({"cmd":"new","players":2}))["ok"], true);
    let long = "é".repeat(5000);
    let requests = [
        json!({"cmd":"apply","action":long}),
        json!({"cmd":long}),
        json!({"cmd":"new","chance":long}),
        json!({"cmd":"why","action":long}),
        json!({"cmd":"legal", long.clone(): 1}),
    ];
    for r in requests {
        let reply = s.send(r);
        let text = reply.to_string();
        assert!(text.len() < 1000, "{text}");
        assert!(!text.contains(&"é".repeat(65)), "{text}");
    }
    let r = s.send(json!({"cmd":"apply","action":long}));
    let message = r["error"]["message"].as_str().expect("a message");
    assert!(
        message.starts_with(&format!("`{}...`", "é".repeat(64))),
        "{message}"
    );
    assert_eq!(s.finish(), 0);
}

/// A rule that fails while `new` runs the setup is a rules error with its place, not a bad
/// configuration.
#[test]
fn a_rule_failing_at_the_start_is_a_rules_error() {
    let dir = std::env::temp_dir().join(format!("rulebook-protocol-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let rules = dir.join("broken_setup.rules");
    std::fs::write(
        &rules,
        "game \"Broken setup\"\nplayers 2\nvar n: int\nsetup {\n    n = 10 / n\n}\n\
         action pass() { end }\nflow { turn seat(0) { choose { pass } } }\n",
    )
    .expect("writes");
    let mut s = Server::start(&rules.display().to_string());
    let r = s.send(json!({"cmd":"new","players":2}));
    assert_eq!(r["error"]["code"], "rules_error", "{r}");
    assert_eq!(r["error"]["line"], 5, "{r}");
    assert!(r["error"]["column"].is_number(), "{r}");
    assert_eq!(
        s.send(json!({"cmd":"new","players":3}))["error"]["code"],
        "bad_config"
    );
    assert_eq!(s.finish(), 0);
    std::fs::remove_dir_all(&dir).expect("cleans up");
}

/// `serve --seat 1`: the client plays p2 only, in the match the command line started.
#[test]
fn a_client_bound_to_a_seat_plays_only_that_seat() {
    let mut s = Server::start_with(&[
        "serve",
        "rules/classic/tic_tac_toe.rules",
        "--seat",
        "1",
        "--seed",
        "1",
    ]);
    assert_eq!(s.send(json!({"cmd":"status"}))["actor"], "p1");
    assert_eq!(
        s.send(json!({"cmd":"legal"})),
        json!({"actions": [], "actor": "p1"})
    );
    let r = s.send(json!({"cmd":"apply","action":"place cell=a1"}));
    assert_eq!(r["error"]["code"], "not_your_turn", "{r}");
    let r = s.send(json!({"cmd":"why","action":"place cell=a1"}));
    assert_eq!(r["legal"], false, "{r}");
    assert_eq!(
        s.send(json!({"cmd":"view","seat":0}))["error"]["code"],
        "bad_seat"
    );
    assert_eq!(s.send(json!({"cmd":"view"}))["view"]["seat"], 1);
    assert_eq!(s.send(json!({"cmd":"view","seat":1}))["view"]["seat"], 1);
    for req in [
        json!({"cmd":"state"}),
        json!({"cmd":"save"}),
        json!({"cmd":"new","seed":2}),
        json!({"cmd":"load","data":"x"}),
    ] {
        assert_eq!(s.send(req.clone())["error"]["code"], "forbidden", "{req}");
    }
    assert_eq!(
        s.send(json!({"cmd":"undo"}))["error"]["code"],
        "nothing_to_undo"
    );
    assert_eq!(s.send(json!({"cmd":"status"}))["decisions"], 0);
    assert_eq!(s.finish(), 0);

    let mut s = Server::start_with(&["serve", "rules/classic/tic_tac_toe.rules", "--seat", "0"]);
    assert_eq!(s.send(json!({"cmd":"status"}))["actor"], "p1");
    let legal = s.send(json!({"cmd":"legal"}));
    assert_eq!(legal["actions"].as_array().map(Vec::len), Some(9));
    let r = s.send(json!({"cmd":"apply","action":"place cell=b2"}));
    assert_eq!(r["actor"], "p2", "{r}");
    assert_eq!(
        s.send(json!({"cmd":"legal"})),
        json!({"actions": [], "actor": "p2"})
    );
    let r = s.send(json!({"cmd":"apply","action":"place cell=a1"}));
    assert_eq!(r["error"]["code"], "not_your_turn", "{r}");
    assert_eq!(s.finish(), 0);
}

/// In a simultaneous block (OMNIA's draft), a client bound to a seat that is pending but not
/// the engine's current actor makes its own choice, which no other seat sees.
#[test]
fn a_bound_seat_makes_its_own_choice_in_a_simultaneous_block() {
    let g = game("rules/omnia.rules");
    let cfg = Config {
        players: 3,
        variant: Some("draft".into()),
        seed: 4,
        chance: ChanceMode::Seeded,
        fuel: None,
        set: Vec::new(),
    };
    let mut m = Match::new(&g, cfg).expect("starts");
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    while m.pending().len() < 2 {
        assert_ne!(m.actor(), Actor::Nobody, "no simultaneous choice reached");
        let legal = m.legal().expect("legal");
        let (a, _) = legal[rng.gen_range(0..legal.len())];
        m.apply(&a).expect("applies");
    }
    let pending = m.pending();
    let seat = *pending
        .iter()
        .find(|&&p| m.actor() != Actor::Player(p))
        .expect("a pending seat that is not the actor");
    let own = m.legal_for(seat).expect("legal");
    let mut session = Session::new(&g, Some(seat));
    let load = Request::Load {
        data: m.save_text(),
    };
    assert!(matches!(session.run_as(None, load), Reply::Ready { .. }));
    let legal = reply(&mut session, r#"{"cmd":"legal"}"#);
    let texts: Vec<&str> = legal["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .map(|a| a["text"].as_str().expect("text"))
        .collect();
    let expected: Vec<&str> = own.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(texts, expected);
    let apply = json!({"cmd":"apply","action":texts[0]}).to_string();
    let r = reply(&mut session, &apply);
    assert_eq!(r["ok"], true, "{r}");
    let after = session.current().expect("a match");
    assert!(
        after.pending().contains(&seat),
        "p{} keeps a second card",
        seat + 1
    );
    let again = after.legal_for(seat).expect("legal");
    assert!(again.iter().all(|(_, t)| t != texts[0]), "kept already");
    assert_eq!(after.log().len(), m.log().len() + 1);
    for other in (0..3).filter(|&p| p != seat) {
        assert_eq!(
            after.view(Some(other)),
            m.view(Some(other)),
            "p{}",
            other + 1
        );
        assert_eq!(
            after.legal_for(other).expect("legal"),
            m.legal_for(other).expect("legal")
        );
    }
}

fn reply(session: &mut Session, line: &str) -> Value {
    serde_json::from_str(&session.handle(line.as_bytes())).expect("JSON")
}

/// The README's table of error codes lists every code the server can send.
#[test]
fn the_readme_lists_every_error_code() {
    let readme = std::fs::read_to_string("README.md").expect("README.md");
    for code in Code::ALL {
        assert!(
            readme.contains(&format!("| `{}` |", code.as_str())),
            "README.md does not list `{}`",
            code.as_str()
        );
    }
}

/// Each legal action carries its name and arguments as canonical texts, and applying its
/// text works; `state` shows everything as texts.
#[test]
fn legal_actions_and_state_are_canonical_texts() {
    let g = game("rules/omega_shift.rules");
    let mut session = Session::new(&g, None);
    assert_eq!(
        reply(&mut session, r#"{"cmd":"new","players":2,"seed":2}"#)["ok"],
        true
    );
    let legal = reply(&mut session, r#"{"cmd":"legal"}"#);
    for a in legal["actions"].as_array().expect("actions") {
        let name = a["name"].as_str().map(str::to_string);
        let args: Vec<String> = a["args"]
            .as_array()
            .expect("args")
            .iter()
            .map(|kv| {
                format!(
                    "{}={}",
                    kv[0].as_str().expect("k"),
                    kv[1].as_str().expect("v")
                )
            })
            .collect();
        let rebuilt: Vec<String> = name.into_iter().chain(args).collect();
        assert_eq!(a["text"], rebuilt.join(" "), "{a}");
    }
    let state = reply(&mut session, r#"{"cmd":"state"}"#);
    let text = state.to_string();
    assert!(
        !text.contains("\"Comp\"") && !text.contains("\"Space\""),
        "{text}"
    );
    for z in state["state"]["zones"].as_array().expect("zones") {
        assert_eq!(z["open"], true, "{z}");
        assert_eq!(
            z["visible"].as_array().map(Vec::len),
            z["count"].as_u64().map(|n| n as usize)
        );
    }
}

/// The README's example sessions replay as written: each `>` request gets the `<` reply shown
/// (a `...` in a reply stands for text left out).
#[test]
fn the_readme_sessions_replay() {
    let readme = std::fs::read_to_string("README.md").expect("README.md");
    let section = readme
        .split("### The line protocol")
        .nth(1)
        .expect("the protocol section");
    let blocks: Vec<&str> = section
        .split("```")
        .skip(1)
        .step_by(2)
        .filter(|b| b.trim_start().starts_with("> {"))
        .collect();
    let games = ["rules/omega_shift.rules", "rules/classic/tic_tac_toe.rules"];
    assert_eq!(blocks.len(), games.len(), "one game per example session");
    for (block, rules) in blocks.iter().zip(games) {
        let mut s = Server::start(rules);
        let lines: Vec<&str> = block.trim().lines().collect();
        for pair in lines.chunks(2) {
            let (req, want) = (&pair[0][2..], &pair[1][2..]);
            let got = s.send_raw(req).to_string();
            let parts: Vec<&str> = want.split("...").collect();
            let mut rest = got.as_str();
            for (i, part) in parts.iter().enumerate() {
                let at = rest.find(part);
                assert!(
                    at.is_some_and(|k| i > 0 || k == 0),
                    "{rules}: {req}\n  README: {want}\n  server: {got}"
                );
                rest = &rest[at.unwrap_or(0) + part.len()..];
            }
            assert!(
                parts.len() > 1 || rest.is_empty(),
                "{rules}: {req}\n  README: {want}\n  server: {got}"
            );
        }
        assert_eq!(s.finish(), 0);
    }
}

/// `suggest` answers the action a search finds for the seat to act (a win in one here), the
/// same again for the same position; a client bound to a seat gets suggestions for its own
/// turns only.
#[test]
fn suggest_searches_for_the_seat_to_act() {
    let g = game("rules/classic/tic_tac_toe.rules");
    let mut session = Session::new(&g, None);
    assert_eq!(
        reply(&mut session, r#"{"cmd":"suggest"}"#)["error"]["code"],
        "no_match"
    );
    assert_eq!(
        reply(&mut session, r#"{"cmd":"new","players":2,"seed":1}"#)["ok"],
        true
    );
    // p1 holds a1 and b2, p2 b1 and c1: p1 wins at c3.
    for cell in ["a1", "b1", "b2", "c1"] {
        let apply = json!({"cmd":"apply","action":format!("place cell={cell}")}).to_string();
        assert_eq!(reply(&mut session, &apply)["ok"], true);
    }
    let suggest = r#"{"cmd":"suggest","playouts":300}"#;
    assert_eq!(
        reply(&mut session, suggest),
        json!({"action":"place cell=c3"})
    );
    assert_eq!(
        reply(&mut session, suggest),
        json!({"action":"place cell=c3"})
    );
    for bad in [
        r#"{"cmd":"suggest","playouts":0}"#,
        r#"{"cmd":"suggest","playouts":"many"}"#,
        r#"{"cmd":"suggest","playouts":300,"depth":2}"#,
    ] {
        assert_eq!(
            reply(&mut session, bad)["error"]["code"],
            "bad_request",
            "{bad}"
        );
    }
    let save = reply(&mut session, r#"{"cmd":"save"}"#)["data"].clone();
    let load = json!({"cmd":"load","data":save}).to_string();
    // `serve --agent`: the session's search settings, its budget when a request names none.
    let config = rulebook::agents::MctsConfig {
        budget: rulebook::agents::Budget::Playouts(300),
        exploration: 1.0,
        ..Default::default()
    };
    let mut tuned = Session::new(&g, None).with_search(config);
    assert_eq!(reply(&mut tuned, &load)["ok"], true);
    assert_eq!(
        reply(&mut tuned, r#"{"cmd":"suggest"}"#),
        json!({"action":"place cell=c3"})
    );
    let mut p2 = Session::new(&g, Some(1));
    let host_load = || Request::Load {
        data: save.as_str().expect("a save").to_string(),
    };
    assert!(matches!(p2.run_as(None, host_load()), Reply::Ready { .. }));
    assert_eq!(reply(&mut p2, suggest)["error"]["code"], "not_your_turn");
    let mut p1 = Session::new(&g, Some(0));
    assert!(matches!(p1.run_as(None, host_load()), Reply::Ready { .. }));
    assert_eq!(reply(&mut p1, suggest), json!({"action":"place cell=c3"}));
    let win = r#"{"cmd":"apply","action":"place cell=c3"}"#;
    assert_eq!(reply(&mut session, win)["finished"], true);
    assert_eq!(reply(&mut session, suggest)["error"]["code"], "finished");
}

/// Only the host steers: a client bound to a seat may not start a match, load a save (and so
/// choose a seed), read the state or save; it may undo its own last decision, one at a time,
/// never another seat's.
#[test]
fn a_bound_client_cannot_steer_the_match() {
    let g = game("rules/classic/tic_tac_toe.rules");
    let mut p1 = Session::new(&g, Some(0));
    let new = Request::New {
        players: Some(2),
        seed: Some(1),
        variant: None,
        chance: None,
        set: None,
    };
    assert!(matches!(p1.run_as(None, new.clone()), Reply::Ready { .. }));
    let save = p1.current().expect("a match").save_text();
    let load = json!({"cmd":"load","data":save}).to_string();
    for req in [
        r#"{"cmd":"new","players":2,"seed":7}"#,
        r#"{"cmd":"new"}"#,
        load.as_str(),
        r#"{"cmd":"state"}"#,
        r#"{"cmd":"save"}"#,
    ] {
        let r = reply(&mut p1, req);
        assert_eq!(r["error"]["code"], "forbidden", "{req}: {r}");
    }
    // Nothing to undo yet; then p1's own decision may be taken back, once.
    assert_eq!(
        reply(&mut p1, r#"{"cmd":"undo"}"#)["error"]["code"],
        "nothing_to_undo"
    );
    let b2 = r#"{"cmd":"apply","action":"place cell=b2"}"#;
    assert_eq!(reply(&mut p1, b2)["actor"], "p2");
    assert_eq!(reply(&mut p1, r#"{"cmd":"undo"}"#)["actor"], "p1");
    assert_eq!(p1.current().expect("a match").log().len(), 0);
    // p2's decision is not p1's to take back, and the match stays as it was.
    assert_eq!(reply(&mut p1, b2)["actor"], "p2");
    let p2_move = Request::Apply {
        action: "place cell=a1".into(),
    };
    assert!(matches!(p1.run_as(Some(1), p2_move), Reply::Applied { .. }));
    let before = p1.current().expect("a match").save_text();
    let r = reply(&mut p1, r#"{"cmd":"undo"}"#);
    assert_eq!(r["error"]["code"], "forbidden", "{r}");
    assert_eq!(p1.current().expect("a match").save_text(), before);
    assert_eq!(p1.current().expect("a match").actor(), Actor::Player(0));
    // p2 may take back its own, then no more: p1's is next.
    assert!(matches!(
        p1.run_as(Some(1), Request::Undo {}),
        Reply::Ready { .. }
    ));
    let r = p1.run_as(Some(1), Request::Undo {});
    assert!(
        matches!(&r, Reply::Error { error } if error.code == Code::Forbidden),
        "{r:?}"
    );
    assert_eq!(p1.current().expect("a match").log().len(), 1);
    // The host may do all of it.
    assert!(matches!(
        p1.run_as(None, Request::Undo {}),
        Reply::Ready { .. }
    ));
    assert!(matches!(p1.run_as(None, new), Reply::Ready { .. }));
}

/// A match the bound seat is not in is refused, from the host too: the seat stays playable.
#[test]
fn a_bound_seat_outside_the_match_is_refused() {
    let g = game("rules/classic/tic_tac_toe.rules");
    let mut p3 = Session::new(&g, Some(2));
    let r = p3.run_as(
        None,
        Request::New {
            players: Some(2),
            seed: None,
            variant: None,
            chance: None,
            set: None,
        },
    );
    assert!(
        matches!(&r, Reply::Error { error } if error.code == Code::BadSeat
            && error.message.contains("seat 2")),
        "{r:?}"
    );
    assert!(p3.current().is_none());
    // From the command line: out of the game's range, and out of the match's.
    for args in [&["--seat", "5"][..], &["--seat", "2", "--players", "2"][..]] {
        let out = Command::new(env!("CARGO_BIN_EXE_rulebook"))
            .args(["serve", "rules/classic/tic_tac_toe.rules"])
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            err.contains("seat 2") || err.contains("seat 5"),
            "{args:?}: {err}"
        );
        assert!(
            err.contains("p1 to p2") || err.contains("from 0 to 1"),
            "{args:?}: {err}"
        );
    }
}

/// A save of a match whose chance is external (every shuffle and roll a decision in the log)
/// loads into a match that plays on, through `Match::load_text` and through `load`, for
/// every seed game.
#[test]
fn a_save_with_external_chance_loads_and_plays_on() {
    for rules in seed_games() {
        let g = game(&rules);
        let cfg = Config {
            players: g.min_players,
            variant: None,
            seed: 5,
            chance: ChanceMode::External,
            fuel: None,
            set: Vec::new(),
        };
        let mut m = Match::new(&g, cfg).expect("starts");
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut chance = 0;
        for _ in 0..60 {
            if m.actor() == Actor::Nobody {
                break;
            }
            chance += usize::from(m.actor() == Actor::Chance);
            let legal = m.legal().expect("legal");
            let (a, _) = legal[rng.gen_range(0..legal.len())];
            m.apply(&a).expect("applies");
        }
        assert!(chance > 0, "{rules}: no chance decision");
        let save = m.save_text();
        let mut loaded = Match::load_text(&g, &save).unwrap_or_else(|e| panic!("{rules}: {e:?}"));
        assert_eq!(loaded.log(), m.log(), "{rules}");
        assert_eq!(loaded.view(None), m.view(None), "{rules}");
        if loaded.actor() != Actor::Nobody {
            let legal = loaded.legal().expect("legal");
            assert_eq!(legal, m.legal().expect("legal"), "{rules}");
            loaded.apply(&legal[0].0).expect("plays on");
        }
        let mut session = Session::new(&g, None);
        let r = reply(&mut session, &json!({"cmd":"load","data":save}).to_string());
        assert_eq!(r["ok"], true, "{rules}: {r}");
        if m.actor() != Actor::Nobody {
            let legal = reply(&mut session, r#"{"cmd":"legal"}"#);
            let list = legal["actions"].as_array().or(legal["outcomes"].as_array());
            let first = list.and_then(|l| l.first()).expect("a legal decision");
            let apply = json!({"cmd":"apply","action":first["text"]}).to_string();
            let r = reply(&mut session, &apply);
            assert_eq!(r["ok"], true, "{rules}: {r}");
        }
    }
}

/// A session bound to seat 255 (the web page's path takes any number up to 255) is told it
/// is not its turn, in words, for `apply` and `why` (and lists nothing legal): no arithmetic overflow on the
/// seat's name (found by the fuzzer's web target: `p{s + 1}` panicked in a debug build).
#[test]
fn the_last_seat_number_is_named_without_overflow() {
    let g = game("rules/classic/tic_tac_toe.rules");
    let mut s = Session::new(&g, None);
    s.handle(br#"{"cmd":"new","players":2,"seed":1}"#);
    for req in [
        json!({"cmd": "apply", "action": "place cell=a1"}),
        json!({"cmd": "why", "action": "place cell=a1"}),
        json!({"cmd": "legal"}),
    ] {
        let reply = s.run_as(
            Some(255),
            serde_json::from_value(req.clone()).expect("a request"),
        );
        let text = serde_json::to_string(&reply).expect("JSON");
        assert!(!text.contains("internal_error"), "{req}: {text}");
        if req["cmd"] != "legal" {
            assert!(text.contains("not p256"), "{req}: {text}");
        }
    }
}

/// Issue 35: `why` asked by a client bound to a seat while a simultaneous block waits is
/// answered from that seat's own part, as `legal` is: p2's own card is legal for p2 (it was
/// once answered from p1's part, where p2's cards are not offered), and p1 is told nothing
/// about it but that it is not one of its values.
#[test]
fn why_in_a_simultaneous_block_answers_for_the_bound_seat() {
    let text = "game \"g\"\nplayers 2\ncomponent Card { rank: int }\n\
                zone deck: Card hidden\nzone hand[Player]: Card owner\nzone kept[Player]: Card owner\n\
                components Card in deck { \"c{i}\" for i in 1..9 { rank = i } }\n\
                setup { for p in players { repeat 3 { move top(deck) to hand[p] } } }\n\
                flow { simultaneous p in players { choose by p card in hand[p] { move card to kept[p] } } end draw }";
    let g = rulebook::load("simul.rules", text)
        .game
        .expect("valid rules");
    let cfg = Config {
        players: 2,
        ..Config::default()
    };
    let m = Match::new(&g, cfg).expect("starts");
    let save = json!({"cmd":"load","data":m.save_text()}).to_string();
    let texts = |seat: u8| -> Vec<String> {
        m.legal_for(seat)
            .expect("legal")
            .into_iter()
            .map(|(_, t)| t)
            .collect()
    };
    let (mine, theirs) = (texts(1), texts(0));
    assert_eq!((mine.len(), theirs.len()), (3, 3));
    for (seat, own, other) in [(1u8, &mine, &theirs), (0, &theirs, &mine)] {
        let mut session = Session::new(&g, Some(seat));
        // The host loads the match; the bound client asks.
        let load = serde_json::from_str(&save).expect("a request");
        assert!(matches!(session.run_as(None, load), Reply::Ready { .. }));
        for t in own {
            let why = json!({"cmd":"why","action":t}).to_string();
            let r = reply(&mut session, &why);
            assert_eq!(r["legal"], true, "p{} asks about `{t}`: {r}", seat + 1);
        }
        for t in other {
            let why = json!({"cmd":"why","action":t}).to_string();
            let r = reply(&mut session, &why);
            assert_eq!(r["legal"], false, "p{} asks about `{t}`: {r}", seat + 1);
        }
    }
}
