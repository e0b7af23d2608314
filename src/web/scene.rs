//! What the page draws, as data: the boards of a game (spaces with positions, and edges), and
//! one seat's scene, built from that seat's [`View`] alone and placed on the boards by the
//! structure the rules declare (which zones and variables are indexed by a board's spaces).

use crate::engine::View;
use crate::ir::ids::Id;
use crate::ir::{BoardShape, Dim, Game, Visibility};
use serde::Serialize;

/// A board as the page draws it: every space with a position, and the edges between
/// neighbours. A new geometry only needs its positions ([`positions`]).
#[derive(Clone, Debug, Serialize)]
pub struct BoardLayout {
    /// The board's name.
    pub name: String,
    /// `grid`, `hex` (drawn as hexagons), `ring` or `graph`.
    pub shape: String,
    /// The spaces, in space order.
    pub spaces: Vec<SpaceLayout>,
    /// Each pair of neighbours once, as space indexes (lower first).
    pub edges: Vec<(u32, u32)>,
    /// Whether the page draws the spaces as cells (squares of a grid, hexagons of a hex board)
    /// rather than as dots joined by edges.
    pub cells: bool,
}

/// One space: its canonical name and its centre, in units where neighbours are about 1 apart.
#[derive(Clone, Debug, Serialize)]
pub struct SpaceLayout {
    /// The space's name (`b2`), as in action texts.
    pub name: String,
    /// Centre, x to the right.
    pub x: f64,
    /// Centre, y downwards.
    pub y: f64,
}

/// The centres of a board's spaces, by geometry: a grid's rows with row 1 at the bottom (as
/// its names count); a hex board's cells as hexagons do, each row half a cell to the right of
/// the one below it (every neighbour 1 apart); a graph's spaces by their names when each is a
/// column letter and a row number (`a7` .. `g1`: the squares of a mill board), else on a
/// circle; a ring's spaces on a circle clockwise from the top.
pub fn positions(b: &crate::ir::Board) -> Vec<(f64, f64)> {
    let n = b.len();
    let circle = |n: u32| {
        let r = (n as f64 / std::f64::consts::TAU).max(1.0);
        (0..n)
            .map(|i| {
                let a = std::f64::consts::TAU * i as f64 / n.max(1) as f64;
                (r * a.sin(), -r * a.cos())
            })
            .collect()
    };
    match &b.shape {
        BoardShape::Grid { width, height, .. } => (0..n)
            .map(|s| ((s % width) as f64, (height - 1 - s / width) as f64))
            .collect(),
        BoardShape::Ring { size } => circle(*size),
        BoardShape::Hex { height, .. } => {
            let high = *height as f64;
            (0..n)
                .map(|s| {
                    let (c, r) = b.coord(s).unwrap_or((0, 0));
                    let (c, r) = (c as f64, r as f64);
                    (c + r / 2.0, (high - r) * 3f64.sqrt() / 2.0)
                })
                .collect()
        }
        BoardShape::Graph => by_names(&b.space_names).unwrap_or_else(|| circle(n)),
    }
}

/// Positions read from names that are each a column letter and a row number (`a7`: column
/// 0, row 7 at the top of 1..7), all different; `None` otherwise.
fn by_names(names: &[String]) -> Option<Vec<(f64, f64)>> {
    let mut cells = Vec::with_capacity(names.len());
    for name in names {
        let letters = name.find(|c: char| !c.is_ascii_lowercase())?;
        let (col, row) = name.split_at(letters);
        if col.len() != 1 || row.is_empty() || !row.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let row: u32 = row.parse().ok().filter(|r| *r <= 1000)?;
        cells.push((u32::from(col.as_bytes()[0] - b'a'), row));
    }
    let mut seen = cells.clone();
    seen.sort_unstable();
    seen.dedup();
    if seen.len() != cells.len() {
        return None;
    }
    let top = cells.iter().map(|c| c.1).max().unwrap_or(0);
    Some(
        cells
            .into_iter()
            .map(|(c, r)| (c as f64, (top - r) as f64))
            .collect(),
    )
}

/// The boards of a game, laid out.
pub fn layouts(g: &Game) -> Vec<BoardLayout> {
    g.boards
        .iter()
        .map(|b| {
            let pos = positions(b);
            let spaces = b
                .space_names
                .iter()
                .zip(&pos)
                .map(|(name, &(x, y))| SpaceLayout {
                    name: name.clone(),
                    x,
                    y,
                })
                .collect();
            let mut edges = Vec::new();
            for s in 0..b.len() {
                for &t in b.neighbours(s) {
                    if s < t {
                        edges.push((s, t));
                    }
                }
            }
            let (shape, cells) = match &b.shape {
                BoardShape::Grid { .. } => ("grid", true),
                BoardShape::Hex { .. } => ("hex", true),
                BoardShape::Ring { .. } => ("ring", false),
                BoardShape::Graph => ("graph", false),
            };
            BoardLayout {
                name: b.name.clone(),
                shape: shape.to_string(),
                spaces,
                edges,
                cells,
            }
        })
        .collect()
}

/// One thing drawn on a space: a component the seat sees, the back of one it does not, or the
/// value of a variable indexed by the space.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Token {
    /// `piece`, `back` or `value`.
    pub kind: &'static str,
    /// The text shown (a component's name; a value, with the variable's name when the board
    /// has several variables).
    pub text: String,
    /// The canonical text a click on it stands for (a component's name, or the space's).
    pub value: String,
}

/// A zone that is not on a board, as a pile (hidden or top-only), a row (public) or a hand
/// (owned).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ZoneScene {
    /// The zone instance's name (`hand[p2]`), also what a click on it stands for.
    pub zone: String,
    /// `pile`, `row` or `hand`.
    pub kind: &'static str,
    /// The owning seat, from 0.
    pub owner: Option<u8>,
    /// How many components it holds.
    pub count: usize,
    /// The components the seat sees (bottom to top), each with its fields not in its name.
    pub cards: Vec<Card>,
    /// How many it holds that the seat does not see (drawn as backs).
    pub backs: usize,
}

/// A component the seat sees.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Card {
    /// Its canonical name.
    pub name: String,
    /// Fields not shown by its name (`?` for a secret one).
    pub fields: Vec<(String, String)>,
}

/// Everything on the board of one seat's view.
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct Scene {
    /// Per board, per space, what lies there.
    pub boards: Vec<Vec<Vec<Token>>>,
    /// The zones that are not on a board.
    pub zones: Vec<ZoneScene>,
    /// Variables not indexed by a board: `(name, value)`.
    pub vars: Vec<(String, String)>,
}

/// The zone instances a view lists, in its order: every instance but those owned by seats
/// not in play.
fn shown_instances(g: &Game, players: u8) -> impl Iterator<Item = crate::ir::InstId> + '_ {
    g.instances
        .ids()
        .filter(move |&i| g.instances[i].owner.is_none_or(|o| o < players))
}

/// Places a seat's view on the boards. Only `view` carries state: the game gives structure
/// (which zone instance and which variable slot belongs to which space).
pub fn scene(g: &Game, view: &View, players: u8) -> Scene {
    let mut out = Scene {
        boards: g
            .boards
            .iter()
            .map(|b| vec![Vec::new(); b.len() as usize])
            .collect(),
        ..Scene::default()
    };
    for (z, inst) in view.zones.iter().zip(shown_instances(g, players)) {
        let info = g.instances[inst];
        if let Some((b, s)) = info.space {
            let tokens = &mut out.boards[b.index()][s as usize];
            for name in &z.visible {
                tokens.push(Token {
                    kind: "piece",
                    text: name.clone(),
                    value: name.clone(),
                });
            }
            for _ in z.visible.len()..z.count {
                tokens.push(Token {
                    kind: "back",
                    text: String::new(),
                    value: g.boards[b].space_names[s as usize].clone(),
                });
            }
            continue;
        }
        let def = &g.zones[info.zone];
        let kind = match def.visibility {
            Visibility::Owner => "hand",
            Visibility::Public if info.owner.is_some() => "hand",
            Visibility::Public => "row",
            Visibility::Hidden | Visibility::Secret | Visibility::Top => "pile",
        };
        out.zones.push(ZoneScene {
            zone: z.zone.clone(),
            kind,
            owner: info.owner,
            count: z.count,
            cards: z
                .visible
                .iter()
                .zip(z.fields.iter().chain(std::iter::repeat(&Vec::new())))
                .map(|(name, fields)| Card {
                    name: name.clone(),
                    fields: fields.clone(),
                })
                .collect(),
            backs: z.count.saturating_sub(z.visible.len()),
        });
    }
    // Variables, in the order the view lists them.
    let mut entries = view.vars.iter();
    for v in &g.vars {
        let board_dims = v.dims.iter().filter(|d| matches!(d, Dim::Board(_))).count();
        let several = g
            .vars
            .iter()
            .filter(|w| w.dims.iter().any(|d| matches!(d, Dim::Board(_))))
            .count()
            > 1;
        for k in 0..v.count {
            let mut rest = k;
            let mut skip = false;
            let mut on = None;
            for i in (0..v.dims.len()).rev() {
                let x = rest % v.sizes[i];
                rest /= v.sizes[i];
                match v.dims[i] {
                    Dim::Player => skip |= x >= players as u32,
                    Dim::Board(b) if board_dims == 1 => on = Some((b, x)),
                    _ => {}
                }
            }
            if skip {
                continue;
            }
            let Some((name, value)) = entries.next() else {
                return out;
            };
            match on {
                Some((b, s)) => {
                    if value == "none" || value == "false" {
                        continue;
                    }
                    let text = if several || v.dims.len() > 1 {
                        format!("{name}: {value}")
                    } else {
                        value.clone()
                    };
                    out.boards[b.index()][s as usize].push(Token {
                        kind: "value",
                        text,
                        value: g.boards[b].space_names[s as usize].clone(),
                    });
                }
                None => out.vars.push((name.clone(), value.clone())),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Game {
        crate::check::load("t.rules", text)
            .game
            .expect("valid rules")
    }

    #[test]
    fn a_grid_is_laid_out_row_one_at_the_bottom_and_a_ring_on_a_circle() {
        let g = load(
            "game \"B\"\nplayers 2\nboard grid = grid(3, 2)\nboard track = ring(8)\n\
             var mark[grid]: Player\nvar at[track]: int\naction pass() { end draw }\n\
             flow { turn seat(0) { choose { pass } } }\n",
        );
        let l = layouts(&g);
        assert_eq!(l[0].shape, "grid");
        let a1 = &l[0].spaces[0];
        let c2 = &l[0].spaces[5];
        assert_eq!((a1.name.as_str(), a1.x, a1.y), ("a1", 0.0, 1.0));
        assert_eq!((c2.name.as_str(), c2.x, c2.y), ("c2", 2.0, 0.0));
        assert_eq!(l[0].edges.len(), 7); // 2 rows of 2 + 3 columns of 1
        assert_eq!(l[1].shape, "ring");
        assert_eq!(l[1].edges.len(), 8);
        let first = distance(&l[1].spaces[0], &l[1].spaces[1]);
        assert!((0.5..1.5).contains(&first), "{first}");
    }

    fn distance(a: &SpaceLayout, b: &SpaceLayout) -> f64 {
        ((a.x - b.x).powi(2) + (a.y - b.y).powi(2)).sqrt()
    }

    // Hex boards (rhombus and hexagon) as hexagons: every neighbour 1 apart, no two cells
    // closer (none overlaps another), row 1 at the bottom and each row half a cell to the right
    // of the one below it.
    #[test]
    fn hex_boards_are_laid_out_as_hexagons_touching_their_neighbours() {
        let g = load(
            "game \"X\"\nplayers 2\nboard rhombus = hex(4, 3)\nboard star = hex(3)\n\
             var a[rhombus]: Player\nvar b[star]: Player\naction pass() { end draw }\n\
             flow { turn seat(0) { choose { pass } } }\n",
        );
        let l = layouts(&g);
        for (k, board) in g.boards.iter().enumerate() {
            let lay = &l[k];
            assert_eq!((lay.shape.as_str(), lay.cells), ("hex", true));
            for s in 0..board.len() {
                for &t in board.neighbours(s) {
                    let d = distance(&lay.spaces[s as usize], &lay.spaces[t as usize]);
                    assert!((d - 1.0).abs() < 1e-9, "{} to {}: {d}", s, t);
                }
                for t in 0..s {
                    let d = distance(&lay.spaces[s as usize], &lay.spaces[t as usize]);
                    assert!(d > 1.0 - 1e-9, "{s} and {t} overlap: {d}");
                }
            }
        }
        let at = |name: &str| {
            let s = l[0].spaces.iter().find(|s| s.name == name).expect(name);
            (s.x, s.y)
        };
        let (a1, b1, a2) = (at("a1"), at("b1"), at("a2"));
        assert!(a2.1 < a1.1, "row 2 above row 1 (y downwards)");
        assert!(
            (a2.0 - a1.0 - 0.5).abs() < 1e-9,
            "row 2 half a cell to the right"
        );
        assert!((b1.0 - a1.0 - 1.0).abs() < 1e-9 && b1.1 == a1.1);
    }

    // A graph whose spaces are named by column and row (a mill board) is placed by its names:
    // the three squares of Nine Men's Morris' names, a7 at the top left; other names on a
    // circle.
    #[test]
    fn a_graph_named_by_columns_and_rows_is_placed_by_its_names() {
        let g = load(
            "game \"M\"\nplayers 2\nboard mill = graph {\n spaces a7, d7, g7, b6, d6, a4, g1, d1, a1\n\
             edges a7 - d7, d7 - g7, a7 - a4, a4 - a1, a1 - d1, d1 - g1, d7 - d6, b6 - d6\n}\n\
             board web = graph {\n spaces north, south, east\n edges north - south, south - east\n}\n\
             var a[mill]: Player\nvar b[web]: Player\naction pass() { end draw }\n\
             flow { turn seat(0) { choose { pass } } }\n",
        );
        let l = layouts(&g);
        assert_eq!((l[0].shape.as_str(), l[0].cells), ("graph", false));
        let at = |name: &str| {
            let s = l[0].spaces.iter().find(|s| s.name == name).expect(name);
            (s.x, s.y)
        };
        assert_eq!(at("a7"), (0.0, 0.0));
        assert_eq!(at("g1"), (6.0, 6.0));
        assert_eq!(at("d6"), (3.0, 1.0));
        assert_eq!(at("b6"), (1.0, 1.0));
        // Not letters and numbers: on a circle, neighbours apart.
        let w = &l[1].spaces;
        assert!(distance(&w[0], &w[1]) > 0.5 && distance(&w[1], &w[2]) > 0.5);
    }

    #[test]
    fn hidden_hands_are_backs_and_board_variables_sit_on_their_spaces() {
        let g = load(
            "game \"H\"\nplayers 2\nboard grid = grid(2, 2)\nvar mark[grid]: Player\n\
             component Card { rank: int }\nzone deck: Card hidden\nzone hand[Player]: Card owner\n\
             components Card in deck { \"c{rank}\" for r in 1..10 { rank = r } }\n\
             setup { shuffle deck  for p in players { deal 3 from deck to hand[p] } mark[b2] = seat(1) }\n\
             action pass() { end draw }\nflow { turn seat(0) { choose { pass } } }\n",
        );
        let cfg = crate::engine::Config {
            players: 2,
            seed: 3,
            ..Default::default()
        };
        let st = g.start(&cfg).expect("starts");
        let s = scene(&g, &g.view(&st, Some(0)), 2);
        let hand = |z: &str| s.zones.iter().find(|x| x.zone == z).expect(z);
        assert_eq!(
            (hand("hand[p1]").cards.len(), hand("hand[p1]").backs),
            (3, 0)
        );
        assert_eq!(
            (hand("hand[p2]").cards.len(), hand("hand[p2]").backs),
            (0, 3)
        );
        assert_eq!(hand("deck").kind, "pile");
        assert_eq!(hand("deck").cards.len(), 0);
        assert_eq!(s.boards[0][3].len(), 1);
        assert_eq!(s.boards[0][3][0].text, "p2");
        assert!(s.boards[0][0].is_empty());
    }
}
