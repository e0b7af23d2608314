//! Connect Four as plain Rust, following rules/classic/connect_four.rules: a 7 x 6 grid,
//! discs fall to the lowest empty cell, four in a row (any direction) wins, a full grid is a
//! draw; seat 0 moves first. Bitboards: bit `col * 7 + row`, row 0 at the bottom, one spare
//! bit on top of each column so that shifted lines never wrap into the next column.

use super::{Native, Rng, Turn};

const WIDTH: usize = 7;
const HEIGHT: u8 = 6;
const STRIDE: u32 = 7;
const CELLS: u8 = 42;
const COLUMNS: [&str; WIDTH] = ["a", "b", "c", "d", "e", "f", "g"];

#[derive(Clone)]
pub struct ConnectFour {
    discs: [u64; 2],
    height: [u8; WIDTH],
    filled: u8,
    mover: u8,
    over: bool,
    winner: Option<u8>,
}

impl Default for ConnectFour {
    fn default() -> Self {
        Self::new()
    }
}

/// Four in a row in a bitboard: vertical (1), horizontal (7), both diagonals (8, 6).
#[inline]
fn has_four(b: u64) -> bool {
    for shift in [1, STRIDE, STRIDE + 1, STRIDE - 1] {
        let pairs = b & (b >> shift);
        if pairs & (pairs >> (2 * shift)) != 0 {
            return true;
        }
    }
    false
}

impl ConnectFour {
    pub fn new() -> Self {
        ConnectFour {
            discs: [0; 2],
            height: [0; WIDTH],
            filled: 0,
            mover: 0,
            over: false,
            winner: None,
        }
    }

    /// Drops a disc of the player to move into column `col` (not full).
    #[inline]
    pub fn drop_disc(&mut self, col: usize) {
        let me = self.mover as usize;
        self.discs[me] |= 1u64 << (col as u32 * STRIDE + self.height[col] as u32);
        self.height[col] += 1;
        self.filled += 1;
        if has_four(self.discs[me]) {
            self.over = true;
            self.winner = Some(self.mover);
        } else if self.filled == CELLS {
            self.over = true;
        }
        self.mover ^= 1;
    }

    /// Plays a whole game with uniformly random drops. Returns the decisions taken and the
    /// winner (`None`: a draw).
    pub fn playout(rng: &mut Rng) -> (u32, Option<u8>) {
        let mut g = ConnectFour::new();
        let mut cols = [0u8; WIDTH];
        let mut decisions = 0;
        while !g.over {
            let mut n = 0;
            for (c, &h) in g.height.iter().enumerate() {
                if h < HEIGHT {
                    cols[n] = c as u8;
                    n += 1;
                }
            }
            g.drop_disc(cols[rng.below(n)] as usize);
            decisions += 1;
        }
        (decisions, g.winner)
    }
}

impl Native for ConnectFour {
    type Move = u8;

    fn turn(&self) -> Turn {
        if self.over {
            Turn::Over
        } else {
            Turn::Player(self.mover)
        }
    }

    fn legal(&self, out: &mut Vec<u8>) {
        out.clear();
        if self.over {
            return;
        }
        for (c, &h) in self.height.iter().enumerate() {
            if h < HEIGHT {
                out.push(c as u8);
            }
        }
    }

    fn text(&self, m: u8) -> String {
        format!("drop column={}", COLUMNS[m as usize])
    }

    fn apply(&mut self, m: u8) {
        self.drop_disc(m as usize);
    }

    fn outcome(&self) -> Option<(Vec<i64>, Vec<u8>)> {
        // The rules file has no `score`: every score is 0.
        self.over
            .then(|| (vec![0, 0], self.winner.into_iter().collect()))
    }
}
