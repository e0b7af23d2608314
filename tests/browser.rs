//! `rulebook web` in a real browser: headless Chromium driven over WebDriver (chromedriver,
//! spoken to with a few lines of HTTP/1.1 here). It draws every rules file of the repository
//! and measures the drawing (no script error, the board beside the side panel, no cell over
//! another, nothing drawn on a space outside its cell); it plays whole games by clicking the
//! board: tic-tac-toe, Hex (a hex board), Kalah (a ring), Connect Four (a disc dropped by
//! clicking its column) and Goofspiel (no board: the cards of a hand); it takes a man after a
//! mill in Nine Men's Morris by clicking it (a choice inside a sequence action) and moves a
//! Breakthrough pawn by clicking it then its cell; it checks that a hex board is drawn as
//! hexagons and a mill board as its three squares, that another seat's hand shows backs
//! only, and that an edit of the rules file shows its diagnostic with line and column.
//!
//! `tests/browser/setup.sh` installs Debian's `chromium` and `chromium-driver` with apt-get
//! when they are absent. Without them these tests fail, saying how to install them.
//! With `RULEBOOK_SCREENSHOTS=DIR` they save the screenshots of the README there.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Chromium and chromedriver, from `setup.sh` (run once for all the tests here).
fn browser() -> &'static (PathBuf, PathBuf) {
    static BINS: OnceLock<Result<(PathBuf, PathBuf), String>> = OnceLock::new();
    let bins = BINS.get_or_init(|| {
        let script = root().join("tests/browser/setup.sh");
        let out = Command::new("bash")
            .arg(&script)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = stdout.lines().collect();
        match lines[..] {
            [.., chromium, driver] if out.status.success() => {
                Ok((PathBuf::from(chromium.trim()), PathBuf::from(driver.trim())))
            }
            _ => Err(format!(
                "Chromium is not installed and tests/browser/setup.sh could not install it \
                 ({}).\n{}\nInstall it as root with `apt-get install chromium chromium-driver` \
                 (or set CHROMIUM and CHROMEDRIVER), then run the tests again.",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )),
        }
    });
    match bins {
        Ok(b) => b,
        Err(message) => panic!("{message}"),
    }
}

/// One browser at a time: the machine is small.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A child process killed when dropped.
struct Kill(Child);
impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// One HTTP/1.1 request; the JSON body of the reply.
fn http(port: u16, method: &str, path: &str, body: Option<&Value>) -> Value {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    s.set_read_timeout(Some(Duration::from_secs(60))).ok();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("writes");
    // The head, then as many bytes as Content-Length says (a server may keep the connection
    // open), or the chunks, or everything until it closes.
    let mut r = BufReader::new(s);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).expect("reads") == 0 || line == "\r\n" {
            break;
        }
        head.push_str(&line.to_ascii_lowercase());
    }
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|n| n.trim().parse::<usize>().ok());
    let mut raw = Vec::new();
    match length {
        Some(n) => {
            raw.resize(n, 0);
            r.read_exact(&mut raw).expect("reads the body");
        }
        None => {
            r.read_to_end(&mut raw).expect("reads");
        }
    }
    let rest = String::from_utf8_lossy(&raw).to_string();
    let rest = if length.is_none() && head.contains("transfer-encoding: chunked") {
        dechunk(&rest)
    } else {
        rest
    };
    serde_json::from_str(&rest).unwrap_or(Value::String(rest))
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// A WebDriver session on headless Chromium.
struct Browser {
    port: u16,
    session: String,
    _driver: Kill,
}

impl Browser {
    fn start() -> Browser {
        let (chromium, driver) = browser();
        let port = free_port();
        let child = Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", driver.display()));
        let driver_proc = Kill(child);
        let t = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                t.elapsed() < Duration::from_secs(20),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=1200,860"]
            }
        }}});
        let r = http(port, "POST", "/session", Some(&caps));
        let session = r["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no WebDriver session: {r}"))
            .to_string();
        Browser {
            port,
            session,
            _driver: driver_proc,
        }
    }

    fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let r = http(
            self.port,
            method,
            &format!("/session/{}{path}", self.session),
            body.as_ref(),
        );
        r["value"].clone()
    }

    fn go(&self, url: &str) {
        self.cmd("POST", "/url", Some(json!({ "url": url })));
    }

    /// Runs a script in the page and returns its value.
    fn js(&self, script: &str) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
    }

    /// Waits until a script returns true.
    fn wait(&self, what: &str, script: &str) {
        let t = Instant::now();
        loop {
            if self.js(script) == Value::Bool(true) {
                return;
            }
            assert!(
                t.elapsed() < Duration::from_secs(30),
                "timed out waiting for {what}; the page says: {}",
                self.js("return document.body.innerText")
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn element(&self, css: &str) -> String {
        let v = self.cmd(
            "POST",
            "/element",
            Some(json!({"using": "css selector", "value": css})),
        );
        v.as_object()
            .and_then(|o| o.values().next())
            .and_then(|x| x.as_str())
            .unwrap_or_else(|| panic!("no element {css}: {v}"))
            .to_string()
    }

    /// Clicks an element as a user would (WebDriver moves the pointer there and clicks).
    /// The page redraws when the match changes: an element found just before may be gone,
    /// so a stale one is looked up again.
    fn click(&self, css: &str) {
        for _ in 0..20 {
            let id = self.element(css);
            let r = self.cmd("POST", &format!("/element/{id}/click"), Some(json!({})));
            if r.is_null() {
                return;
            }
            assert!(
                r["error"] == "stale element reference",
                "clicking {css}: {r}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("{css} kept going stale");
    }

    /// Moves the pointer over the centre of an element.
    fn hover(&self, css: &str) {
        let at = self.js(&format!(
            "const r = document.querySelector('{css}').getBoundingClientRect(); \
             return [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)]"
        ));
        let r = self.cmd(
            "POST",
            "/actions",
            Some(json!({"actions": [{"type": "pointer", "id": "mouse",
                "parameters": {"pointerType": "mouse"},
                "actions": [{"type": "pointerMove", "duration": 0, "origin": "viewport",
                             "x": at[0], "y": at[1]}]}]})),
        );
        assert!(r.is_null(), "moving the pointer over {css}: {r}");
    }

    fn screenshot(&self, name: &str) {
        let Some(dir) = std::env::var_os("RULEBOOK_SCREENSHOTS") else {
            return;
        };
        let b64 = self.cmd("GET", "/screenshot", None);
        let png = base64(b64.as_str().expect("a screenshot"));
        std::fs::write(Path::new(&dir).join(name), png).expect("writes the screenshot");
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        http(
            self.port,
            "DELETE",
            &format!("/session/{}", self.session),
            None,
        );
    }
}

fn base64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for v in s.bytes().filter_map(val) {
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// `rulebook web FILE --port 0`, and the address it serves.
fn serve(file: &Path) -> (Kill, String) {
    // Run from the file's folder, so that the page names it as an author would.
    let mut child = Command::new(env!("CARGO_BIN_EXE_rulebook"))
        .current_dir(file.parent().expect("a folder"))
        .arg("web")
        .arg(file.file_name().expect("a file name"))
        .args(["--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("starts rulebook web");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("reads the address");
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    (Kill(child), url)
}

/// A copy of a rules text in a fresh folder of target/, for a test to edit.
fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = root().join("target/browser-tests");
    std::fs::create_dir_all(&dir).expect("creates target/browser-tests");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("writes the rules");
    path
}

fn tic_tac_toe() -> String {
    std::fs::read_to_string(root().join("rules/classic/tic_tac_toe.rules")).expect("readable")
}

/// Clicks a space that the page marks as a legal target; in a hot-seat game, passes the
/// device on (the cover) before the next seat plays.
fn play(b: &Browser, space: &str) {
    let css = format!(".space.target[data-value=\"{space}\"]");
    b.wait(
        &format!("{space} to be a target"),
        &format!("return document.querySelector('{css}') !== null && document.getElementById('cover').hidden"),
    );
    b.click(&css);
}

/// `rulebook web` on a copy of `text` (`name`, in a fresh folder) and a browser on its page.
fn open(name: &str, text: &str) -> (Kill, Browser) {
    let file = scratch(name, text);
    let (server, url) = serve(&file);
    let b = Browser::start();
    b.go(&url);
    (server, b)
}

/// A new match with both seats human (hot seat).
fn hot_seat(b: &Browser) {
    b.click("#newtoggle");
    b.click("input.human[data-seat=\"1\"]");
    b.click("#start");
}

/// Passes the device on: the cover shows, then the next seat asks for its view.
fn pass_device(b: &Browser) {
    b.wait(
        "the cover",
        "return !document.getElementById('cover').hidden",
    );
    b.click("#reveal");
}

#[test]
fn a_whole_tic_tac_toe_game_is_played_by_clicking_the_board() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (_server, b) = open("play.rules", &tic_tac_toe());
    b.wait(
        "the board",
        "return document.querySelectorAll('.space').length === 9",
    );
    // Both seats human: a hot-seat game.
    hot_seat(&b);
    let moves = ["a1", "a2", "b1", "b2", "c1"];
    for (i, m) in moves.iter().enumerate() {
        let seat = i % 2;
        if i > 0 {
            // The cover hides the last seat's view until the next seat asks for its own.
            b.wait(
                "the cover",
                "return !document.getElementById('cover').hidden",
            );
            let cover = b.js("return document.getElementById('covertext').textContent");
            assert_eq!(cover, json!(format!("Pass to p{}", seat + 1)));
            assert_eq!(
                b.js("return document.querySelectorAll('.space').length"),
                json!(0),
                "nothing of the last seat's view stays under the cover"
            );
            b.click("#reveal");
        }
        if i == 3 {
            // Hovering a taken space tells why it is not legal, with the rule's place.
            b.wait(
                "b1 taken",
                "return document.querySelector('.space[data-value=\"b1\"] .token') !== null",
            );
            b.hover(".space[data-value=\"b1\"]");
            b.wait(
                "the why tooltip",
                "return !document.getElementById('why').hidden && document.getElementById('why').textContent.includes('line 11')",
            );
            let why = b.js("return document.getElementById('why').textContent");
            assert!(
                why.as_str().is_some_and(
                    |w| w.contains("place cell=b1") && w.contains("mark[cell] == none")
                ),
                "{why}"
            );
            b.screenshot("web-tic-tac-toe.png");
        }
        play(&b, m);
    }
    b.wait(
        "the end",
        "return document.getElementById('status').textContent.includes('game over: p1 wins')",
    );
    assert_eq!(
        b.js("return document.querySelectorAll('.space.target').length"),
        json!(0)
    );
    // The winning row is highlighted (the rules' `line(s in grid, 3, ...)`), nothing else.
    assert_eq!(
        b.js("return [...document.querySelectorAll('.space.won')].map(s => s.dataset.value)"),
        json!(["a1", "b1", "c1"])
    );
    assert_eq!(
        b.js("return [...document.querySelectorAll('#log li')].map(l => l.textContent)"),
        json!([
            "p1: place cell=a1",
            "p2: place cell=a2",
            "p1: place cell=b1",
            "p2: place cell=b2",
            "p1: place cell=c1"
        ])
    );
    // The slider steps back: after 2 decisions, a1 and a2 only.
    b.js("const s = document.getElementById('slider'); s.value = 2; s.dispatchEvent(new Event('input')); return true");
    b.wait(
        "the view after 2 decisions",
        "return document.querySelectorAll('.space .token').length === 2 && !document.getElementById('looking').hidden",
    );
    // Undo takes the last decision back: p1 may play again.
    b.js("const s = document.getElementById('slider'); s.value = s.max; s.dispatchEvent(new Event('input')); return true");
    b.click("#undo");
    b.wait(
        "c1 free again",
        "return document.querySelector('.space.target[data-value=\"c1\"]') !== null",
    );
}

/// The spaces' shapes (`css`) on the page: how many, whether all lie left of the side panel
/// and inside the window, and how many pairs have centres closer than 0.8 of a shape's width
/// (drawn over each other).
fn layout_check(b: &Browser, css: &str) -> Value {
    b.js(&format!(
        "const r = [...document.querySelectorAll('{css}')].map(p => p.getBoundingClientRect()); \
         const side = document.querySelector('aside').getBoundingClientRect(); \
         const inside = r.every(x => x.left >= 0 && x.top >= 0 && x.right <= side.left + 1); \
         let close = 0; \
         for (let i = 0; i < r.length; i++) for (let j = 0; j < i; j++) {{ \
           const dx = (r[i].left + r[i].width / 2) - (r[j].left + r[j].width / 2); \
           const dy = (r[i].top + r[i].height / 2) - (r[j].top + r[j].height / 2); \
           if (Math.hypot(dx, dy) < 0.8 * r[i].width) close++; }} \
         return [r.length, inside, close]"
    ))
}

/// The centre of a space on the page.
fn centre(b: &Browser, space: &str) -> (f64, f64) {
    let v = b.js(&format!(
        "const r = document.querySelector('.space[data-value=\"{space}\"]').getBoundingClientRect(); \
         return [r.left + r.width / 2, r.top + r.height / 2]"
    ));
    (v[0].as_f64().expect("x"), v[1].as_f64().expect("y"))
}

// Issue 38: a hex board is drawn as hexagons (not a ring of circles), every cell beside the
// side panel and none over another, row 1 at the bottom and each row half a cell to the right
// of the one below it ([HEX-1]); a whole game is played by clicking cells, the first player
// joining rows 1 and 11 with column a ([HEX-4]).
#[test]
fn a_hex_board_is_drawn_as_hexagons_and_played_by_clicking_them() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let text = std::fs::read_to_string(root().join("rules/classic/hex.rules")).expect("readable");
    let (_server, b) = open("hex.rules", &text);
    b.wait(
        "the board",
        "return document.querySelectorAll('.space polygon.cell').length === 121",
    );
    assert_eq!(
        layout_check(&b, ".space polygon.cell"),
        json!([121, true, 0])
    );
    let (a1, b1, a2) = (centre(&b, "a1"), centre(&b, "b1"), centre(&b, "a2"));
    assert!(a2.1 < a1.1, "row 2 above row 1: {a1:?} {a2:?}");
    assert!(
        (a1.1 - b1.1).abs() < 1.0,
        "a1 and b1 on one row: {a1:?} {b1:?}"
    );
    let half = (b1.0 - a1.0) / 2.0;
    assert!(
        ((a2.0 - a1.0) - half).abs() < 1.0,
        "row 2 half a cell to the right: {a1:?} {b1:?} {a2:?}"
    );
    hot_seat(&b);
    for i in 0..21 {
        let (col, row) = if i % 2 == 0 {
            ('a', i / 2 + 1)
        } else {
            ('b', i / 2 + 1)
        };
        if i > 0 {
            pass_device(&b);
        }
        play(&b, &format!("{col}{row}"));
    }
    b.wait(
        "the end",
        "return document.getElementById('status').textContent.includes('game over: p1 wins')",
    );
    b.screenshot("web-hex.png");
}

// Issue 38: a graph board whose spaces are named by column and row (Nine Men's Morris) is
// drawn by its names: the three squares, a7 at the top left and g1 at the bottom right, d7
// half way along the top, the points beside the side panel and none over another.
#[test]
fn a_mill_board_is_drawn_as_its_three_squares() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let text = std::fs::read_to_string(root().join("rules/classic/nine_mens_morris.rules"))
        .expect("readable");
    let (_server, b) = open("morris.rules", &text);
    b.wait(
        "the board",
        "return document.querySelectorAll('.space circle.spot').length === 24",
    );
    assert_eq!(layout_check(&b, ".space circle.spot"), json!([24, true, 0]));
    let (a7, d7, g7, g1, d6) = (
        centre(&b, "a7"),
        centre(&b, "d7"),
        centre(&b, "g7"),
        centre(&b, "g1"),
        centre(&b, "d6"),
    );
    assert!(
        a7.0 < d7.0 && d7.0 < g7.0 && (a7.1 - g7.1).abs() < 1.0,
        "{a7:?} {d7:?} {g7:?}"
    );
    assert!(((d7.0 - a7.0) - (g7.0 - d7.0)).abs() < 1.0);
    assert!(g1.1 > a7.1 && (g1.0 - g7.0).abs() < 1.0, "{g1:?}");
    assert!(d6.1 > d7.1 && (d6.0 - d7.0).abs() < 1.0, "{d6:?}");
    b.screenshot("web-morris.png");
}

// Issue 38: a sequence action's choice inside its effect is played by clicking too. In Nine
// Men's Morris a mill takes a man ([NMM-4]): `take` is a choice inside `place`, so p1's a1, d1
// and g1 (a line of the mill board) make the third click a mill, after which p2's men that may
// be taken (b2 and d2: neither in a mill) are the targets, hovering p1's own man says why it
// may not be taken (the condition of `choose take`), and clicking d2 takes it.
#[test]
fn a_man_is_taken_after_a_mill_by_clicking_it() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let text = std::fs::read_to_string(root().join("rules/classic/nine_mens_morris.rules"))
        .expect("readable");
    assert!(text.contains("lines a1 d1 g1,"), "a1 d1 g1 is a line");
    let (_server, b) = open("morris-take.rules", &text);
    b.wait(
        "the board",
        "return document.querySelectorAll('.space circle.spot').length === 24",
    );
    hot_seat(&b);
    let places = ["a1", "b2", "d1", "d2", "g1"];
    for (i, m) in places.iter().enumerate() {
        if i > 0 {
            pass_device(&b);
        }
        play(&b, m);
    }
    // g1 is chosen; the move goes on with the take: p2's men are the targets, and only they.
    b.wait(
        "the men to take",
        "return document.querySelectorAll('.space.target').length === 2",
    );
    assert_eq!(
        b.js("return [...document.querySelectorAll('.space.target')].map(s => s.dataset.value).sort()"),
        json!(["b2", "d2"])
    );
    assert_eq!(
        b.js("return [...document.querySelectorAll('.space.selected')].map(s => s.dataset.value)"),
        json!(["g1"])
    );
    // p1's own man may not be taken: the tooltip gives the condition of `choose take`.
    b.hover(".space[data-value=\"a1\"]");
    b.wait(
        "the why tooltip",
        "return !document.getElementById('why').hidden && document.getElementById('why').textContent.includes('line')",
    );
    let why = b.js("return document.getElementById('why').textContent");
    assert!(
        why.as_str()
            .is_some_and(|w| w.contains("place at=g1 take=a1")
                && w.contains("its condition does not hold now")
                && w.contains("man[take] == next(me)")),
        "{why}"
    );
    b.screenshot("web-morris-take.png");
    play(&b, "d2");
    pass_device(&b);
    b.wait(
        "d2 taken",
        "return document.querySelector('.space[data-value=\"d2\"] .token') === null \
         && document.querySelectorAll('#log li').length === 5",
    );
    assert_eq!(
        b.js("return [...document.querySelectorAll('#log li')].map(l => l.textContent)"),
        json!([
            "p1: place at=a1",
            "p2: place at=b2",
            "p1: place at=d1",
            "p2: place at=d2",
            "p1: place at=g1 take=d2"
        ])
    );
    for (space, men) in [("a1", 1), ("d1", 1), ("g1", 1), ("b2", 1), ("d2", 0)] {
        assert_eq!(
            b.js(&format!(
                "return document.querySelectorAll('.space[data-value=\"{space}\"] .token').length"
            )),
            json!(men),
            "{space}"
        );
    }
}

// Issue 38: an action of two spaces is played piece first, then where it goes, the legal
// targets highlighted at each step. In Breakthrough (`advance from to`) only p1's pawns that
// can move are targets at first (row 2: row 1 is blocked), not the cells they may go to; after
// b2, the three cells ahead of it.
#[test]
fn a_piece_is_moved_by_clicking_it_then_where_it_goes() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let text =
        std::fs::read_to_string(root().join("rules/classic/breakthrough.rules")).expect("readable");
    let (_server, b) = open("breakthrough.rules", &text);
    let targets =
        "return [...document.querySelectorAll('.space.target')].map(s => s.dataset.value).sort()";
    b.wait(
        "the pawns to move",
        "return document.querySelectorAll('.space.target').length === 8",
    );
    assert_eq!(
        b.js(targets),
        json!(["a2", "b2", "c2", "d2", "e2", "f2", "g2", "h2"])
    );
    play(&b, "b2");
    b.wait(
        "where b2 may go",
        "return document.querySelectorAll('.space.target').length === 3",
    );
    assert_eq!(b.js(targets), json!(["a3", "b3", "c3"]));
    play(&b, "c3");
    b.wait(
        "the move and the agent's answer",
        "return document.querySelectorAll('#log li').length === 2",
    );
    assert_eq!(
        b.js("return document.querySelector('#log li').textContent"),
        json!("p1: advance from=b2 to=c3")
    );
    // p1's pawn left b2 for c3: its disc (the cells' rank and file, which only setup writes,
    // are in the tooltip, not drawn).
    assert_eq!(
        b.js("return ['b2', 'c3'].map(c => document.querySelectorAll(`.space[data-value=\"${c}\"] .token`).length)"),
        json!([0, 1])
    );
    assert_eq!(
        b.js("return document.querySelector('.space[data-value=\"c3\"] .token').dataset.seat"),
        json!("0")
    );
}

const HANDS: &str = r#"game "Hands"
players 2
component Card { rank: int }
zone deck: Card hidden
zone hand[Player]: Card owner
components Card in deck { "c{rank}" for r in 1..30 { rank = r } }
setup { shuffle deck  for p in players { deal 8 from deck to hand[p] } }
action play(c in hand[me]) { move c to deck  if count(hand[me]) == 0 { win me } }
flow { repeat { for p in players { turn p { choose { play } } } } }
"#;

#[test]
fn another_seats_hand_shows_backs_only() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (_server, b) = open("hands.rules", HANDS);
    let zone = |z: &str, what: &str| {
        format!(
            "document.querySelector('.zone[data-zone=\"{z}\"]').querySelectorAll('{what}').length"
        )
    };
    b.wait(
        "the hands",
        &format!(
            "return document.querySelector('.zone[data-zone=\"hand[p2]\"]') !== null && {} === 8",
            zone("hand[p1]", ".card:not(.back)")
        ),
    );
    assert_eq!(
        b.js(&format!("return {}", zone("hand[p2]", ".card.back"))),
        json!(8)
    );
    assert_eq!(
        b.js(&format!("return {}", zone("hand[p2]", ".card:not(.back)"))),
        json!(0)
    );
    // p1's own hand is drawn first (the rules declare the deck first), then the others.
    assert_eq!(
        b.js("return [...document.querySelectorAll('.zone')].map(z => z.dataset.zone)"),
        json!(["hand[p1]", "deck", "hand[p2]"])
    );
    // The cards of p1's hand are clickable actions; the deck is a pile of backs.
    assert_eq!(
        b.js(&format!("return {}", zone("hand[p1]", ".card.target"))),
        json!(8)
    );
    assert_eq!(
        b.js(&format!("return {}", zone("deck", ".card:not(.back)"))),
        json!(0)
    );
    // What the page received holds no card of p2's hand, not only what it drew.
    let hidden = b.js(
        "const r = new XMLHttpRequest(); r.open('GET', '/api/seat/0', false); \
         r.setRequestHeader('X-Rulebook-Token', TOKEN); r.send(); \
         const p = JSON.parse(r.responseText); \
         return p.view.zones.find(z => z.zone === 'hand[p2]').visible.length + \
                p.scene.zones.find(z => z.zone === 'hand[p2]').cards.length",
    );
    assert_eq!(hidden, json!(0));
    b.screenshot("web-hands.png");
    // Playing a card by clicking it: p1's hand shrinks (p2, an agent, plays at once).
    b.click(".zone[data-zone=\"hand[p1]\"] .card.target");
    b.wait(
        "p1 played",
        &format!(
            "return {} === 7 && {} === 7",
            zone("hand[p1]", ".card"),
            zone("hand[p2]", ".card.back")
        ),
    );
}

#[test]
fn an_edit_of_the_rules_file_shows_its_diagnostic_and_restarts_the_match() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let text = tic_tac_toe();
    let file = scratch("edit.rules", &text);
    let (_server, url) = serve(&file);
    let b = Browser::start();
    b.go(&url);
    b.wait(
        "the board",
        "return document.querySelectorAll('.space').length === 9",
    );
    play(&b, "b2");
    b.wait(
        "an agent's answer",
        "return document.querySelectorAll('.space .token').length === 2",
    );
    // An unknown name in the guard of line 11.
    assert!(text.contains("mark[cell] == none"));
    std::fs::write(
        &file,
        text.replace("mark[cell] == none", "mark[cel] == none"),
    )
    .expect("edits");
    b.wait(
        "the diagnostic",
        "return document.getElementById('problems').textContent.includes('line 11, column')",
    );
    let problem = b.js("return document.querySelector('#problems .problem').textContent");
    assert!(
        problem
            .as_str()
            .is_some_and(|p| p.contains("error") && p.contains("cel")),
        "{problem}"
    );
    assert_eq!(
        b.js("return document.querySelectorAll('.space').length"),
        json!(0)
    );
    b.screenshot("web-diagnostic.png");
    // Fixed again: a new match, the board empty.
    std::fs::write(&file, &text).expect("edits");
    b.wait(
        "the new match",
        "return document.getElementById('problems').hidden && document.querySelectorAll('.space').length === 9 \
         && document.querySelectorAll('.space .token').length === 0",
    );
}

/// Every `.rules` file of a folder, sorted.
fn rules_in(dir: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .expect("readable")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "rules"))
        .collect();
    out.sort();
    out
}

/// What is wrong with the page's drawing, as a list of sentences (empty: nothing): a script
/// error (caught since the page opened); a space outside the room left of the side panel,
/// outside the window or outside its board's picture; two cells over each other (squares
/// that intersect; hexagons or points whose centres are closer than their width); something
/// drawn on a space (a disc, a label, its name) outside its cell (a point's cell: the square
/// of half the distance to its nearest space on each side); a card whose text is wider than
/// the card; the page wider than the window.
const LAYOUT_FAULTS: &str = r#"
const faults = [...(window.__errors || [])].map(e => 'script error: ' + e);
const side = document.querySelector('aside').getBoundingClientRect();
const room = Math.min(document.documentElement.clientWidth, side.left);
const eps = 0.75;
const inside = (a, b) => a.left >= b.left - eps && a.right <= b.right + eps && a.top >= b.top - eps && a.bottom <= b.bottom + eps;
for (const board of document.querySelectorAll('svg.board')) {
  const br = board.getBoundingClientRect();
  const spaces = [...board.querySelectorAll('.space')];
  const shapes = spaces.map(s => s.querySelector('rect, polygon.cell, circle.spot'));
  const rects = shapes.map(s => s.getBoundingClientRect());
  const c = rects.map(r => [r.left + r.width / 2, r.top + r.height / 2]);
  const near = rects.map(() => Infinity);
  for (let i = 0; i < rects.length; i++) {
    const name = spaces[i].dataset.value, r = rects[i];
    if (r.left < -eps || r.right > room + eps) faults.push(`${name} is outside the room beside the side panel`);
    if (!inside(r, br)) faults.push(`${name} is outside its board`);
    for (let j = 0; j < i; j++) {
      const d = Math.hypot(c[i][0] - c[j][0], c[i][1] - c[j][1]);
      near[i] = Math.min(near[i], d); near[j] = Math.min(near[j], d);
      const o = rects[j];
      const over = shapes[i].tagName === 'rect'
        ? Math.max(0, Math.min(r.right, o.right) - Math.max(r.left, o.left)) * Math.max(0, Math.min(r.bottom, o.bottom) - Math.max(r.top, o.top)) > 1
        : d < 0.98 * Math.min(r.width, o.width);
      if (over) faults.push(`${name} and ${spaces[j].dataset.value} overlap`);
    }
  }
  spaces.forEach((s, i) => {
    let cell = rects[i];
    if (shapes[i].tagName === 'circle') {
      const h = Math.max(cell.width / 2, near[i] === Infinity ? cell.width : near[i] / 2);
      cell = { left: c[i][0] - h, right: c[i][0] + h, top: c[i][1] - h, bottom: c[i][1] + h };
    }
    for (const e of s.querySelectorAll('text, circle.disc')) {
      const r = e.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (!inside(r, cell)) faults.push(`${s.dataset.value}: "${e.textContent}" overflows its cell`);
    }
  });
}
for (const card of document.querySelectorAll('.card')) {
  if (card.scrollWidth > card.clientWidth + 1) faults.push(`card ${card.dataset.value} overflows`);
}
if (document.documentElement.scrollWidth > document.documentElement.clientWidth + 1) faults.push('the page is wider than the window');
return faults;
"#;

/// Records the page's script errors (uncaught, rejected promises, `console.error`) in
/// `window.__errors` from the start of every document the browser opens.
fn catch_errors(b: &Browser) {
    let r = b.cmd(
        "POST",
        "/goog/cdp/execute",
        Some(json!({"cmd": "Page.addScriptToEvaluateOnNewDocument", "params": {"source":
            "window.__errors = []; \
             window.addEventListener('error', e => window.__errors.push(String(e.message))); \
             window.addEventListener('unhandledrejection', e => window.__errors.push(String(e.reason))); \
             const ce = console.error; console.error = (...a) => { window.__errors.push(a.join(' ')); ce(...a); };"}})),
    );
    assert!(r.get("identifier").is_some(), "the error catcher: {r}");
}

/// Takes up to `n` decisions through the page's own API (the seat shown, the legal action at
/// a varying place of its list; agents answer for the others), none begun after `ms`
/// milliseconds (a page that derives its log slowly gets fewer), then redraws the page.
/// Returns how many were taken.
fn advance(b: &Browser, n: usize, ms: u64) -> u64 {
    let r = b.cmd(
        "POST",
        "/execute/async",
        Some(json!({"script": format!(
            "const done = arguments[arguments.length - 1]; (async () => {{ \
               let k = 0; const t0 = performance.now(); \
               for (let i = 0; i < {n} && performance.now() - t0 < {ms}; i++) {{ \
                 await refresh(true); \
                 if (!page || page.view.over || page.legal.length === 0 || seat === null) break; \
                 const a = page.legal[(i * 7 + 3) % page.legal.length]; \
                 const r = await api(`/api/seat/${{seat}}/apply`, {{ action: a.text }}); \
                 if (r.error) {{ window.__errors.push('apply: ' + r.error.message); break; }} \
                 k++; }} \
               await refresh(true); done(k); }})().catch(e => done(String(e)));"), "args": []})),
    );
    r.as_u64().unwrap_or_else(|| panic!("advancing: {r}"))
}

// Issue 38: every rules file of the repository (enumerated from rules/ and rules/classic/)
// loads on the page without a script error, and its board is drawn inside the room beside
// the side panel, inside its picture, no cell over another and nothing drawn on a space
// outside its cell (bounding boxes as the browser lays them out), at the start and again
// after some decisions. One browser for all files.
#[test]
fn every_rules_file_is_drawn_inside_its_cells() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut files = rules_in("rules");
    files.extend(rules_in("rules/classic"));
    assert!(files.len() >= 30, "{files:?}");
    let b = Browser::start();
    catch_errors(&b);
    let t = Instant::now();
    let mut faults = Vec::new();
    for f in &files {
        let name = f.file_name().and_then(|n| n.to_str()).expect("a name");
        let (_server, url) = serve(f);
        b.go(&url);
        b.wait(
            &format!("{name} drawn"),
            "return typeof page !== 'undefined' && page !== null && info !== null \
             && document.querySelectorAll('.space').length === info.boards.reduce((n, b) => n + b.spaces.length, 0) \
             && document.getElementById('status').textContent.includes('you are')",
        );
        for when in ["at the start", "after some decisions"] {
            if when != "at the start" {
                assert!(advance(&b, 10, 1500) > 0, "{name}: no decision taken");
            }
            let found = b.js(LAYOUT_FAULTS);
            let found = found
                .as_array()
                .unwrap_or_else(|| panic!("{name}: {found}"));
            faults.extend(found.iter().map(|x| format!("{name} {when}: {x}")));
        }
        let shot = match name {
            "english_draughts.rules" => Some("web-draughts.png"),
            "atlantis_omni.rules" => Some("web-omni.png"),
            "chess.rules" => Some("web-chess.png"),
            _ => None,
        };
        if let Some(shot) = shot {
            b.screenshot(shot);
        }
    }
    eprintln!("{} files in {:?}", files.len(), t.elapsed());
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

/// Plays seat p1 to the end by clicking, each time, the first legal target the page marks
/// (`css`) once the page waits for p1; the agents answer for the other seats. Returns how
/// many clicks it took.
fn click_to_the_end(b: &Browser, css: &str) -> usize {
    let mut clicks = 0;
    loop {
        b.wait(
            "p1's turn or the end",
            &format!(
                "return document.getElementById('status').textContent.includes('game over') \
                 || document.querySelector('{css}') !== null"
            ),
        );
        if b.js("return document.getElementById('status').textContent.includes('game over')")
            == json!(true)
        {
            return clicks;
        }
        let decisions = b.js("return page.decisions");
        b.click(css);
        clicks += 1;
        assert!(clicks < 300, "the game does not end");
        b.wait(
            "the click's decision",
            &format!("return page !== null && page.decisions !== {decisions}"),
        );
    }
}

/// The log's entries of seat p1, as the page shows them.
fn p1_log(b: &Browser) -> Vec<String> {
    let log = b.js("return [...document.querySelectorAll('#log li')].map(l => l.textContent)");
    log.as_array()
        .expect("a log")
        .iter()
        .filter_map(|l| l.as_str())
        .filter(|l| l.starts_with("p1: "))
        .map(str::to_string)
        .collect()
}

// Issue 38: a whole game on a ring board (Kalah's fourteen pits) played by clicking its
// spaces: each of p1's moves is a click on a pit the page marks, the agent answering, until
// the game is over; every decision of p1 in the log is a sowing from a pit clicked.
#[test]
fn a_whole_game_on_a_ring_is_played_by_clicking_its_pits() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let text = std::fs::read_to_string(root().join("rules/classic/kalah.rules")).expect("readable");
    let (_server, b) = open("kalah.rules", &text);
    b.wait(
        "the ring",
        "return document.querySelectorAll('.space circle.spot').length === 14",
    );
    assert_eq!(layout_check(&b, ".space circle.spot"), json!([14, true, 0]));
    // Four seeds in each of the twelve pits, drawn as a number; the stores empty.
    assert_eq!(
        b.js("return ['pit1', 'pit6', 'pit7', 'pit13'].map(p => document.querySelector(`.space[data-value=\"${p}\"] .token`)?.textContent)"),
        json!(["4", "4", "0", "4"])
    );
    let clicks = click_to_the_end(&b, ".space.target");
    let mine = p1_log(&b);
    assert!(clicks >= 4, "{clicks} clicks");
    assert_eq!(mine.len(), clicks, "{mine:?}");
    assert!(
        mine.iter().all(|l| l.starts_with("p1: sow from=pit")),
        "{mine:?}"
    );
    b.screenshot("web-kalah.png");
}

// Issue 38: a game with no board (Goofspiel: hands of cards) played to its end by clicking
// cards: each turn p1 clicks a card of its hand, which the page marks (not p2's cards of the
// same names), the agent choosing at the same time; the thirteenth turn holds no choice.
#[test]
fn a_whole_card_game_is_played_by_clicking_the_cards() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let text =
        std::fs::read_to_string(root().join("rules/classic/goofspiel.rules")).expect("readable");
    let (_server, b) = open("goofspiel.rules", &text);
    b.wait(
        "the hand",
        "return document.querySelectorAll('.zone[data-zone=\"hand[p1]\"] .card.target').length === 13",
    );
    assert_eq!(
        b.js("return document.querySelectorAll('svg.board').length"),
        json!(0)
    );
    // p2's cards bear the same names ("1" .. "13") but are not p1's to play: not marked.
    assert_eq!(
        b.js(
            "return document.querySelectorAll('.zone[data-zone=\"hand[p2]\"] .card.target').length"
        ),
        json!(0)
    );
    b.screenshot("web-goofspiel.png");
    let clicks = click_to_the_end(&b, ".zone[data-zone=\"hand[p1]\"] .card.target");
    assert_eq!(clicks, 12);
    assert_eq!(p1_log(&b).len(), 12, "{:?}", p1_log(&b));
    assert_eq!(
        b.js("return document.querySelectorAll('.zone[data-zone=\"hand[p1]\"] .card').length"),
        json!(0)
    );
}

// Issue 38: a disc is dropped by clicking its column. In Connect Four (`drop column`, an enum
// of the column letters) every space of a column that can take a disc is a target; clicking
// the top space a6 drops p1's disc to the bottom, a1; a whole hot-seat game is played by
// clicking spaces high in the columns, p1's four in column a winning, highlighted at the end.
#[test]
fn a_disc_is_dropped_by_clicking_its_column() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let text =
        std::fs::read_to_string(root().join("rules/classic/connect_four.rules")).expect("readable");
    let (_server, b) = open("connect-four.rules", &text);
    b.wait(
        "the columns",
        "return document.querySelectorAll('.space.target').length === 42",
    );
    hot_seat(&b);
    let moves = ["a6", "b6", "a5", "b5", "a6", "b4", "a3"];
    for (i, m) in moves.iter().enumerate() {
        if i > 0 {
            pass_device(&b);
        }
        play(&b, m);
    }
    b.wait(
        "the end",
        "return document.getElementById('status').textContent.includes('game over: p1 wins')",
    );
    let discs = b.js(
        "return Object.fromEntries([...document.querySelectorAll('.space')] \
         .filter(s => s.querySelector('.token[data-seat]')) \
         .map(s => [s.dataset.value, Number(s.querySelector('.token[data-seat]').dataset.seat)]))",
    );
    assert_eq!(
        discs,
        json!({"a1": 0, "a2": 0, "a3": 0, "a4": 0, "b1": 1, "b2": 1, "b3": 1})
    );
    // The four that won, highlighted.
    assert_eq!(
        b.js("return [...document.querySelectorAll('.space.won')].map(s => s.dataset.value)"),
        json!(["a1", "a2", "a3", "a4"])
    );
    b.screenshot("web-connect-four.png");
    assert_eq!(
        b.js(
            "return [...document.querySelectorAll('#log li')].map(l => l.textContent).slice(0, 2)"
        ),
        json!(["p1: drop column=a", "p2: drop column=b"])
    );
}

// Issue 38: square boards checkered when the rules use one colour of squares. English
// draughts sets its men out on the dark squares: the board is checkered, a1 dark and b1 light,
// 32 dark squares, every man on one; Breakthrough's pawns stand on both colours: plain.
#[test]
fn a_board_played_on_one_colour_of_squares_is_checkered() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let b = Browser::start();
    for (file, dark) in [("english_draughts.rules", 32), ("breakthrough.rules", 0)] {
        let (_server, url) = serve(&root().join("rules/classic").join(file));
        b.go(&url);
        b.wait(
            file,
            "return document.querySelectorAll('.space').length === 64 && page !== null",
        );
        assert_eq!(
            b.js("return document.querySelectorAll('.space.dark').length"),
            json!(dark),
            "{file}"
        );
        if dark > 0 {
            assert_eq!(
                b.js("return ['a1', 'b1'].map(c => document.querySelector(`.space[data-value=\"${c}\"]`).classList.contains('dark'))"),
                json!([true, false])
            );
            assert_eq!(
                b.js(
                    "return [...document.querySelectorAll('.space .token[data-seat]')] \
                      .filter(t => !t.closest('.space').classList.contains('dark')).length"
                ),
                json!(0)
            );
        }
    }
}
