//! Hand-written native engines of games that also exist as rules files, used to check the
//! interpreter (same legal actions, same outcomes) and to measure its overhead.
//!
//! Each engine has two faces: an agreement face that lists its legal actions as the
//! interpreter's canonical texts and accepts every decision, chance included, from outside;
//! and a speed face (`playout`) that plays a whole random game with its own generator and
//! compact moves, as a program written only for speed would.

pub mod connect_four;
pub mod omega_shift;

/// Who acts in a native engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    Player(u8),
    Chance,
    Over,
}

/// What the agreement test needs from a native engine.
pub trait Native {
    type Move: Copy;
    fn turn(&self) -> Turn;
    /// The legal moves (chance outcomes when chance acts), in the interpreter's order.
    fn legal(&self, out: &mut Vec<Self::Move>);
    /// The interpreter's canonical text of a move.
    fn text(&self, m: Self::Move) -> String;
    fn apply(&mut self, m: Self::Move);
    /// Final scores by seat and the winning seats, once the game is over.
    fn outcome(&self) -> Option<(Vec<i64>, Vec<u8>)>;
}

/// A small fast generator (SplitMix64) for native playouts.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A number in `0..n` (n > 0), by multiply-shift (bias below 2^-32 for small n).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}
