//! Where a board's spaces go on the page: hex boards as hexagons, graph boards placed by
//! their names, rings as rings, grids (checkered when the pieces start on one colour), and a
//! grid's columns named by an enum.

use super::*;

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
    /// On a grid whose columns an enum of the rules names (an enum whose values are the
    /// column letters, in order: `enum Column { a, b, c }` for a board three columns wide),
    /// that enum's value for the space's column: a click on any space of the column stands
    /// for it (a disc dropped into a column by clicking the column).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    /// A dark square of a checkered grid ([`checkered`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dark: bool,
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
pub(super) fn by_names(names: &[String]) -> Option<Vec<(f64, f64)>> {
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

/// The width of a grid board when some enum's values are its column letters in order
/// (`a`, `b`, ... as its spaces' names begin), so that a space's column names that enum's
/// value; `None` for other boards and when no enum names the columns.
pub(super) fn column_enum(g: &Game, b: &crate::ir::Board) -> Option<u32> {
    let BoardShape::Grid { width, .. } = b.shape else {
        return None;
    };
    g.enums
        .iter()
        .any(|e| {
            e.values.len() == width as usize
                && e.values
                    .iter()
                    .enumerate()
                    .all(|(x, v)| *v == crate::ir::col_name(x as u32))
        })
        .then_some(width)
}

/// The colour of a grid's square as a chessboard's (0 or 1: the parity of its column and
/// row), `None` off grids.
pub(super) fn square_colour(b: &crate::ir::Board, s: u32) -> Option<u8> {
    let BoardShape::Grid { width, .. } = b.shape else {
        return None;
    };
    Some(((s % width + s / width) % 2) as u8)
}

/// Per board, the colour of the dark squares when the grid is drawn checkered: as the rules'
/// `present` section says (`board field checkered`: a1 dark; `plain`), else a grid whose
/// pieces at the start stand on squares of one colour only (four at least), as a game played
/// on the dark squares sets them out, has those squares dark. What the start holds is read
/// from a spectator's view of a match of the base rules with the fewest players (seed 0):
/// public, and the same for every seat. Other boards, and grids whose start leaves them empty
/// or uses both colours, are plain.
pub fn checkered(g: &Game) -> Vec<Option<u8>> {
    let mut out = vec![None; g.boards.len()];
    // The rules' `present` section decides where it names a board: checkered with a1 dark
    // (as a chessboard's), or plain.
    let said = |k: usize| g.present.checkered(crate::ir::BoardId(k as _));
    if !g
        .boards
        .iter()
        .enumerate()
        .any(|(k, b)| matches!(b.shape, BoardShape::Grid { .. }) && said(k).is_none())
    {
        for (k, o) in out.iter_mut().enumerate() {
            *o = said(k).and_then(|c| c.then_some(0));
        }
        return out;
    }
    let Ok(st) = g.start(&crate::engine::Config::seeded(g.min_players, 0)) else {
        return out;
    };
    let start = scene(g, &g.view(&st, None), g.min_players);
    for (k, b) in g.boards.iter().enumerate() {
        let colours: Vec<Option<u8>> = start.boards[k]
            .iter()
            .enumerate()
            .filter(|(_, t)| t.iter().any(|t| t.kind != "note"))
            .map(|(s, _)| square_colour(b, s as u32))
            .collect();
        if let Some(c) = said(k) {
            out[k] = c.then_some(0);
        } else if colours.len() >= 4 && colours.iter().all(|c| c.is_some() && *c == colours[0]) {
            out[k] = colours[0];
        }
    }
    out
}

/// The boards of a game, laid out.
pub fn layouts(g: &Game) -> Vec<BoardLayout> {
    let dark = checkered(g);
    g.boards
        .iter()
        .enumerate()
        .map(|(k, b)| {
            let pos = positions(b);
            let columns = column_enum(g, b);
            let dark = dark.get(k).copied().flatten();
            let spaces = b
                .space_names
                .iter()
                .zip(&pos)
                .enumerate()
                .map(|(s, (name, &(x, y)))| SpaceLayout {
                    name: name.clone(),
                    x,
                    y,
                    column: columns.map(|w| crate::ir::col_name(s as u32 % w)),
                    dark: dark.is_some_and(|d| square_colour(b, s as u32) == Some(d)),
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
