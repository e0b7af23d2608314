//! Board geometry: directions and their steps, coordinates, the declared lines of graph boards
//! and closed spaces. The tables are built once, when the file is checked; running a game only
//! reads them.

use super::*;

/// The values of the `Direction` enum, in order: `ord(d)` is the position here. Grids use the
/// first 8 (north is towards higher row numbers), hex boards 6 of them, rings the last 2.
pub const DIRECTION_NAMES: [&str; 10] = [
    "north",
    "northeast",
    "east",
    "southeast",
    "south",
    "southwest",
    "west",
    "northwest",
    "clockwise",
    "anticlockwise",
];

/// The number of directions (the columns of a step table).
pub const DIRECTION_COUNT: usize = DIRECTION_NAMES.len();

/// A step off the board (in a step table).
pub const NO_SPACE: u32 = u32::MAX;

/// The most edges a graph board may declare.
pub const MAX_GRAPH_EDGES: usize = 100_000;

/// The most lines a graph board may declare (named or not), and the most spaces in one line.
pub const MAX_GRAPH_LINES: usize = 10_000;

/// A grid's steps (column, row) in the first 8 directions: north, northeast, ..., northwest.
pub const GRID_STEPS: [(i64, i64); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

/// A hex board's directions in their order (east, northeast, northwest, west, southwest,
/// southeast), each with its step (column, row).
pub const HEX_STEPS: [(u16, i64, i64); 6] = [
    (2, 1, 0),
    (1, 0, 1),
    (7, -1, 1),
    (6, -1, 0),
    (5, 0, -1),
    (3, 1, -1),
];

/// The direction opposite to `d` (a position in [`DIRECTION_NAMES`]).
pub fn opposite(d: u16) -> u16 {
    match d {
        0..=7 => (d + 4) % 8,
        8 => 9,
        _ => 8,
    }
}

/// What a board knows besides its spaces and neighbours.
#[derive(Clone, Debug, Default)]
pub struct Geometry {
    /// The board's directions (positions in [`DIRECTION_NAMES`]) in the order
    /// `directions(board)` lists them; empty for a graph board.
    pub dirs: Vec<u16>,
    /// `steps[s * DIRECTION_COUNT + d]`: the space one step from `s` in direction `d`, or
    /// [`NO_SPACE`]; empty for a graph board.
    pub steps: Vec<u32>,
    /// Per space: (column, row), both from 1 (a ring: (number, 1)); empty for a graph board.
    pub coords: Vec<(u32, u32)>,
    /// The declared lines of a graph board, each in its order (named ones first, in the order
    /// of `line_names`).
    pub lines: Vec<Vec<u32>>,
    /// The names of the named lines (`line mills = a, b, c`), each with its line's index.
    pub line_names: Vec<(String, usize)>,
    /// Per space of a graph board, the declared lines that hold it, in order, each with the
    /// space's first position in it: the entries of space `s` are
    /// `line_at[line_at_start[s]..line_at_start[s + 1]]` (a `line` through `s` walks only
    /// them). Empty for the other boards.
    pub line_at_start: Vec<u32>,
    /// (line, position) pairs, see [`Geometry::line_at_start`].
    pub line_at: Vec<(u32, u32)>,
    /// Per space: closed (`closed [d4, e4]`); empty when the board closes none.
    pub closed: Vec<bool>,
    /// `closed [...] when FLAG` (or `when not FLAG`): the constant and the value that closes
    /// them; `None`: always closed.
    pub closed_when: Option<(ConstId, bool)>,
    /// The adjacency while the closed spaces are closed (compressed rows, like the board's).
    pub open_adj_start: Vec<u32>,
    /// Its neighbours, one space after another.
    pub open_adj: Vec<u32>,
    /// On a board of at most 64 spaces, per space: its neighbours as a set (bit `t` for
    /// space `t`), from the adjacency; empty on a larger board.
    pub near: Vec<u64>,
    /// The same from the adjacency while the closed spaces are closed (empty when the board
    /// closes none).
    pub open_near: Vec<u64>,
}

/// The neighbours of every space as sets ([`Geometry::near`]) from an adjacency in
/// compressed rows: empty when a space is past the 64th or a row names a space twice.
pub fn near_sets(starts: &[u32], adj: &[u32]) -> Vec<u64> {
    let rows = starts
        .windows(2)
        .map(|w| adj.get(w[0] as usize..w[1] as usize));
    let mut sets = Vec::with_capacity(starts.len().saturating_sub(1));
    for row in rows {
        let mut set = 0u64;
        for &t in row.unwrap_or_default() {
            if t >= 64 || set & 1u64 << t != 0 {
                return Vec::new();
            }
            set |= 1u64 << t;
        }
        sets.push(set);
    }
    sets
}

impl Board {
    /// Whether the board's closed spaces are closed in a match with these constants.
    #[inline]
    pub fn closing(&self, consts: &Table<ConstId, Value>) -> bool {
        !self.geo.closed.is_empty()
            && match self.geo.closed_when {
                None => true,
                Some((c, want)) => consts.get(c) == Some(&Value::Bool(want)),
            }
    }

    /// Whether space `s` is closed now (`closing` from [`Board::closing`]).
    #[inline]
    pub fn is_closed(&self, s: u32, closing: bool) -> bool {
        closing && self.geo.closed.get(s as usize).copied().unwrap_or(false)
    }

    /// The space one step from `s` in direction `d`, if it is on the board and open.
    #[inline]
    pub fn step(&self, s: u32, d: u16, closing: bool) -> Option<u32> {
        let t = *self
            .geo
            .steps
            .get(s as usize * DIRECTION_COUNT + d as usize)?;
        (t != NO_SPACE && !self.is_closed(t, closing)).then_some(t)
    }

    /// The adjacency in force: (row starts, neighbours), without closed spaces when `closing`.
    #[inline]
    pub fn adjacency(&self, closing: bool) -> (&[u32], &[u32]) {
        if closing {
            (&self.geo.open_adj_start, &self.geo.open_adj)
        } else {
            (&self.adj_start, &self.adj)
        }
    }

    /// The neighbours of every space as sets, in the adjacency in force (`closing` from
    /// [`Board::closing`]); empty on a board of more than 64 spaces.
    #[inline]
    pub fn near(&self, closing: bool) -> &[u64] {
        if closing {
            &self.geo.open_near
        } else {
            &self.geo.near
        }
    }

    /// The (column, row) of a space, from 1, if the board has coordinates.
    pub fn coord(&self, s: u32) -> Option<(u32, u32)> {
        self.geo.coords.get(s as usize).copied()
    }
}
