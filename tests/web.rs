//! The app behind `rulebook web`, without a browser: every rules file of the repository
//! loads, draws and plays from the page's side (each decision taken through the page of the
//! seat that must act, with a click's canonical text), and a seat's page never holds the
//! components of a hand it may not see. The browser itself: tests/browser.rs.

use rulebook::server::protocol::{Reply, Request};
use rulebook::web::{App, Setup};
use std::path::{Path, PathBuf};

fn rules_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("readable").flatten() {
        let p = e.path();
        if p.is_dir() {
            rules_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rules") {
            out.push(p);
        }
    }
}

#[test]
fn every_rules_file_is_drawn_and_played_from_the_page() {
    let mut files = Vec::new();
    rules_files(Path::new("rules"), &mut files);
    files.sort();
    assert!(files.len() >= 8, "{files:?}");
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        let mut app = App::new(f.display().to_string());
        app.reload(text);
        let info = app.info();
        assert!(info.title.is_some(), "{}: {:?}", f.display(), info.problems);
        // Every seat human: the page takes every decision.
        let setup = Setup {
            players: info.min_players,
            variant: None,
            seed: 1,
            humans: vec![true; info.min_players as usize],
            agent: "random".into(),
        };
        app.start(setup).expect("starts");
        for step in 0..40 {
            let status = app.status();
            if status.over {
                break;
            }
            let Some(&seat) = status.humans_to_act.first() else {
                panic!("{}: nobody to act at step {step}", f.display());
            };
            let page = app.page(Some(seat), None).expect("a page");
            assert_eq!(page.scene.boards.len(), info.boards.len());
            for (b, spaces) in info.boards.iter().zip(&page.scene.boards) {
                assert_eq!(b.spaces.len(), spaces.len(), "{}", f.display());
            }
            for z in &page.scene.zones {
                if z.kind == "hand" && z.owner.is_some_and(|o| o != seat) && z.backs > 0 {
                    assert!(
                        z.cards.is_empty() || z.count > z.cards.len(),
                        "{}: {z:?}",
                        f.display()
                    );
                }
            }
            let view_hidden: usize = page
                .view
                .zones
                .iter()
                .map(|z| z.count - z.visible.len())
                .sum();
            let scene_backs: usize = page.scene.zones.iter().map(|z| z.backs).sum::<usize>()
                + page
                    .scene
                    .boards
                    .iter()
                    .flatten()
                    .flatten()
                    .filter(|t| t.kind == "back")
                    .map(|t| t.count)
                    .sum::<usize>();
            assert_eq!(
                view_hidden,
                scene_backs,
                "{}: every hidden component is a back",
                f.display()
            );
            let action = page.legal.first().expect("a legal action").text.clone();
            let reply = app.request(
                Some(seat),
                Request::Apply {
                    action: action.clone(),
                },
            );
            assert!(
                !matches!(reply, Reply::Error { .. }),
                "{}: {action}: {reply:?}",
                f.display()
            );
        }
        // The log slider: the page after the first decision.
        if app.status().decisions > 1 {
            let past = app.page(Some(0), Some(1)).expect("a past page");
            assert_eq!((past.at, past.log.len(), past.legal.len()), (Some(1), 1, 0));
        }
    }
}

#[test]
fn agents_play_the_other_seats_and_undo_goes_back_to_the_human() {
    let text = std::fs::read_to_string("rules/classic/tic_tac_toe.rules").expect("readable");
    let mut app = App::new("ttt.rules".into());
    app.reload(text);
    // Seat 1 is the page's, seat 2 random, by default.
    assert_eq!(app.info().setup.humans, vec![true, false]);
    let reply = app.request(
        Some(0),
        Request::Apply {
            action: "place cell=b2".into(),
        },
    );
    assert!(!matches!(reply, Reply::Error { .. }), "{reply:?}");
    assert_eq!(app.status().decisions, 2, "the agent answered");
    assert_eq!(app.status().humans_to_act, vec![0]);
    // Seat 1 may not play seat 2's decisions, nor see another seat's page as its own.
    let reply = app.request(
        Some(1),
        Request::Apply {
            action: "place cell=a1".into(),
        },
    );
    assert!(matches!(reply, Reply::Error { .. }), "{reply:?}");
    // The page shows the human's seat and the spectator's view, never the agent's.
    assert!(app.page(Some(0), None).is_ok());
    assert!(app.page(None, None).is_ok());
    let refused = app
        .page(Some(1), None)
        .expect_err("an agent's view is refused");
    assert!(refused.contains("played by an agent"), "{refused}");
    app.undo();
    assert_eq!(app.status().decisions, 0);
    // Saves load back.
    app.request(
        Some(0),
        Request::Apply {
            action: "place cell=a1".into(),
        },
    );
    let Reply::Save { data } = app.save() else {
        panic!("a save")
    };
    app.request(
        Some(0),
        Request::Apply {
            action: "place cell=c3".into(),
        },
    );
    app.load(data);
    assert_eq!(app.status().decisions, 2);
}

/// Agents choose for a bounded slice per request and go on at the page's next poll: a
/// match of agents alone, one decision per request, is the same match as one played in a
/// single request.
#[test]
fn agents_go_on_a_slice_per_request_and_play_the_same_match() {
    let text = std::fs::read_to_string("rules/classic/connect_four.rules").expect("readable");
    let mut logs = vec![];
    for slice_ms in [60_000, 0] {
        let mut app = App::new("c4.rules".into());
        app.agent_slice = std::time::Duration::from_millis(slice_ms);
        app.reload(text.clone());
        let setup = Setup {
            players: 2,
            variant: None,
            seed: 5,
            humans: vec![false, false],
            agent: "random".into(),
        };
        app.start(setup).expect("starts");
        let mut polls = 0;
        while app.status().agents_to_act {
            assert_eq!(
                app.status().decisions,
                polls + 1,
                "one decision per request"
            );
            app.run_agents();
            polls += 1;
            assert!(polls < 1_000, "the match ends");
        }
        assert!(app.status().over);
        if slice_ms > 0 {
            assert_eq!(polls, 0, "a long slice plays the match in the request");
        } else {
            assert!(polls > 5, "{polls}");
        }
        logs.push(app.page(None, None).expect("a page").log);
    }
    assert_eq!(logs[0], logs[1]);
}

#[test]
fn rules_with_errors_show_their_problems_with_line_and_column() {
    let mut app = App::new("bad.rules".into());
    app.reload("game \"B\"\nplayers 2\naction pass() { end draw }\nflow { turn seat(0) { choose { pas } } }\n".into());
    let info = app.info();
    assert!(info.title.is_none());
    let p = info
        .problems
        .iter()
        .find(|p| p.severity == "error")
        .expect("an error");
    assert_eq!((p.line, p.column), (4, 32), "{p:?}");
    assert!(app.page(Some(0), None).is_err());
}

/// The rules of tic-tac-toe, read once.
struct Once(Option<String>);

impl rulebook::web::RulesSource for Once {
    fn name(&self) -> String {
        "ttt.rules".into()
    }
    fn changed(&mut self) -> Option<Result<String, String>> {
        self.0.take().map(Ok)
    }
}

/// `rulebook web` on a free port in a thread of this process, its connections closed after
/// `idle`; the port and the host's token.
fn server(idle: std::time::Duration) -> (u16, String) {
    use rulebook::web::http;
    let text = std::fs::read_to_string("rules/classic/tic_tac_toe.rules").expect("readable");
    let (listener, addr) = http::bind("127.0.0.1:0").expect("binds");
    let mut gate = http::Gate::new(addr.port()).expect("a token");
    gate.idle = idle;
    let token = gate.token().to_string();
    std::thread::spawn(move || http::serve(listener, Box::new(Once(Some(text))), gate));
    (addr.port(), token)
}

/// One HTTP/1.1 request with these headers (`Host` is not added); the status and the body.
fn call(port: u16, head: &str, body: &[u8]) -> (u16, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connects");
    s.set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .ok();
    let request = format!(
        "{head}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(request.as_bytes()).expect("writes");
    let _ = s.write_all(body);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let out = String::from_utf8_lossy(&out).to_string();
    let code = out
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = out
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_string();
    (code, body)
}

/// Requests from elsewhere are refused: a foreign `Host` (DNS rebinding), a foreign
/// `Origin`, no token or a wrong one, each 403 with a JSON error; the page holds the token;
/// a body past the limit is 413.
#[test]
fn the_server_lets_in_only_its_own_page() {
    let (port, token) = server(std::time::Duration::from_secs(30));
    let host = format!("Host: 127.0.0.1:{port}");
    let (code, page) = call(port, &format!("GET / HTTP/1.1\r\n{host}"), b"");
    assert_eq!(code, 200);
    assert!(page.contains(&token), "the page holds the token");
    assert_eq!(token.len(), 32);
    let ok = format!("GET /api/status HTTP/1.1\r\n{host}\r\nX-Rulebook-Token: {token}");
    assert_eq!(call(port, &ok, b"").0, 200);
    let same_origin = format!("{ok}\r\nOrigin: http://127.0.0.1:{port}");
    assert_eq!(call(port, &same_origin, b"").0, 200);
    let localhost =
        format!("GET /api/status HTTP/1.1\r\nHost: localhost:{port}\r\nX-Rulebook-Token: {token}");
    assert_eq!(call(port, &localhost, b"").0, 200);
    let wrong = "0".repeat(32);
    for refused in [
        format!("GET /api/status HTTP/1.1\r\n{host}"),
        format!("GET /api/status HTTP/1.1\r\n{host}\r\nX-Rulebook-Token: {wrong}"),
        format!(
            "GET /api/status HTTP/1.1\r\nHost: evil.example:{port}\r\nX-Rulebook-Token: {token}"
        ),
        format!("GET / HTTP/1.1\r\nHost: evil.example:{port}"),
        format!("GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:1\r\nX-Rulebook-Token: {token}"),
        format!("{ok}\r\nOrigin: http://evil.example"),
        format!("{ok}\r\nOrigin: null"),
        format!("POST /api/new HTTP/1.1\r\n{host}\r\nOrigin: http://evil.example:{port}"),
    ] {
        let (code, body) = call(port, &refused, b"");
        assert_eq!(code, 403, "{refused}: {body}");
        let v: serde_json::Value = serde_json::from_str(&body).expect("JSON");
        assert_eq!(v["error"]["code"], "forbidden", "{body}");
    }
    let big = vec![b'x'; 2 << 20];
    let load = format!("POST /api/load HTTP/1.1\r\n{host}\r\nX-Rulebook-Token: {token}");
    assert_eq!(call(port, &load, &big).0, 413);
}

/// A seat's token asks only as that seat: it plays, reads its page and undoes its own last
/// decision, never another's, and may not start, load, save, or undo as the host.
#[test]
fn a_seat_token_cannot_steer_the_match() {
    let (port, token) = server(std::time::Duration::from_secs(30));
    let host = format!("Host: 127.0.0.1:{port}");
    let as_ = |t: &str, method: &str, path: &str, body: &str| {
        let (code, body) = call(
            port,
            &format!("{method} {path} HTTP/1.1\r\n{host}\r\nX-Rulebook-Token: {t}"),
            body.as_bytes(),
        );
        (
            code,
            serde_json::from_str::<serde_json::Value>(&body).unwrap_or_default(),
        )
    };
    let setup = r#"{"players":2,"variant":null,"seed":1,"humans":[true,true],"agent":"random"}"#;
    assert_eq!(as_(&token, "POST", "/api/new", setup).0, 200);
    let (code, p1) = as_(&token, "GET", "/api/seat/0/token", "");
    assert_eq!(code, 200);
    let p1 = p1["token"].as_str().expect("a token").to_string();
    let p2 = as_(&token, "GET", "/api/seat/1/token", "").1["token"]
        .as_str()
        .expect("a token")
        .to_string();
    assert_ne!(p1, p2);
    assert_ne!(p1, token);
    for (method, path, body) in [
        ("POST", "/api/new", setup),
        ("POST", "/api/undo", "{}"),
        ("GET", "/api/save", ""),
        ("POST", "/api/load", r#"{"data":"x"}"#),
        ("GET", "/api/seat/1", ""),
        ("GET", "/api/seat/0/token", ""),
        ("POST", "/api/seat/1/apply", r#"{"action":"place cell=a1"}"#),
        ("POST", "/api/seat/1/undo", ""),
    ] {
        let (code, v) = as_(&p1, method, path, body);
        assert_eq!(code, 403, "{method} {path}: {v}");
    }
    assert_eq!(as_(&p1, "GET", "/api/status", "").0, 200);
    assert_eq!(as_(&p1, "GET", "/api/seat/0", "").0, 200);
    let b2 = r#"{"action":"place cell=b2"}"#;
    assert_eq!(as_(&p1, "POST", "/api/seat/0/apply", b2).1["ok"], true);
    assert_eq!(as_(&p1, "POST", "/api/seat/0/undo", "").1["actor"], "p1");
    assert_eq!(as_(&p1, "POST", "/api/seat/0/apply", b2).1["ok"], true);
    let a1 = r#"{"action":"place cell=a1"}"#;
    assert_eq!(as_(&p2, "POST", "/api/seat/1/apply", a1).1["ok"], true);
    let (_, v) = as_(&p1, "POST", "/api/seat/0/undo", "");
    assert_eq!(v["error"]["code"], "forbidden", "{v}");
    assert_eq!(as_(&token, "GET", "/api/status", "").1["decisions"], 2);
}

/// A connection that sends nothing is closed after the idle time.
#[test]
fn a_silent_connection_is_closed() {
    use std::io::Read;
    let (port, _) = server(std::time::Duration::from_millis(500));
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connects");
    s.set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .ok();
    let start = std::time::Instant::now();
    let mut buf = [0u8; 64];
    let n = s.read(&mut buf);
    assert!(
        matches!(n, Ok(0)) || n.is_err() && start.elapsed() < std::time::Duration::from_secs(15),
        "{n:?}"
    );
    assert!(
        start.elapsed() < std::time::Duration::from_secs(15),
        "closed"
    );
}

/// Reloading the rules frees the game checked before: after many reloads, none of the
/// earlier games is alive.
#[test]
fn a_reload_frees_the_rules_it_replaces() {
    let text = std::fs::read_to_string("rules/classic/tic_tac_toe.rules").expect("readable");
    let mut app = App::new("ttt.rules".into());
    app.reload(text.clone());
    let first = app.game_handle().expect("a game");
    assert!(first.upgrade().is_some());
    for _ in 0..50 {
        app.reload(text.clone());
    }
    assert!(first.upgrade().is_none(), "the first game is freed");
    assert!(app.game_handle().is_some_and(|g| g.upgrade().is_some()));
    assert!(app.page(Some(0), None).is_ok());
}
