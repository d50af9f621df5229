//! The m,n,k family: players alternately put a stone on an empty cell of an m x n board; the
//! first to make k in a row (horizontally, vertically or diagonally) wins, and a full board is a
//! draw. Tic-tac-toe is (3,3,3); misère tic-tac-toe reverses the result (making k in a row
//! loses). Gomoku is (15,15,5) with an exact-five option in which an overline does not win.
//!
//! Cells are Go-style vertices (column letters without I, row 1 at the bottom), so Go GUIs draw
//! these games correctly. Black (X) moves first.

pub mod gomoku_knowledge;
pub mod gomoku_threats;

use super::{
    Color, ConfigError, Game, GameConfig, MoveError, Outcome, Param, format_go_vertex, parse_bool_param,
    parse_go_vertex, parse_int_param, zobrist_keys,
};

/// The largest board side of the family (Gomoku up to 25x25).
pub const MAX_SIDE: usize = 25;
const MAX_CELLS: usize = MAX_SIDE * MAX_SIDE;
const WORDS: usize = MAX_CELLS.div_ceil(64);

/// Keys for (colour, cell), then one for White to move.
static ZOBRIST: [u64; 2 * MAX_CELLS + 1] = zobrist_keys(0x6d6e_6b5f_7a6f_6272);
const WHITE_TO_MOVE_KEY: usize = 2 * MAX_CELLS;

/// Which game of the family a configuration describes: it decides the sizes and parameters
/// offered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MnkFamily {
    TicTacToe,
    Gomoku,
}

/// Variant settings of an m,n,k game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MnkConfig {
    family: MnkFamily,
    width: usize,
    height: usize,
    k: usize,
    misere: bool,
    exact: bool,
}

impl MnkConfig {
    /// Tic-tac-toe: 3x3, three in a row; `misere` and `k` as parameters, sides 2 to 10.
    pub fn tictactoe() -> MnkConfig {
        MnkConfig { family: MnkFamily::TicTacToe, width: 3, height: 3, k: 3, misere: false, exact: false }
    }

    /// Freestyle Gomoku: 15x15, five or more in a row; `exact_five` as a parameter, sides 5 to 25.
    pub fn gomoku() -> MnkConfig {
        MnkConfig { family: MnkFamily::Gomoku, width: 15, height: 15, k: 5, misere: false, exact: false }
    }

    pub fn family(&self) -> MnkFamily {
        self.family
    }

    pub fn k(&self) -> usize {
        self.k
    }

    fn side_range(&self) -> std::ops::RangeInclusive<usize> {
        match self.family {
            MnkFamily::TicTacToe => 2..=10,
            MnkFamily::Gomoku => 5..=MAX_SIDE,
        }
    }
}

impl GameConfig for MnkConfig {
    fn size(&self) -> (usize, usize) {
        (self.width, self.height)
    }

    fn set_size(&mut self, width: usize, height: usize) -> Result<(), ConfigError> {
        let sides = self.side_range();
        if !sides.contains(&width) || !sides.contains(&height) || self.k > width.max(height) {
            return Err(ConfigError::UnacceptableSize);
        }
        self.width = width;
        self.height = height;
        Ok(())
    }

    fn params(&self) -> Vec<Param> {
        match self.family {
            MnkFamily::TicTacToe => {
                vec![Param::int("k", self.k), Param::bool("misere", self.misere)]
            }
            MnkFamily::Gomoku => vec![Param::bool("exact_five", self.exact)],
        }
    }

    fn set_param(&mut self, name: &str, value: &str) -> Result<(), ConfigError> {
        match (self.family, name) {
            (MnkFamily::TicTacToe, "misere") => self.misere = parse_bool_param(value)?,
            (MnkFamily::TicTacToe, "k") => {
                self.k = parse_int_param(value, 2..=self.width.max(self.height))?;
            }
            (MnkFamily::Gomoku, "exact_five") => self.exact = parse_bool_param(value)?,
            _ => return Err(ConfigError::UnknownParam),
        }
        Ok(())
    }
}

/// A cell index: `row * width + column`, row 0 at the bottom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell(pub u16);

/// An m,n,k position: both colours' stones as bitboards, the side to move, the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mnk {
    width: u8,
    height: u8,
    k: u8,
    misere: bool,
    exact: bool,
    stones: [[u64; WORDS]; 2],
    empties: u16,
    to_move: Color,
    outcome: Option<Outcome>,
    hash: u64,
}

/// Line directions as (dx, dy): horizontal, vertical and the two diagonals.
const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

impl Mnk {
    pub fn width(&self) -> usize {
        self.width as usize
    }

    pub fn height(&self) -> usize {
        self.height as usize
    }

    /// Whether only an exact line of k wins (an overline does not).
    pub fn exact_k(&self) -> bool {
        self.exact
    }

    /// The stone on `cell`, if any.
    pub fn stone_at(&self, cell: Cell) -> Option<Color> {
        let index = cell.0 as usize;
        [Color::Black, Color::White].into_iter().find(|c| bit(&self.stones[c.index()], index))
    }

    /// The cell at zero-based `(column, row from the bottom)`.
    pub fn cell(&self, column: usize, row: usize) -> Cell {
        Cell((row * self.width() + column) as u16)
    }

    fn coordinates(&self, cell: Cell) -> (usize, usize) {
        (cell.0 as usize % self.width(), cell.0 as usize / self.width())
    }

    fn in_board(&self, cell: Cell) -> bool {
        (cell.0 as usize) < self.width() * self.height()
    }

    /// Length of the run of `color` stones through `cell` along `(dx, dy)`, `cell` included.
    fn run_length(&self, color: Color, cell: Cell, (dx, dy): (i32, i32)) -> usize {
        let (x, y) = self.coordinates(cell);
        let own = &self.stones[color.index()];
        let mut length = 1;
        for sign in [1, -1] {
            let (mut cx, mut cy) = (x as i32 + sign * dx, y as i32 + sign * dy);
            while cx >= 0
                && cy >= 0
                && (cx as usize) < self.width()
                && (cy as usize) < self.height()
                && bit(own, cy as usize * self.width() + cx as usize)
            {
                length += 1;
                cx += sign * dx;
                cy += sign * dy;
            }
        }
        length
    }

    /// Whether the stone just put on `cell` completes a winning line for `color`.
    fn makes_line(&self, color: Color, cell: Cell) -> bool {
        let k = self.k as usize;
        DIRECTIONS.iter().any(|&direction| {
            let length = self.run_length(color, cell, direction);
            if self.exact { length == k } else { length >= k }
        })
    }

    fn put_stone(&mut self, color: Color, cell: Cell) {
        let index = cell.0 as usize;
        self.stones[color.index()][index / 64] |= 1 << (index % 64);
        self.hash ^= ZOBRIST[color.index() * MAX_CELLS + index];
        self.empties -= 1;
        self.outcome = if self.makes_line(color, cell) {
            Some(Outcome::Win(if self.misere { color.opponent() } else { color }))
        } else if self.empties == 0 {
            Some(Outcome::Draw)
        } else {
            None
        };
    }

    fn set_to_move(&mut self, color: Color) {
        if self.to_move != color {
            self.to_move = color;
            self.hash ^= ZOBRIST[WHITE_TO_MOVE_KEY];
        }
    }

    fn is_empty(&self, index: usize) -> bool {
        !bit(&self.stones[0], index) && !bit(&self.stones[1], index)
    }

    /// The hash recomputed from the stones, for checking the incremental one.
    pub fn hash_from_scratch(&self) -> u64 {
        let mut hash = if self.to_move == Color::White { ZOBRIST[WHITE_TO_MOVE_KEY] } else { 0 };
        for index in 0..self.width() * self.height() {
            for color in [Color::Black, Color::White] {
                if bit(&self.stones[color.index()], index) {
                    hash ^= ZOBRIST[color.index() * MAX_CELLS + index];
                }
            }
        }
        hash
    }
}

fn bit(words: &[u64; WORDS], index: usize) -> bool {
    words[index / 64] >> (index % 64) & 1 != 0
}

impl Game for Mnk {
    type Move = Cell;
    type Config = MnkConfig;

    fn plies_left_bound(&self) -> Option<usize> {
        Some(self.empties as usize)
    }

    /// Gomoku between strong players ends after 30 to 80 stones (45 is 0.2 of a 15x15 board);
    /// the small games of the family are played out.
    fn expected_plies_left(&self) -> usize {
        let cells = self.width as usize * self.height as usize;
        let empty = self.empties as usize;
        if self.k < 5 {
            return empty;
        }
        super::typical_plies_left((cells / 5).max(30), cells - empty, 16, empty)
    }

    fn new(config: &MnkConfig) -> Mnk {
        Mnk {
            width: config.width as u8,
            height: config.height as u8,
            k: config.k as u8,
            misere: config.misere,
            exact: config.exact,
            stones: [[0; WORDS]; 2],
            empties: (config.width * config.height) as u16,
            to_move: Color::Black,
            outcome: None,
            hash: 0,
        }
    }

    fn to_move(&self) -> Color {
        self.to_move
    }

    fn legal_moves(&self, out: &mut Vec<Cell>) {
        if self.outcome.is_some() {
            return;
        }
        let cells = self.width() * self.height();
        for (word_index, (black, white)) in self.stones[0].iter().zip(&self.stones[1]).enumerate() {
            let base = word_index * 64;
            if base >= cells {
                break;
            }
            let valid = if cells - base >= 64 { u64::MAX } else { (1u64 << (cells - base)) - 1 };
            let mut empty = !(black | white) & valid;
            while empty != 0 {
                out.push(Cell((base + empty.trailing_zeros() as usize) as u16));
                empty &= empty - 1;
            }
        }
    }

    fn is_legal(&self, cell: Cell) -> bool {
        self.outcome.is_none() && self.in_board(cell) && self.is_empty(cell.0 as usize)
    }

    fn play_unchecked(&mut self, cell: Cell) {
        debug_assert!(self.is_legal(cell), "illegal m,n,k move {cell:?}");
        let color = self.to_move;
        self.put_stone(color, cell);
        self.set_to_move(color.opponent());
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn parse_move(&self, text: &str) -> Result<Cell, MoveError> {
        let (column, row) = parse_go_vertex(text, self.width(), self.height())?;
        Ok(self.cell(column, row))
    }

    fn format_move(&self, cell: Cell) -> String {
        let (column, row) = self.coordinates(cell);
        format_go_vertex(column, row)
    }

    fn board_text(&self) -> String {
        super::go_board_text(self.width(), self.height(), |column, row| {
            super::stone_symbol(self.stone_at(self.cell(column, row)))
        })
    }

    /// Stones may be set in any order (Go-style set-up), so any colour may be handed the turn.
    fn give_turn_to(&mut self, color: Color) -> Result<(), super::PlayError> {
        if self.outcome.is_some() {
            return Err(super::PlayError::GameOver);
        }
        self.set_to_move(color);
        Ok(())
    }

    fn stone_at_point(&self, column: usize, row_from_top: usize) -> Option<Color> {
        if column >= self.width() || row_from_top >= self.height() {
            return None;
        }
        self.stone_at(self.cell(column, self.height() - 1 - row_from_top))
    }

    /// Gomoku: the threat-aware playout of [`gomoku_knowledge::playout`]. Other m,n,k games:
    /// random moves drawn from a shrinking list of empty cells: one scan of the board, then
    /// constant work per move.
    fn playout<R: rand::Rng>(&mut self, rng: &mut R) -> Outcome {
        if let Some(outcome) = self.outcome {
            return outcome;
        }
        if gomoku_knowledge::applies(self) {
            return gomoku_knowledge::playout(self, rng);
        }
        let mut empties = Vec::with_capacity(self.empties as usize);
        self.legal_moves(&mut empties);
        loop {
            let cell = empties.swap_remove(rng.random_range(0..empties.len()));
            self.play_unchecked(cell);
            if let Some(outcome) = self.outcome {
                return outcome;
            }
        }
    }

    // No RAVE (`SUPPORTS_RAVE` stays false): in Gomoku the value of a stone depends on the order
    // of threats, which all-moves-as-first statistics blur, and the threat priors already rank
    // the moves.

    /// Gomoku: threat-aware priors ([`gomoku_knowledge::move_priors`]); none for the others.
    fn move_priors(&self, moves: &[Cell], priors: &mut [super::Prior]) {
        gomoku_knowledge::move_priors(self, moves, priors);
    }

    /// Gomoku: a five to complete, or two of the opponent's to block
    /// ([`gomoku_knowledge::proven_outcome`]); none for the others.
    fn proven_outcome(&self) -> Option<Outcome> {
        gomoku_knowledge::proven_outcome(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::perft;
    use rustc_hash::FxHashSet;

    fn tictactoe() -> Mnk {
        Mnk::new(&MnkConfig::tictactoe())
    }

    fn play_all(position: &mut Mnk, moves: &[&str]) {
        for text in moves {
            let mv = position.parse_move(text).unwrap();
            position.play(mv).unwrap();
        }
    }

    /// Counts complete games (sequences of moves from the start to an end).
    fn complete_games(position: &Mnk) -> u64 {
        if position.outcome().is_some() {
            return 1;
        }
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        moves
            .iter()
            .map(|&mv| {
                let mut child = position.clone();
                child.play_unchecked(mv);
                complete_games(&child)
            })
            .sum()
    }

    fn reachable(position: &Mnk, seen: &mut FxHashSet<u64>) {
        if !seen.insert(position.hash()) {
            return;
        }
        assert_eq!(position.hash(), position.hash_from_scratch());
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        for mv in moves {
            let mut child = position.clone();
            child.play_unchecked(mv);
            reachable(&child, seen);
        }
    }

    #[test]
    fn tictactoe_has_255168_games_and_5478_positions() {
        // Both figures are classical (e.g. Schaefer's tic-tac-toe analysis): 255,168 complete
        // games and 5,478 distinct reachable positions including the empty board.
        assert_eq!(complete_games(&tictactoe()), 255_168);
        let mut seen = FxHashSet::default();
        reachable(&tictactoe(), &mut seen);
        assert_eq!(seen.len(), 5_478);
    }

    #[test]
    fn perft_matches_the_known_game_lengths() {
        // Complete tic-tac-toe games by length (a classical count): 1,440 end after five moves,
        // 5,328 after six, 47,952 after seven, 72,576 after eight and 127,872 after nine. Each
        // running sequence has 9 - d continuations, so perft(d + 1) = (perft(d) - ended(d)) * (9 - d).
        let start = tictactoe();
        let expected = [1, 9, 72, 504, 3_024, 15_120, 54_720, 148_176, 200_448, 127_872, 0];
        for (depth, &count) in expected.iter().enumerate() {
            assert_eq!(perft(&start, depth as u32), count, "depth {depth}");
        }
    }

    #[test]
    fn rows_columns_and_diagonals_win() {
        let games: [&[&str]; 4] = [
            &["a1", "a2", "b1", "b2", "c1"],
            &["a1", "b1", "a2", "b2", "a3"],
            &["a1", "a2", "b2", "a3", "c3"],
            &["a3", "a1", "b2", "b1", "c1"],
        ];
        for moves in games {
            let mut position = tictactoe();
            play_all(&mut position, moves);
            assert_eq!(position.outcome(), Some(Outcome::Win(Color::Black)), "{moves:?}");
            assert_eq!(position.play(position.parse_move("c2").unwrap()), Err(crate::games::PlayError::GameOver));
            let mut moves_after = Vec::new();
            position.legal_moves(&mut moves_after);
            assert!(moves_after.is_empty());
        }
    }

    #[test]
    fn misere_makes_three_in_a_row_lose() {
        let mut config = MnkConfig::tictactoe();
        config.set_param("misere", "1").unwrap();
        let mut position = Mnk::new(&config);
        play_all(&mut position, &["a1", "a2", "b1", "b2", "c1"]);
        assert_eq!(position.outcome(), Some(Outcome::Win(Color::White)));
    }

    #[test]
    fn full_board_without_a_line_is_a_draw() {
        let mut position = tictactoe();
        play_all(&mut position, &["a1", "b2", "c3", "b1", "b3", "a3", "c1", "c2", "a2"]);
        assert_eq!(position.outcome(), Some(Outcome::Draw));
        assert_eq!(position.score_text().as_deref(), Some("0"));
    }

    #[test]
    fn exact_five_rejects_overlines() {
        let mut config = MnkConfig::gomoku();
        config.set_param("exact_five", "1").unwrap();
        let mut position = Mnk::new(&config);
        // Black builds a1..d1 and f1, then fills e1: six in a row, not a win.
        play_all(&mut position, &["a1", "a3", "b1", "b3", "c1", "c3", "d1", "d3", "f1", "f3", "e1"]);
        assert_eq!(position.outcome(), None);
        let mut freestyle = Mnk::new(&MnkConfig::gomoku());
        play_all(&mut freestyle, &["a1", "a3", "b1", "b3", "c1", "c3", "d1", "d3", "f1", "f3", "e1"]);
        assert_eq!(freestyle.outcome(), Some(Outcome::Win(Color::Black)));
    }

    #[test]
    fn vertices_round_trip_and_skip_i() {
        let position = Mnk::new(&MnkConfig::gomoku());
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        assert_eq!(moves.len(), 225);
        for mv in moves {
            assert_eq!(position.parse_move(&position.format_move(mv)), Ok(mv));
        }
        assert_eq!(position.format_move(position.cell(8, 0)), "J1");
        assert_eq!(position.parse_move("I5"), Err(MoveError::Syntax));
        assert_eq!(position.parse_move("Q1"), Err(MoveError::OffBoard));
        assert_eq!(position.parse_move("A16"), Err(MoveError::OffBoard));
        assert_eq!(position.parse_move("A0"), Err(MoveError::OffBoard));
        assert_eq!(position.parse_move("5A"), Err(MoveError::Syntax));
    }

    #[test]
    fn play_as_hands_over_the_turn_and_keeps_the_hash() {
        let mut position = tictactoe();
        position.play_as(Color::White, Cell(4)).unwrap();
        position.play_as(Color::White, Cell(0)).unwrap();
        assert_eq!(position.to_move(), Color::Black);
        assert_eq!(position.hash(), position.hash_from_scratch());
        let before = position.clone();
        assert_eq!(position.play_as(Color::Black, Cell(4)), Err(crate::games::PlayError::Illegal));
        assert_eq!(position, before);
    }

    #[test]
    fn sizes_are_checked() {
        let mut config = MnkConfig::tictactoe();
        assert_eq!(config.set_size(1, 1), Err(ConfigError::UnacceptableSize));
        assert_eq!(config.set_size(11, 3), Err(ConfigError::UnacceptableSize));
        config.set_size(4, 4).unwrap();
        assert_eq!(config.size(), (4, 4));
        let mut gomoku = MnkConfig::gomoku();
        assert_eq!(gomoku.set_size(4, 4), Err(ConfigError::UnacceptableSize));
        gomoku.set_size(25, 8).unwrap();
    }
}
