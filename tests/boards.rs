//! Boards and moves of several steps, through whole games: English draughts' perft from the
//! start (the published counts), Hex on small boards against a brute-force count written here,
//! and the rewritten Breakthrough and Connect Four against the files they rewrite. Deeper counts
//! that take long are in tests/long/perft.sh.

use rulebook::agents::RandomAgent;
use rulebook::engine::{Actor, ChanceMode, Config};
use rulebook::Game;

fn load(name: &str, text: &str) -> Game {
    let loaded = rulebook::load(name, text);
    let problems: Vec<String> = loaded
        .diagnostics
        .problems
        .iter()
        .map(|p| rulebook::render::plain(p))
        .collect();
    assert!(problems.is_empty(), "{name}:\n{}", problems.join("\n"));
    loaded.game.expect("valid rules")
}

fn game(path: &str) -> Game {
    load(path, &std::fs::read_to_string(path).expect("readable"))
}

fn config(variant: Option<&str>) -> Config {
    Config {
        players: 2,
        variant: variant.map(String::from),
        seed: 0,
        chance: ChanceMode::External,
        ..Config::default()
    }
}

/// English draughts from the start: 1, 7, 49, 302, 1469, 7361, 36768 (perft to depth 6; a
/// multi-jump is one move). Depths 7 and 8 (179,740 and 845,931) are in tests/long/perft.sh.
#[test]
fn english_draughts_perft() {
    let g = game("rules/classic/english_draughts.rules");
    let c = rulebook::run::count(&g, &config(None), 6).expect("walks");
    assert_eq!(c.nodes, vec![1, 7, 49, 302, 1469, 7361, 36768]);
}

/// Hex on a `w` x `h` rhombus, counted by brute force: nodes per depth, finished games and
/// wins of the first player. The rules: cells (c, r) with neighbours (c±1, r), (c, r±1),
/// (c+1, r-1), (c-1, r+1); the first player joins rows 1 and h, the second columns 1 and w.
fn hex_brute_force(w: usize, h: usize, depth: usize) -> (Vec<u64>, u64, u64) {
    fn won(board: &[u8], w: usize, h: usize, p: u8) -> bool {
        let mut seen = vec![false; w * h];
        let mut stack: Vec<usize> = (0..w * h)
            .filter(|&i| board[i] == p && if p == 1 { i / w == 0 } else { i % w == 0 })
            .collect();
        for &i in &stack {
            seen[i] = true;
        }
        while let Some(i) = stack.pop() {
            let (c, r) = ((i % w) as i64, (i / w) as i64);
            if (p == 1 && r as usize == h - 1) || (p == 2 && c as usize == w - 1) {
                return true;
            }
            for (dc, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)] {
                let (x, y) = (c + dc, r + dr);
                if x >= 0 && y >= 0 && (x as usize) < w && (y as usize) < h {
                    let j = y as usize * w + x as usize;
                    if board[j] == p && !seen[j] {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        false
    }
    fn walk(b: &mut [u8], w: usize, h: usize, d: usize, out: &mut (Vec<u64>, u64, u64)) {
        if d + 1 >= out.0.len() {
            return;
        }
        let p = if d % 2 == 0 { 1 } else { 2 };
        for i in 0..w * h {
            if b[i] != 0 {
                continue;
            }
            b[i] = p;
            out.0[d + 1] += 1;
            if won(b, w, h, p) {
                out.1 += 1;
                out.2 += u64::from(p == 1);
            } else {
                walk(b, w, h, d + 1, out);
            }
            b[i] = 0;
        }
    }
    let mut out = (vec![0; depth + 1], 0, 0);
    out.0[0] = 1;
    walk(&mut vec![0; w * h], w, h, 0, &mut out);
    out
}

/// Hex on 2 x 2, 3 x 2, 3 x 3 boards (the whole game tree) and on 4 x 4 (to depth 4): the
/// rules file, with its size changed, counts what the brute force counts.
#[test]
fn hex_small_boards_match_a_brute_force_count() {
    let text = std::fs::read_to_string("rules/classic/hex.rules").expect("readable");
    for (w, h, depth) in [(2, 2, 4), (3, 2, 6), (3, 3, 9), (4, 4, 4)] {
        assert!(text.contains("board board = hex(11, 11)") && text.contains("const SIZE = 11"));
        let small = text
            .replace(
                "board board = hex(11, 11)",
                &format!("board board = hex({w}, {h})"),
            )
            .replace("const SIZE = 11", &format!("const SIZE = {h}"));
        // The second player's edges are the columns 1 and w.
        let small = small.replace("else col(s) == SIZE", &format!("else col(s) == {w}"));
        let g = load("hex_small.rules", &small);
        let c = rulebook::run::count(&g, &config(None), depth as u32).expect("walks");
        let (nodes, finished, first) = hex_brute_force(w, h, depth);
        assert_eq!(c.nodes, nodes, "hex({w}, {h})");
        assert_eq!(c.finished, finished, "hex({w}, {h})");
        assert_eq!(
            c.outcomes.get("p1").copied().unwrap_or(0),
            first,
            "hex({w}, {h})"
        );
        assert_eq!(c.outcomes.get("none"), None, "hex has no draws");
    }
}

/// The pie rule adds one option, `swap`, to the second player's first move only.
#[test]
fn hex_swap_variant_adds_the_pie_rule() {
    let g = game("rules/classic/hex.rules");
    let plain = rulebook::run::count(&g, &config(None), 2).expect("walks");
    let swap = rulebook::run::count(&g, &config(Some("swap")), 2).expect("walks");
    assert_eq!(plain.nodes, vec![1, 121, 121 * 120]);
    assert_eq!(swap.nodes, vec![1, 121, 121 * 121]);
}

/// The geometric rewrites play the same games as the files they rewrite: equal game trees
/// to a depth.
#[test]
fn rewrites_count_like_the_originals() {
    for (old, new, depth) in [
        (
            "rules/classic/breakthrough.rules",
            "rules/classic/breakthrough_geometry.rules",
            3,
        ),
        (
            "rules/classic/connect_four.rules",
            "rules/classic/connect_four_geometry.rules",
            5,
        ),
    ] {
        let a = rulebook::run::count(&game(old), &config(None), depth).expect("walks");
        let b = rulebook::run::count(&game(new), &config(None), depth).expect("walks");
        assert_eq!(a, b, "{new} against {old}");
    }
}

/// The geometric rewrites and the files they rewrite offer the same actions, as canonical
/// texts in the same order, at every decision of 200 random games, and end them alike.
#[test]
fn rewrites_play_like_the_originals() {
    for (old, new) in [
        (
            "rules/classic/breakthrough.rules",
            "rules/classic/breakthrough_geometry.rules",
        ),
        (
            "rules/classic/connect_four.rules",
            "rules/classic/connect_four_geometry.rules",
        ),
    ] {
        let (a, b) = (game(old), game(new));
        let (mut abuf, mut bbuf) = (Vec::new(), Vec::new());
        for seed in 0..200 {
            let cfg = Config {
                seed,
                ..config(None)
            };
            let (mut sa, mut sb) = (
                a.start(&cfg).expect("starts"),
                b.start(&cfg).expect("starts"),
            );
            let mut agent = RandomAgent::new(seed);
            let mut step = 0;
            while a.actor(&sa) != Actor::Nobody {
                let at = format!("{new}: game {seed}, decision {step}");
                assert_eq!(a.actor(&sa), b.actor(&sb), "{at}: who moves");
                a.legal(&sa, &mut abuf).expect("legal");
                b.legal(&sb, &mut bbuf).expect("legal");
                let ta: Vec<String> = abuf.iter().map(|x| a.action_text(&sa, x)).collect();
                let tb: Vec<String> = bbuf.iter().map(|x| b.action_text(&sb, x)).collect();
                assert_eq!(ta, tb, "{at}: {old} (left) and {new} (right)");
                let pick = agent.pick(&abuf).expect("a legal action");
                let k = abuf.iter().position(|x| *x == pick).expect("listed");
                a.apply(&mut sa, &pick).expect("applies");
                b.apply(&mut sb, &bbuf[k]).expect("applies");
                step += 1;
            }
            assert_eq!(b.actor(&sb), Actor::Nobody, "{new}: game {seed} is over");
            let (oa, ob) = (sa.outcome().expect("over"), sb.outcome().expect("over"));
            assert_eq!(oa.winners, ob.winners, "{new}: game {seed}: winners");
        }
    }
}
