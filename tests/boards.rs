//! Boards and moves of several steps, through whole games: English draughts' perft from the
//! start (the published counts), Hex on small boards against a brute-force count written here,
//! and the rewritten Breakthrough and Connect Four against the files they rewrite. Deeper counts
//! that take long are in tests/long/perft.sh.

use rulebook::agents::RandomAgent;
use rulebook::engine::{Actor, ChanceMode, Config, View};
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

/// The value of variable `n` as the view shows it.
fn view_var(view: &View, n: &str) -> String {
    view.vars
        .iter()
        .find(|(k, _)| k == n)
        .map(|(_, v)| v.clone())
        .expect("a variable")
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
        let p = if d.is_multiple_of(2) { 1 } else { 2 };
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

/// `groups(s in board where c)` (reference 6.1) on random patterns of a 6 x 5 grid, against a
/// flood fill written here: one element per maximal group of marked squares, its first square
/// in board order, the groups in that order; `group(...)` from each gives the whole group, so
/// the sizes add up to the marked squares. Also on a hex board, whose neighbours differ.
#[test]
fn groups_gives_each_maximal_group_once_by_its_first_space() {
    for (shape, w, h, hex) in [
        ("grid(6, 5)", 6usize, 5usize, false),
        ("hex(4, 4)", 4, 4, true),
    ] {
        let mut seed = 12345u64;
        for round in 0..12 {
            let mut marked = vec![false; w * h];
            for m in marked.iter_mut() {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                *m = (seed >> 33) % 100 < 35 + round * 3;
            }
            let name = |i: usize| format!("{}{}", (b'a' + (i % w) as u8) as char, i / w + 1);
            let mut setup = String::new();
            for (i, m) in marked.iter().enumerate() {
                if *m {
                    setup.push_str(&format!("mark[{}] = true\n", name(i)));
                }
            }
            let text = format!(
                "game \"Groups\"\nplayers 2\nboard b = {shape}\nvar mark[b]: bool = false\n\
                 var order[b]: int = -1\nvar size[b]: int = 0\nvar total: int = 0\n\
                 setup {{\n{setup}\nlet k = 0\n\
                 for g in groups(s in b where mark[s]) {{\n order[g] = k\n k += 1\n\
                 size[g] = count(t in group(u in b, g where mark[u]))\n}}\n\
                 total = sum(g in groups(s in b where mark[s]): size[g])\n}}\n\
                 action pass() {{ end }}\nflow {{ turn seat(0) {{ choose {{ pass }} }} }}\n"
            );
            let g = load("groups.rules", &text);
            let st = g.start(&config(None)).expect("starts");
            let view = g.view(&st, None);
            let var = |n: String| {
                view.vars
                    .iter()
                    .find(|(k, _)| *k == n)
                    .map(|(_, v)| v.parse::<i64>().expect("a number"))
                    .expect("a variable")
            };
            // The flood fill: neighbours on the grid are orthogonal; on the hex board,
            // (col, row) also touches (col+1, row-1) and (col-1, row+1).
            let mut comp = vec![usize::MAX; w * h];
            let mut firsts = Vec::new();
            for start in 0..w * h {
                if !marked[start] || comp[start] != usize::MAX {
                    continue;
                }
                let (id, mut todo, mut n) = (firsts.len(), vec![start], 0);
                comp[start] = id;
                while let Some(i) = todo.pop() {
                    n += 1;
                    let (c, r) = ((i % w) as i64, (i / w) as i64);
                    let mut nbs = vec![(c + 1, r), (c - 1, r), (c, r + 1), (c, r - 1)];
                    if hex {
                        nbs.extend([(c + 1, r - 1), (c - 1, r + 1)]);
                    }
                    for (x, y) in nbs {
                        if x < 0 || y < 0 || x >= w as i64 || y >= h as i64 {
                            continue;
                        }
                        let j = y as usize * w + x as usize;
                        if marked[j] && comp[j] == usize::MAX {
                            comp[j] = id;
                            todo.push(j);
                        }
                    }
                }
                firsts.push((start, n));
            }
            for i in 0..w * h {
                let want = firsts
                    .iter()
                    .position(|f| f.0 == i)
                    .map_or(-1, |k| k as i64);
                assert_eq!(
                    var(format!("order[{}]", name(i))),
                    want,
                    "{shape} round {round}: {}",
                    name(i)
                );
                if let Some((_, n)) = firsts.iter().find(|f| f.0 == i) {
                    assert_eq!(var(format!("size[{}]", name(i))), *n as i64);
                }
            }
            let marked_count = marked.iter().filter(|m| **m).count() as i64;
            assert_eq!(var("total".into()), marked_count, "{shape} round {round}");
        }
    }
}

/// The same `group(...)` (reference 6.1) read again in one run of the flow gives the group of
/// the game as it is then: after a write to what its condition reads, and after a change of
/// a local its condition reads with nothing written to the game in between.
#[test]
fn a_group_read_again_sees_what_changed_since() {
    let text = "game \"Again\"\nplayers 2\nboard b = grid(3, 1)\nvar mark[b]: bool = false\n\
                var written: int = 0\nvar local: int = 0\n\
                action pass() { end }\n\
                flow {\n mark[a1] = true\n let acc = 0\n\
                 for k in 1..2 {\n  mark[b1] = k == 1\n\
                  acc = acc * 10 + count(t in group(u in b, a1 where mark[u]))\n }\n\
                 written = acc\n acc = 0\n\
                 for w in [true, false] {\n\
                  acc = acc * 10 + count(t in group(u in b, c1 where mark[u] == w))\n }\n\
                 local = acc\n\
                 turn seat(0) { choose { pass } }\n}\n";
    let g = load("again.rules", text);
    let st = g.start(&config(None)).expect("starts");
    let view = g.view(&st, None);
    let var = |n: &str| view_var(&view, n);
    // a1 b1 marked: a group of 2, then b1 unmarked: a1 alone (21). From c1, unmarked: no
    // group of marked squares (0), then the unmarked squares b1 c1 (2).
    assert_eq!([var("written"), var("local")], ["21", "2"]);
}

/// `group(...)` (reference 6.1) whose condition compares the top component's field of the
/// walked space's zone with values fixed for the walk (a local, a literal; `none` on an empty
/// square): each space joins by the value it shows, for every value of the local in turn.
#[test]
fn a_group_by_the_face_on_top_follows_the_compared_values() {
    let text = "game \"Faces\"\nplayers 2\nenum Face { red, blue, wild }\n\
                component Die { face: Face }\nboard b = grid(5, 1)\nzone pile: Die public\n\
                zone cell[b]: Die public\ncomponents Die in pile { \"d\" for n in 1..4 { } }\n\
                var same: int = 0\nvar differ: int = 0\n\
                def face(s: b) = if empty(cell[s]) then none else top(cell[s]).face\n\
                action pass() { end }\n\
                flow {\n\
                 for s in [a1, b1, c1, d1] {\n  let d = top(pile)\n\
                  d.face = if s == b1 then wild else if s == c1 then blue else red\n\
                  move d to cell[s]\n }\n\
                 let acc = 0\n\
                 for f in [red, blue] {\n  for s in [a1, c1] {\n\
                   acc = acc * 10 + count(t in group(x in b, s where face(x) == f or face(x) == wild))\n\
                 }\n }\n\
                 same = acc\n acc = 0\n\
                 for s in [a1, e1] {\n\
                  acc = acc * 10 + count(t in group(x in b, s where face(x) != blue))\n }\n\
                 differ = acc\n\
                 turn seat(0) { choose { pass } }\n}\n";
    let g = load("faces.rules", text);
    let st = g.start(&config(None)).expect("starts");
    let view = g.view(&st, None);
    let var = |n: &str| view_var(&view, n);
    // a1 red, b1 wild, c1 blue, d1 red, e1 empty. Red or wild: from a1 the group a1 b1 (2),
    // from c1 none (0); blue or wild: from a1 none (0), from c1 c1 b1 (2). Not blue: from
    // a1 a1 b1 (2), from e1 (empty, none) e1 d1 (2).
    assert_eq!([var("same"), var("differ")], ["2002", "22"]);
}

/// `group(...)` (reference 6.1) whose condition compares the walked space's value with a
/// loop's local (`col[x] == f or col[x] == wild`), counted for each of seven colours in turn
/// after every decision of random games that paint the squares: each count is the group a
/// flood fill written here finds, whatever colours were walked before, in this decision or
/// in earlier ones (more colours than the answers kept per set of compared values).
#[test]
fn a_group_counted_for_each_colour_in_turn_follows_the_painted_board() {
    let text = "game \"Colours\"\nplayers 2\nboard b = grid(5, 4)\n\
                enum Colour { c1, c2, c3, c4, c5, c6, c7, wild }\n\
                var col[b]: Colour = c1\nvar size[b]: int = 0\nvar turns: int = 0\n\
                action paint(s in b, c in Colour) { col[s] = c }\n\
                flow {\n repeat {\n  turn seat(0) { choose { paint } }\n\
                  turns += 1\n  if turns > 1000 { end }\n\
                  for s in b { size[s] = 0 }\n\
                  for f in Colour {\n   if f != wild {\n    for s in b {\n\
                     if col[s] == f {\n\
                      size[s] = count(t in group(x in b, s where col[x] == f or col[x] == wild))\n\
                     }\n    }\n   }\n  }\n }\n}\n";
    let g = load("colours.rules", text);
    let (w, h) = (5usize, 4usize);
    let name = |i: usize| format!("{}{}", (b'a' + (i % w) as u8) as char, i / w + 1);
    let mut buf = Vec::new();
    for seed in 0..6 {
        let cfg = Config {
            seed,
            ..config(None)
        };
        let mut st = g.start(&cfg).expect("starts");
        let mut agent = RandomAgent::new(seed);
        for step in 0..80 {
            g.legal(&st, &mut buf).expect("legal");
            let pick = agent.pick(&buf).expect("a legal action");
            g.apply(&mut st, &pick).expect("applies");
            let view = g.view(&st, None);
            let col: Vec<String> = (0..w * h)
                .map(|i| view_var(&view, &format!("col[{}]", name(i))))
                .collect();
            for s in 0..w * h {
                let want = if col[s] == "wild" {
                    0
                } else {
                    let joins = |i: usize| col[i] == col[s] || col[i] == "wild";
                    let mut seen = vec![false; w * h];
                    let mut todo = vec![s];
                    seen[s] = true;
                    while let Some(i) = todo.pop() {
                        let (c, r) = (i % w, i / w);
                        let mut nbs = Vec::new();
                        if c > 0 {
                            nbs.push(i - 1);
                        }
                        if c + 1 < w {
                            nbs.push(i + 1);
                        }
                        if r > 0 {
                            nbs.push(i - w);
                        }
                        if r + 1 < h {
                            nbs.push(i + w);
                        }
                        for j in nbs {
                            if !seen[j] && joins(j) {
                                seen[j] = true;
                                todo.push(j);
                            }
                        }
                    }
                    seen.iter().filter(|x| **x).count() as i64
                };
                let got = view_var(&view, &format!("size[{}]", name(s)));
                assert_eq!(
                    got.parse::<i64>().expect("a number"),
                    want,
                    "game {seed}, decision {step}: {}",
                    name(s)
                );
            }
        }
    }
}

/// `paths(...)` and `group(...)` (reference 6.1) on random patterns of an 8 x 8 grid and of a
/// 9 x 8 grid whose last column is closed (the same adjacency; boards of more than 64 spaces
/// are walked another way), and of the same two with column h closed as well (a 7 x 8
/// pattern), against a search written here: for every start, the ends of the
/// paths of exactly 3 steps through marked squares and the group of marked squares, each
/// through a condition read as one value (`mark[u] == true`), through a general one
/// (`mark[u]`) and through a zone's count with a part that reads no space (`empty(cell[u])
/// and go == true`, `count(cell[u]) < 1 and go == true`: tokens on the unmarked squares,
/// the marked squares' tokens put there and taken back, so that their zones are empty
/// again). Both boards spend the same work: the
/// smallest budget the setup runs in is the same.
#[test]
fn paths_and_groups_agree_with_a_search_on_boards_walked_either_way() {
    let conds = [
        "mark[u] == true",
        "mark[u]",
        "empty(cell[u]) and go == true",
        "count(cell[u]) < 1 and go == true",
    ];
    // Column h closed too: the 8 x 8 board walks its adjacency without the closed squares.
    let h_closed = " closed [h1, h2, h3, h4, h5, h6, h7, h8]";
    let i_closed = " closed [i1, i2, i3, i4, i5, i6, i7, i8]";
    let hi_closed = format!(
        "{}, i1, i2, i3, i4, i5, i6, i7, i8]",
        &h_closed[..h_closed.len() - 1]
    );
    let mut seed = 987654321u64;
    for round in 0..8 {
        let (w, h) = (8 - round % 2, 8usize);
        let boards = if w == 8 {
            [
                ("grid(8, 8)", String::new()),
                ("grid(9, 8)", i_closed.to_string()),
            ]
        } else {
            [
                ("grid(8, 8)", h_closed.to_string()),
                ("grid(9, 8)", hi_closed.clone()),
            ]
        };
        let mut marked = vec![false; w * h];
        for m in marked.iter_mut() {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            *m = (seed >> 33) % 100 < 40 + round as u64 * 5;
        }
        let name = |i: usize| format!("{}{}", (b'a' + (i % w) as u8) as char, i / w + 1);
        let nbs = |i: usize| {
            let (c, r) = ((i % w) as i64, (i / w) as i64);
            [(c + 1, r), (c - 1, r), (c, r + 1), (c, r - 1)]
                .into_iter()
                .filter(|&(x, y)| x >= 0 && y >= 0 && x < w as i64 && y < h as i64)
                .map(|(x, y)| y as usize * w + x as usize)
                .collect::<Vec<_>>()
        };
        // The search: ends of simple paths of 3 steps, and groups by flood fill.
        let mut ends = vec![Vec::new(); w * h];
        let mut groups = vec![Vec::new(); w * h];
        for (s, (e, gr)) in ends.iter_mut().zip(groups.iter_mut()).enumerate() {
            let mut found = vec![false; w * h];
            for a in nbs(s) {
                for b in nbs(a) {
                    for c in nbs(b) {
                        let path = [s, a, b, c];
                        let simple = (0..4).all(|i| (i + 1..4).all(|j| path[i] != path[j]));
                        if simple && marked[a] && marked[b] && marked[c] {
                            found[c] = true;
                        }
                    }
                }
            }
            *e = (0..w * h).filter(|&i| found[i]).collect();
            if marked[s] {
                let mut seen = vec![false; w * h];
                let mut todo = vec![s];
                seen[s] = true;
                while let Some(i) = todo.pop() {
                    for j in nbs(i) {
                        if marked[j] && !seen[j] {
                            seen[j] = true;
                            todo.push(j);
                        }
                    }
                }
                *gr = (0..w * h).filter(|&i| seen[i]).collect();
            }
        }
        let mut setup = String::new();
        for (i, m) in marked.iter().enumerate() {
            // A marked square's token comes and goes: its zone is empty again.
            setup.push_str(&format!("move top(pile) to cell[{}]\n", name(i)));
            if *m {
                setup.push_str(&format!("mark[{}] = true\n", name(i)));
                setup.push_str(&format!("move top(cell[{}]) to pile\n", name(i)));
            }
        }
        for cond in conds {
            let mut least = Vec::new();
            for (shape, closed) in &boards {
                let text = format!(
                    "game \"Walks\"\nplayers 2\nboard b = {shape}{closed}\ncomponent T {{ }}\n\
                     zone pile: T public\nzone cell[b]: T public\n\
                     components T in pile {{ \"t\" for n in 1..64 {{ }} }}\n\
                     var mark[b]: bool = false\nvar go: bool = true\nvar idx[b]: int = 0\n\
                     var ends[b]: int = 0\nvar ends_sq[b]: int = 0\n\
                     var size[b]: int = 0\nvar size_sq[b]: int = 0\n\
                     setup {{\n{setup}\nlet k = 0\nfor s in b {{\n idx[s] = k\n k += 1\n}}\n\
                     for s in b {{\n\
                      ends[s] = count(t in paths(u in b, s, 3 where {cond}))\n\
                      ends_sq[s] = sum(t in paths(u in b, s, 3 where {cond}): idx[t] * idx[t])\n\
                      size[s] = count(t in group(u in b, s where {cond}))\n\
                      size_sq[s] = sum(t in group(u in b, s where {cond}): idx[t] * idx[t])\n\
                     }}\n}}\n\
                     action pass() where go {{ end }}\n\
                     flow {{ turn seat(0) {{ choose {{ pass }} }} }}\n"
                );
                // The engine's own walks: their work is what is compared below (native code
                // counts its work per block of its own code, which a board that may close
                // spaces makes longer; its results are compared in tests/lir.rs and
                // tests/caches.rs).
                let mut g = load("walks.rules", &text);
                g.native = rulebook::lir::listing::off();
                let st = g.start(&config(None)).expect("starts");
                let view = g.view(&st, None);
                let var = |n: String| view_var(&view, &n).parse::<i64>().expect("a number");
                for s in 0..w * h {
                    let sq = |xs: &[usize]| xs.iter().map(|&i| (i * i) as i64).sum::<i64>();
                    let at = |v: &str| var(format!("{v}[{}]", name(s)));
                    let what = format!("{shape} {cond} round {round}: {}", name(s));
                    assert_eq!(at("ends"), ends[s].len() as i64, "{what}");
                    assert_eq!(at("ends_sq"), sq(&ends[s]), "{what}");
                    assert_eq!(at("size"), groups[s].len() as i64, "{what}");
                    assert_eq!(at("size_sq"), sq(&groups[s]), "{what}");
                }
                // The smallest budget the setup runs in.
                let runs = |fuel: u64| {
                    g.start(&Config {
                        fuel: Some(fuel),
                        ..config(None)
                    })
                    .is_ok()
                };
                let (mut lo, mut hi) = (1u64, 10_000_000u64);
                assert!(runs(hi) && !runs(lo));
                while hi - lo > 1 {
                    let mid = (lo + hi) / 2;
                    if runs(mid) {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                least.push(hi);
            }
            assert_eq!(
                least[0], least[1],
                "{cond} round {round}: the work of both boards"
            );
        }
    }
}

/// `count(t in paths(...))`, `count(t in group(...))` and `count(g in groups(...))`
/// (reference 6.1) give what `sum(t in ...: 1)` gives, which visits each element, and cost
/// the same work: the smallest budget the setup runs in is the same, and one unit less stops
/// both with the same error.
#[test]
fn counting_a_board_walk_costs_what_visiting_it_does() {
    let mut seed = 24681357u64;
    for round in 0..4u64 {
        let mut setup = String::new();
        for i in 0..36 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            if (seed >> 33) % 100 < 45 + round * 5 {
                let name = format!("{}{}", (b'a' + (i % 6) as u8) as char, i / 6 + 1);
                setup.push_str(&format!("mark[{name}] = true\n"));
            }
        }
        let mut seen = Vec::new();
        for form in ["count(t in {})", "sum(t in {}: 1)"] {
            let of = |walk: &str| form.replace("{}", walk);
            let text = format!(
                "game \"Counts\"\nplayers 2\nboard b = grid(6, 6)\n\
                 var mark[b]: bool = false\nvar total: int = 0\n\
                 setup {{\n{setup}\nfor s in b {{\n\
                  total = (total * 7 + {} * 3 + {}) % 1000003\n}}\n total = total + {}\n}}\n\
                 action pass() {{ end }}\nflow {{ turn seat(0) {{ choose {{ pass }} }} }}\n",
                of("paths(u in b, s, 2 where mark[u] == true)"),
                of("group(u in b, s where mark[u] == true)"),
                of("groups(u in b where mark[u] == true)"),
            );
            let g = load("counts.rules", &text);
            let total = {
                let st = g.start(&config(None)).expect("starts");
                view_var(&g.view(&st, None), "total")
            };
            let start = |fuel: u64| {
                g.start(&Config {
                    fuel: Some(fuel),
                    ..config(None)
                })
                .map(|_| ())
                .map_err(|e| e.to_string())
            };
            let (mut lo, mut hi) = (1u64, 10_000_000u64);
            assert!(start(hi).is_ok() && start(lo).is_err());
            while hi - lo > 1 {
                let mid = (lo + hi) / 2;
                if start(mid).is_ok() {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            seen.push((total, hi, start(hi - 1).expect_err("runs out")));
        }
        assert_eq!(seen[0], seen[1], "round {round}");
    }
}
