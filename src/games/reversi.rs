//! Reversi (Othello) on the 8x8 board.
//!
//! Squares are named `a1`..`h8`: column letter, then row number, with `a1` in the top-left corner
//! (the Othello/Edax convention; row 1 is at the top of [`Game::board_text`]). Black moves first
//! from the standard start: Black on d5 and e4, White on d4 and e5 (Edax's `board_init`).
//!
//! A move must flip at least one disc. A side with no such move must pass: its only legal move
//! is then [`ReversiMove::PASS`], an ordinary move of its own that counts as one ply (so `perft`
//! counts passes as moves, as the published Reversi perft figures do). The game is over when
//! neither side can place a disc; there is never a pass-pass sequence in a move list. The winner
//! has more discs.
//!
//! Bitboards: bit `8 * row + column` (row 0 = row 1 of the notation, column 0 = `a`), so `a1` is
//! bit 0, `h1` bit 7 and `h8` bit 63. The free functions [`legal_move_mask`] and
//! [`flipped_discs`] work on raw (player, opponent) bitboards for solvers.

use super::{Color, ConfigError, Game, GameConfig, MoveError, Outcome, Param, PlayError, zobrist_keys};

/// Number of squares on the board.
pub const SQUARES: usize = 64;

/// Keys for Black on each square, White on each square, then one for White to move.
static ZOBRIST: [u64; 2 * SQUARES + 1] = zobrist_keys(0x7265_7665_7273_6921);
const WHITE_TO_MOVE_KEY: usize = 2 * SQUARES;

/// The variant settings of Reversi: only the 8x8 board, no parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReversiConfig;

impl GameConfig for ReversiConfig {
    fn size(&self) -> (usize, usize) {
        (8, 8)
    }

    /// Only 8x8 is accepted, as in Edax.
    fn set_size(&mut self, width: usize, height: usize) -> Result<(), ConfigError> {
        if (width, height) == (8, 8) { Ok(()) } else { Err(ConfigError::UnacceptableSize) }
    }

    fn params(&self) -> Vec<Param> {
        Vec::new()
    }

    fn set_param(&mut self, _name: &str, _value: &str) -> Result<(), ConfigError> {
        Err(ConfigError::UnknownParam)
    }
}

/// A Reversi move: a square index 0..64 (`8 * row + column`, `a1` = 0) or [`ReversiMove::PASS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReversiMove(u8);

impl ReversiMove {
    /// The pass, legal exactly when the side to move has no disc to place but the opponent has.
    pub const PASS: ReversiMove = ReversiMove(64);

    /// The move on square `index` (`8 * row + column`).
    ///
    /// # Panics
    /// When `index >= 64`.
    pub const fn square(index: usize) -> ReversiMove {
        assert!(index < SQUARES, "square index out of range");
        ReversiMove(index as u8)
    }

    /// The square index, or `None` for a pass.
    pub const fn index(self) -> Option<usize> {
        if self.0 < 64 { Some(self.0 as usize) } else { None }
    }

    /// Whether this is the pass.
    pub const fn is_pass(self) -> bool {
        self.0 == 64
    }
}

/// Writes square `index` as `a1`..`h8`.
pub fn format_square(index: usize) -> String {
    format!("{}{}", (b'a' + (index % 8) as u8) as char, index / 8 + 1)
}

/// Reads a square name `a1`..`h8` (any case) as its index.
///
/// # Errors
/// [`MoveError::Syntax`] when the text is not a letter and digits, [`MoveError::OffBoard`] when
/// the column or row lies outside the board.
pub fn parse_square(text: &str) -> Result<usize, MoveError> {
    let bytes = text.as_bytes();
    let Some((&letter, digits)) = bytes.split_first() else {
        return Err(MoveError::Syntax);
    };
    if !letter.is_ascii_alphabetic() || digits.is_empty() || digits.len() > 2 || !digits.iter().all(u8::is_ascii_digit)
    {
        return Err(MoveError::Syntax);
    }
    let column = (letter.to_ascii_lowercase() - b'a') as usize;
    let row = digits.iter().fold(0usize, |acc, &d| acc * 10 + (d - b'0') as usize);
    if column >= 8 || row == 0 || row > 8 {
        return Err(MoveError::OffBoard);
    }
    Ok((row - 1) * 8 + column)
}

/// Every square where `player` may place a disc: empty squares that outflank at least one
/// `opponent` disc in some direction. Directional shifts with parallel-prefix doubling
/// (Kogge-Stone style), eight directions.
#[inline]
pub fn legal_move_mask(player: u64, opponent: u64) -> u64 {
    // Horizontal and diagonal runs must not wrap from column h to column a: the opponent discs
    // of those directions exclude both outer columns.
    let inner = opponent & 0x7e7e_7e7e_7e7e_7e7e;
    let empty = !(player | opponent);
    let mut moves = 0;
    for (shift, mask) in [(1, inner), (8, opponent), (7, inner), (9, inner)] {
        // Towards higher bits.
        let mut run = mask & (player << shift);
        run |= mask & (run << shift);
        let pairs = mask & (mask << shift);
        run |= pairs & (run << (2 * shift));
        run |= pairs & (run << (2 * shift));
        moves |= run << shift;
        // Towards lower bits.
        let mut run = mask & (player >> shift);
        run |= mask & (run >> shift);
        let pairs = mask & (mask >> shift);
        run |= pairs & (run >> (2 * shift));
        run |= pairs & (run >> (2 * shift));
        moves |= run >> shift;
    }
    moves & empty
}

/// Rays from each square, towards higher bits in directions E (+1), S (+8), SW (+7), SE (+9)
/// and towards lower bits in W (-1), N (-8), NE (-7), NW (-9), excluding the square itself.
const RAYS: [[u64; 8]; SQUARES] = build_rays();

const fn build_rays() -> [[u64; 8]; SQUARES] {
    let steps: [(i32, i32); 8] = [(1, 0), (0, 1), (-1, 1), (1, 1), (-1, 0), (0, -1), (1, -1), (-1, -1)];
    let mut rays = [[0u64; 8]; SQUARES];
    let mut square = 0;
    while square < SQUARES {
        let mut direction = 0;
        while direction < 8 {
            let (dx, dy) = steps[direction];
            let mut x = (square % 8) as i32 + dx;
            let mut y = (square / 8) as i32 + dy;
            let mut ray = 0u64;
            while x >= 0 && x < 8 && y >= 0 && y < 8 {
                ray |= 1u64 << (y * 8 + x);
                x += dx;
                y += dy;
            }
            rays[square][direction] = ray;
            direction += 1;
        }
        square += 1;
    }
    rays
}

/// The `opponent` discs that `player` flips by placing a disc on the empty `square`; 0 when
/// the placement flips nothing (not a legal move).
///
/// Dispatches to a routine compiled for that square ([`flipped_discs_at`]): with the rays
/// known at compile time their masks are immediates and the directions that leave the board
/// at once vanish (a corner has three of eight), which made the endgame solver's flips
/// markedly cheaper than one routine reading the rays from a table (Edax does the same).
#[inline]
pub fn flipped_discs(player: u64, opponent: u64, square: usize) -> u64 {
    FLIPS_BY_SQUARE[square & 63](player, opponent)
}

/// The flip routine of every square.
const FLIPS_BY_SQUARE: [fn(u64, u64) -> u64; SQUARES] = [
    flipped_discs_at::<0>,
    flipped_discs_at::<1>,
    flipped_discs_at::<2>,
    flipped_discs_at::<3>,
    flipped_discs_at::<4>,
    flipped_discs_at::<5>,
    flipped_discs_at::<6>,
    flipped_discs_at::<7>,
    flipped_discs_at::<8>,
    flipped_discs_at::<9>,
    flipped_discs_at::<10>,
    flipped_discs_at::<11>,
    flipped_discs_at::<12>,
    flipped_discs_at::<13>,
    flipped_discs_at::<14>,
    flipped_discs_at::<15>,
    flipped_discs_at::<16>,
    flipped_discs_at::<17>,
    flipped_discs_at::<18>,
    flipped_discs_at::<19>,
    flipped_discs_at::<20>,
    flipped_discs_at::<21>,
    flipped_discs_at::<22>,
    flipped_discs_at::<23>,
    flipped_discs_at::<24>,
    flipped_discs_at::<25>,
    flipped_discs_at::<26>,
    flipped_discs_at::<27>,
    flipped_discs_at::<28>,
    flipped_discs_at::<29>,
    flipped_discs_at::<30>,
    flipped_discs_at::<31>,
    flipped_discs_at::<32>,
    flipped_discs_at::<33>,
    flipped_discs_at::<34>,
    flipped_discs_at::<35>,
    flipped_discs_at::<36>,
    flipped_discs_at::<37>,
    flipped_discs_at::<38>,
    flipped_discs_at::<39>,
    flipped_discs_at::<40>,
    flipped_discs_at::<41>,
    flipped_discs_at::<42>,
    flipped_discs_at::<43>,
    flipped_discs_at::<44>,
    flipped_discs_at::<45>,
    flipped_discs_at::<46>,
    flipped_discs_at::<47>,
    flipped_discs_at::<48>,
    flipped_discs_at::<49>,
    flipped_discs_at::<50>,
    flipped_discs_at::<51>,
    flipped_discs_at::<52>,
    flipped_discs_at::<53>,
    flipped_discs_at::<54>,
    flipped_discs_at::<55>,
    flipped_discs_at::<56>,
    flipped_discs_at::<57>,
    flipped_discs_at::<58>,
    flipped_discs_at::<59>,
    flipped_discs_at::<60>,
    flipped_discs_at::<61>,
    flipped_discs_at::<62>,
    flipped_discs_at::<63>,
];

/// [`flipped_discs`] on `SQUARE`: the flips of the eight rays, each ray's mask a constant.
fn flipped_discs_at<const SQUARE: usize>(player: u64, opponent: u64) -> u64 {
    flips_towards_higher_bits(player, opponent, const { RAYS[SQUARE][0] })
        | flips_towards_higher_bits(player, opponent, const { RAYS[SQUARE][1] })
        | flips_towards_higher_bits(player, opponent, const { RAYS[SQUARE][2] })
        | flips_towards_higher_bits(player, opponent, const { RAYS[SQUARE][3] })
        | flips_towards_lower_bits(player, opponent, const { RAYS[SQUARE][4] })
        | flips_towards_lower_bits(player, opponent, const { RAYS[SQUARE][5] })
        | flips_towards_lower_bits(player, opponent, const { RAYS[SQUARE][6] })
        | flips_towards_lower_bits(player, opponent, const { RAYS[SQUARE][7] })
}

/// The flips along `ray`, a ray towards higher bits: the first square that is not an opponent
/// disc is the lowest set bit of the stoppers, and the run before it flips when that square
/// holds a player disc.
#[inline(always)]
fn flips_towards_higher_bits(player: u64, opponent: u64, ray: u64) -> u64 {
    // A ray of one square or none holds no run with an outflanking disc after it: with a
    // constant ray the whole direction compiles away.
    if ray.count_ones() < 2 {
        return 0;
    }
    let stoppers = !opponent & ray;
    let first = stoppers & stoppers.wrapping_neg();
    let run = first.wrapping_sub(1) & ray;
    run & 0u64.wrapping_sub(u64::from(first & player != 0))
}

/// The flips along `ray`, a ray towards lower bits: the first square that is not an opponent
/// disc is the highest set bit of the stoppers.
#[inline(always)]
fn flips_towards_lower_bits(player: u64, opponent: u64, ray: u64) -> u64 {
    if ray.count_ones() < 2 {
        return 0;
    }
    // Bit 0 joins the stoppers so that the highest one is a single BSR with no zero case:
    // when it is the highest, it is either off the ray or an opponent disc on it, and the
    // outflanking disc below comes out empty either way.
    let stoppers = (!opponent & ray) | 1;
    let first = 1u64 << (63 ^ stoppers.leading_zeros());
    let outflank = first & player & ray;
    outflank.wrapping_neg() << 1 & ray
}

/// A Reversi position: both colours' discs as bitboards, the side to move and its Zobrist hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reversi {
    discs: [u64; 2],
    to_move: Color,
    hash: u64,
}

impl Reversi {
    /// A position from bitboards (bit `8 * row + column`, `a1` = bit 0); `None` when the two
    /// colours overlap. Whatever the discs, the position is taken as is: a side to move without
    /// a placement has the pass as its only move, and no discs to place on either side ends the
    /// game.
    pub fn from_bitboards(black: u64, white: u64, to_move: Color) -> Option<Reversi> {
        if black & white != 0 {
            return None;
        }
        let mut position = Reversi { discs: [black, white], to_move, hash: 0 };
        position.hash = position.hash_from_scratch();
        Some(position)
    }

    /// The discs of `color`.
    pub fn discs(&self, color: Color) -> u64 {
        self.discs[color.index()]
    }

    /// The discs of the side to move.
    pub fn player_discs(&self) -> u64 {
        self.discs[self.to_move.index()]
    }

    /// The discs of the side not to move.
    pub fn opponent_discs(&self) -> u64 {
        self.discs[self.to_move.opponent().index()]
    }

    /// The empty squares.
    pub fn empty_squares(&self) -> u64 {
        !(self.discs[0] | self.discs[1])
    }

    /// The colour on square `index`, if any.
    pub fn disc_at(&self, index: usize) -> Option<Color> {
        let bit = 1u64 << (index & 63);
        if self.discs[0] & bit != 0 {
            Some(Color::Black)
        } else if self.discs[1] & bit != 0 {
            Some(Color::White)
        } else {
            None
        }
    }

    /// Black's disc count minus White's, empty squares going to the winner (the FFO/Edax/WOF
    /// convention): the margin `score_text` reports once the game is over.
    pub fn final_margin_for_black(&self) -> i32 {
        let black = self.discs[0].count_ones() as i32;
        let white = self.discs[1].count_ones() as i32;
        let empties = 64 - black - white;
        let difference = black - white;
        match difference.signum() {
            1 => difference + empties,
            -1 => difference - empties,
            _ => 0,
        }
    }

    /// The hash recomputed from the discs, for checking the incremental one.
    pub fn hash_from_scratch(&self) -> u64 {
        let mut hash = if self.to_move == Color::White { ZOBRIST[WHITE_TO_MOVE_KEY] } else { 0 };
        for (color_index, &discs) in self.discs.iter().enumerate() {
            let mut remaining = discs;
            while remaining != 0 {
                hash ^= ZOBRIST[color_index * SQUARES + remaining.trailing_zeros() as usize];
                remaining &= remaining - 1;
            }
        }
        hash
    }

    /// Squares where the side to move may place a disc.
    pub fn placement_mask(&self) -> u64 {
        legal_move_mask(self.player_discs(), self.opponent_discs())
    }

    /// Whether the side to move must pass (no placement, but the opponent has one).
    pub fn must_pass(&self) -> bool {
        self.placement_mask() == 0 && legal_move_mask(self.opponent_discs(), self.player_discs()) != 0
    }

    fn switch_turn(&mut self) {
        self.to_move = self.to_move.opponent();
        self.hash ^= ZOBRIST[WHITE_TO_MOVE_KEY];
    }

    /// Places a disc on `square` for the side to move, flipping `flipped`.
    fn place(&mut self, square: usize, flipped: u64) {
        let mover = self.to_move.index();
        let bit = 1u64 << square;
        self.discs[mover] |= bit | flipped;
        self.discs[1 - mover] &= !flipped;
        self.hash ^= ZOBRIST[mover * SQUARES + square];
        let mut remaining = flipped;
        while remaining != 0 {
            let index = remaining.trailing_zeros() as usize;
            self.hash ^= ZOBRIST[index] ^ ZOBRIST[SQUARES + index];
            remaining &= remaining - 1;
        }
        self.switch_turn();
    }
}

impl Game for Reversi {
    type Move = ReversiMove;
    type Config = ReversiConfig;

    /// Every move but a pass fills a square.
    fn plies_left_bound(&self) -> Option<usize> {
        Some(self.empty_squares().count_ones() as usize)
    }

    fn new(_config: &ReversiConfig) -> Reversi {
        // d5 and e4 black, d4 and e5 white (Edax: player 0x0000000810000000).
        let black = (1u64 << 35) | (1u64 << 28);
        let white = (1u64 << 27) | (1u64 << 36);
        Reversi::from_bitboards(black, white, Color::Black).expect("disjoint start discs")
    }

    fn to_move(&self) -> Color {
        self.to_move
    }

    fn legal_moves(&self, out: &mut Vec<ReversiMove>) {
        let mut placements = self.placement_mask();
        if placements == 0 {
            if legal_move_mask(self.opponent_discs(), self.player_discs()) != 0 {
                out.push(ReversiMove::PASS);
            }
            return;
        }
        while placements != 0 {
            out.push(ReversiMove(placements.trailing_zeros() as u8));
            placements &= placements - 1;
        }
    }

    fn is_legal(&self, mv: ReversiMove) -> bool {
        match mv.index() {
            Some(square) => self.placement_mask() >> square & 1 != 0,
            None => mv.is_pass() && self.must_pass(),
        }
    }

    fn play_unchecked(&mut self, mv: ReversiMove) {
        debug_assert!(self.is_legal(mv), "illegal Reversi move {mv:?}");
        match mv.index() {
            Some(square) => {
                let flipped = flipped_discs(self.player_discs(), self.opponent_discs(), square);
                self.place(square, flipped);
            }
            None => self.switch_turn(),
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        let (player, opponent) = (self.player_discs(), self.opponent_discs());
        if legal_move_mask(player, opponent) != 0 || legal_move_mask(opponent, player) != 0 {
            return None;
        }
        let black = self.discs[0].count_ones();
        let white = self.discs[1].count_ones();
        Some(match black.cmp(&white) {
            std::cmp::Ordering::Greater => Outcome::Win(Color::Black),
            std::cmp::Ordering::Less => Outcome::Win(Color::White),
            std::cmp::Ordering::Equal => Outcome::Draw,
        })
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    /// Squares `a1`..`h8` in any case; the pass as `pass`, `PA` or `ps` in any case.
    fn parse_move(&self, text: &str) -> Result<ReversiMove, MoveError> {
        if ["pass", "pa", "ps"].iter().any(|name| text.eq_ignore_ascii_case(name)) {
            return Ok(ReversiMove::PASS);
        }
        parse_square(text).map(|index| ReversiMove(index as u8))
    }

    fn format_move(&self, mv: ReversiMove) -> String {
        match mv.index() {
            Some(index) => format_square(index),
            None => "pass".to_string(),
        }
    }

    /// Row 1 at the top, `X` black, `O` white, `.` empty.
    fn board_text(&self) -> String {
        let header = "  a b c d e f g h".to_string();
        let mut lines = vec![header.clone()];
        for row in 0..8 {
            let cells: Vec<&str> = (0..8)
                .map(|column| match self.disc_at(row * 8 + column) {
                    Some(Color::Black) => "X",
                    Some(Color::White) => "O",
                    None => ".",
                })
                .collect();
            lines.push(format!("{} {} {}", row + 1, cells.join(" "), row + 1));
        }
        lines.push(header);
        lines.join("\n")
    }

    /// Edax's GTP `play`/`genmove` behaviour: when the side to move has no placement (it must
    /// pass), the pass is inserted so that `color` moves; otherwise the colour is refused
    /// (Edax answers "wrong color").
    const CELL_NAMES: super::CellNames = super::CellNames::LetterFromTop;

    fn stone_at_point(&self, column: usize, row_from_top: usize) -> Option<Color> {
        (column < 8 && row_from_top < 8).then(|| self.disc_at(row_from_top * 8 + column)).flatten()
    }

    /// Discs are placed as given, with no flips, on an empty board (KataGo's `set_position`).
    fn set_up(_: &ReversiConfig, stones: &[(Color, ReversiMove)], to_move: Color) -> Result<Reversi, PlayError> {
        let mut discs = [0u64; 2];
        for &(color, mv) in stones {
            let square = mv.index().ok_or(PlayError::Illegal)?;
            if (discs[0] | discs[1]) >> square & 1 != 0 {
                return Err(PlayError::Illegal);
            }
            discs[color.index()] |= 1 << square;
        }
        Reversi::from_bitboards(discs[0], discs[1], to_move).ok_or(PlayError::Illegal)
    }

    fn give_turn_to(&mut self, color: Color) -> Result<(), PlayError> {
        if self.outcome().is_some() {
            Err(PlayError::GameOver)
        } else if self.to_move == color {
            Ok(())
        } else if self.placement_mask() == 0 {
            // Not over and no placement: the opponent has one, so this is the forced pass.
            self.switch_turn();
            Ok(())
        } else {
            Err(PlayError::WrongTurn)
        }
    }

    /// `B+N`, `W+N` or `0`, with N Black's (or White's) disc count minus the other's and the
    /// empty squares counted for the winner (the FFO/Edax/WOF convention).
    fn score_text(&self) -> Option<String> {
        self.outcome()?;
        let margin = self.final_margin_for_black();
        Some(match margin.signum() {
            1 => format!("B+{margin}"),
            -1 => format!("W+{}", -margin),
            _ => "0".to_string(),
        })
    }

    /// Random placements drawn from the placement bitboard, passes taken in stride; only the
    /// final disc counts matter, so the hash is brought up to date once at the end.
    fn playout<R: rand::Rng>(&mut self, rng: &mut R) -> Outcome {
        let mover = self.to_move.index();
        let mut player = self.discs[mover];
        let mut opponent = self.discs[1 - mover];
        let mut player_is_mover = true;
        let mut passed = false;
        loop {
            let moves = legal_move_mask(player, opponent);
            if moves == 0 {
                if passed {
                    // Neither side can move: undo the pass just taken, so the side to move is
                    // that of the final position.
                    std::mem::swap(&mut player, &mut opponent);
                    player_is_mover = !player_is_mover;
                    break;
                }
                passed = true;
            } else {
                passed = false;
                let mut chosen = moves;
                for _ in 0..rng.random_range(0..moves.count_ones()) {
                    chosen &= chosen - 1;
                }
                let square = chosen.trailing_zeros() as usize;
                let flipped = flipped_discs(player, opponent, square);
                player |= flipped | (1u64 << square);
                opponent &= !flipped;
            }
            std::mem::swap(&mut player, &mut opponent);
            player_is_mover = !player_is_mover;
        }
        let (mover_discs, other_discs) = if player_is_mover { (player, opponent) } else { (opponent, player) };
        self.discs[mover] = mover_discs;
        self.discs[1 - mover] = other_discs;
        if !player_is_mover {
            self.to_move = self.to_move.opponent();
        }
        self.hash = self.hash_from_scratch();
        self.outcome().expect("a playout ends the game")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::perft;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    fn start() -> Reversi {
        Reversi::new(&ReversiConfig)
    }

    fn play_all(position: &mut Reversi, moves: &[&str]) {
        for text in moves {
            let mv = position.parse_move(text).unwrap();
            position.play(mv).unwrap_or_else(|e| panic!("{text}: {e}"));
        }
    }

    /// Flips by walking each direction square by square: the slow reference.
    fn flipped_by_walking(player: u64, opponent: u64, square: usize) -> u64 {
        if (player | opponent) >> square & 1 != 0 {
            return 0;
        }
        let mut flipped = 0;
        for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)] {
            let (mut x, mut y) = ((square % 8) as i32 + dx, (square / 8) as i32 + dy);
            let mut run = 0u64;
            while (0..8).contains(&x) && (0..8).contains(&y) {
                let bit = 1u64 << (y * 8 + x);
                if opponent & bit != 0 {
                    run |= bit;
                } else {
                    if player & bit != 0 {
                        flipped |= run;
                    }
                    break;
                }
                x += dx;
                y += dy;
            }
        }
        flipped
    }

    #[test]
    fn start_position_has_black_on_d5_and_e4() {
        let position = start();
        assert_eq!(position.disc_at(parse_square("d5").unwrap()), Some(Color::Black));
        assert_eq!(position.disc_at(parse_square("e4").unwrap()), Some(Color::Black));
        assert_eq!(position.disc_at(parse_square("d4").unwrap()), Some(Color::White));
        assert_eq!(position.disc_at(parse_square("e5").unwrap()), Some(Color::White));
        assert_eq!(position.to_move(), Color::Black);
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        let names: Vec<String> = moves.iter().map(|&m| position.format_move(m)).collect();
        // Black's four openings in the a1-top-left convention: d3, c4, f5, e6.
        assert_eq!(names, ["d3", "c4", "f5", "e6"]);
        assert_eq!(
            position.board_text(),
            "  a b c d e f g h\n\
             1 . . . . . . . . 1\n\
             2 . . . . . . . . 2\n\
             3 . . . . . . . . 3\n\
             4 . . . O X . . . 4\n\
             5 . . . X O . . . 5\n\
             6 . . . . . . . . 6\n\
             7 . . . . . . . . 7\n\
             8 . . . . . . . . 8\n  a b c d e f g h"
        );
    }

    #[test]
    fn perft_matches_the_published_counts_to_depth_9() {
        // Published Reversi perft (Aart Bik's and the Othello programming wiki's tables), where a
        // pass counts as one move: 4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288. No game
        // ends before move 9, so counting sequences (games::perft) agrees with counting leaves.
        let expected = [1, 4, 12, 56, 244, 1_396, 8_200, 55_092, 390_216, 3_005_288];
        for (depth, &count) in expected.iter().enumerate() {
            assert_eq!(perft(&start(), depth as u32), count, "depth {depth}");
        }
    }

    #[test]
    fn flips_and_mobility_match_a_square_by_square_walk() {
        let mut rng = SmallRng::seed_from_u64(11);
        for _ in 0..3000 {
            let occupied: u64 = rng.random::<u64>() | rng.random::<u64>();
            let player = occupied & rng.random::<u64>();
            let opponent = occupied & !player;
            let mut slow_moves = 0;
            for square in 0..64 {
                let slow = flipped_by_walking(player, opponent, square);
                if (player | opponent) >> square & 1 == 0 {
                    assert_eq!(flipped_discs(player, opponent, square), slow, "square {square}");
                }
                if slow != 0 {
                    slow_moves |= 1 << square;
                }
            }
            assert_eq!(legal_move_mask(player, opponent), slow_moves);
        }
    }

    #[test]
    fn a_side_without_placements_passes_and_give_turn_inserts_only_forced_passes() {
        // White: a1; Black: b1, c1 ... Black to move has no placement (nothing to outflank
        // beyond a1), White may play d1 and capture b1, c1.
        let a1 = 1u64;
        let black = 0b110;
        let mut position = Reversi::from_bitboards(black, a1, Color::Black).unwrap();
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        assert_eq!(moves, [ReversiMove::PASS]);
        assert!(position.is_legal(ReversiMove::PASS));
        assert_eq!(position.outcome(), None);
        let mut handed = position.clone();
        handed.give_turn_to(Color::White).unwrap();
        assert_eq!(handed.to_move(), Color::White);
        assert_eq!(handed.hash(), handed.hash_from_scratch());
        // play_as for White inserts the pass and plays d1: White wipes Black out.
        position.play_as(Color::White, position.parse_move("D1").unwrap()).unwrap();
        assert_eq!(position.discs(Color::White), 0b1111);
        assert_eq!(position.outcome(), Some(Outcome::Win(Color::White)));
        assert_eq!(position.score_text().as_deref(), Some("W+64"));
        // At the start Black can move, so handing White the turn is refused.
        let mut fresh = start();
        assert_eq!(fresh.give_turn_to(Color::White), Err(PlayError::WrongTurn));
        assert_eq!(fresh, start());
        assert!(!fresh.is_legal(ReversiMove::PASS));
        assert_eq!(fresh.play(ReversiMove::PASS), Err(PlayError::Illegal));
    }

    #[test]
    fn the_shortest_game_ends_after_nine_moves_and_empties_go_to_the_winner() {
        // A known nine-move wipe-out: Black ends with 13 discs, White with none.
        let mut position = start();
        play_all(&mut position, &["e6", "f4", "e3", "f6", "g5", "d6", "e7", "f5", "c5"]);
        assert_eq!(position.outcome(), Some(Outcome::Win(Color::Black)));
        assert_eq!(position.discs(Color::White), 0);
        assert_eq!(position.discs(Color::Black).count_ones(), 13);
        assert_eq!(position.score_text().as_deref(), Some("B+64"));
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        assert!(moves.is_empty());
        assert_eq!(position.play(ReversiMove::PASS), Err(PlayError::GameOver));
        assert_eq!(position.give_turn_to(Color::White), Err(PlayError::GameOver));
    }

    #[test]
    fn score_text_counts_empties_for_the_winner_and_draws_are_zero() {
        // Black 3, White 1, 60 empty, nobody can move (no outflanking lines).
        let black = (1 << 0) | (1 << 7) | (1 << 56);
        let white = 1 << 63;
        let position = Reversi::from_bitboards(black, white, Color::White).unwrap();
        assert_eq!(position.outcome(), Some(Outcome::Win(Color::Black)));
        assert_eq!(position.score_text().as_deref(), Some("B+62"));
        let even = Reversi::from_bitboards(1, 1 << 63, Color::Black).unwrap();
        assert_eq!(even.outcome(), Some(Outcome::Draw));
        assert_eq!(even.score_text().as_deref(), Some("0"));
        assert_eq!(start().score_text(), None);
    }

    #[test]
    fn incremental_hash_matches_from_scratch_over_random_games() {
        let mut rng = SmallRng::seed_from_u64(5);
        let mut moves = Vec::new();
        for _ in 0..200 {
            let mut position = start();
            while position.outcome().is_none() {
                moves.clear();
                position.legal_moves(&mut moves);
                let mv = moves[rng.random_range(0..moves.len())];
                position.play_unchecked(mv);
                assert_eq!(position.hash(), position.hash_from_scratch());
            }
        }
        let mut position = start();
        let outcome = position.playout(&mut rng);
        assert_eq!(Some(outcome), position.outcome());
        assert_eq!(position.hash(), position.hash_from_scratch());
        assert_ne!(
            start().hash(),
            Reversi::from_bitboards(start().discs[0], start().discs[1], Color::White).unwrap().hash()
        );
    }

    #[test]
    fn playout_ends_the_game_with_a_plausible_count() {
        let mut rng = SmallRng::seed_from_u64(9);
        let mut wins = [0; 2];
        for _ in 0..500 {
            let mut position = start();
            match position.playout(&mut rng) {
                Outcome::Win(color) => wins[color.index()] += 1,
                Outcome::Draw => {}
            }
            let mut moves = Vec::new();
            position.legal_moves(&mut moves);
            assert!(moves.is_empty());
        }
        // Random play wins roughly half the games for each side.
        assert!(wins[0] > 150 && wins[1] > 150, "{wins:?}");
    }

    #[test]
    fn moves_round_trip_through_text() {
        let position = start();
        for index in 0..64 {
            let mv = ReversiMove::square(index);
            let text = position.format_move(mv);
            assert_eq!(position.parse_move(&text), Ok(mv));
            assert_eq!(position.parse_move(&text.to_uppercase()), Ok(mv));
        }
        assert_eq!(position.format_move(ReversiMove::square(0)), "a1");
        assert_eq!(position.format_move(ReversiMove::square(63)), "h8");
        assert_eq!(position.format_move(ReversiMove::square(8 * 2 + 3)), "d3");
        for pass in ["pass", "PASS", "PA", "pa", "ps", "PS", "Pass"] {
            assert_eq!(position.parse_move(pass), Ok(ReversiMove::PASS));
        }
        assert_eq!(position.format_move(ReversiMove::PASS), "pass");
        assert_eq!(position.parse_move("i1"), Err(MoveError::OffBoard));
        assert_eq!(position.parse_move("a9"), Err(MoveError::OffBoard));
        assert_eq!(position.parse_move("a0"), Err(MoveError::OffBoard));
        assert_eq!(position.parse_move("1a"), Err(MoveError::Syntax));
        assert_eq!(position.parse_move(""), Err(MoveError::Syntax));
        assert_eq!(position.parse_move("a"), Err(MoveError::Syntax));
        assert_eq!(position.parse_move("é1"), Err(MoveError::Syntax));
    }

    #[test]
    fn only_eight_by_eight_is_accepted() {
        let mut config = ReversiConfig;
        assert_eq!(config.set_size(6, 6), Err(ConfigError::UnacceptableSize));
        assert_eq!(config.set_size(8, 10), Err(ConfigError::UnacceptableSize));
        config.set_size(8, 8).unwrap();
        assert_eq!(config.size(), (8, 8));
        assert!(config.params().is_empty());
        assert_eq!(config.set_param("x", "1"), Err(ConfigError::UnknownParam));
    }
}
