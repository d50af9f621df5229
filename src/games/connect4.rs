//! Connect Four on any board from 4x4 to 12x12, with optional blocked cells.
//!
//! Players alternately drop a piece into a column; it lands on the lowest free cell of that
//! column. Four of one's own pieces in a row (horizontally, vertically or diagonally) win; a full
//! board without such a line is a draw. Black moves first.
//!
//! A blocked cell holds no piece and breaks every line through it. A column fills past it: once
//! the cells below a blocked cell are taken, the next piece lands on the next free cell above it
//! (a column whose top cells are all blocked is full earlier).
//!
//! A move is a column. It is written as the GTP vertex of the cell where the piece lands (columns
//! A… without I, row 1 at the bottom, so `d1` is the first piece in column d); input also accepts
//! a bare column letter (`d`) or a 1-based column number (`4`, as in Pascal Pons' move strings).
//!
//! Boards hold up to 144 cells, so stones are kept as three-word bitboards with a general
//! layout; the exact solver (`crate::solvers::connect4`) builds its own single-word Pons bitboard
//! from this module's public accessors.

use super::{
    Color, ConfigError, Game, GameConfig, MoveError, Outcome, Param, PlayError, format_go_vertex, parse_go_vertex,
    zobrist_keys,
};

/// The smallest board side.
pub const MIN_SIDE: usize = 4;
/// The largest board side.
pub const MAX_SIDE: usize = 12;
const MAX_CELLS: usize = MAX_SIDE * MAX_SIDE;
const WORDS: usize = MAX_CELLS.div_ceil(64);
/// The number of pieces in a row that wins.
pub const LINE_LENGTH: usize = 4;

/// Keys for (Black, cell), (White, cell), (blocked, cell), then one for White to move. Blocked
/// cells are hashed so that positions of different variants never share a hash.
static ZOBRIST: [u64; 3 * MAX_CELLS + 1] = zobrist_keys(0x6334_5f7a_6f62_7269);
const BLOCKED_KEYS: usize = 2 * MAX_CELLS;
const WHITE_TO_MOVE_KEY: usize = 3 * MAX_CELLS;

/// Variant settings of Connect Four: the board size and the blocked cells.
///
/// When the size changes, blocked cells that fall off the new board are dropped (and the others
/// kept), so that a GUI's routine `boardsize` never fails because of an earlier `blocked` setting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Connect4Config {
    width: usize,
    height: usize,
    /// Zero-based `(column, row from the bottom)`, sorted, without duplicates.
    blocked: Vec<(usize, usize)>,
}

impl Default for Connect4Config {
    /// The classic 7x6 board without blocked cells.
    fn default() -> Connect4Config {
        Connect4Config { width: 7, height: 6, blocked: Vec::new() }
    }
}

impl Connect4Config {
    /// The blocked cells as zero-based `(column, row from the bottom)`, sorted by column then row.
    pub fn blocked_cells(&self) -> &[(usize, usize)] {
        &self.blocked
    }

    /// The `blocked` parameter's text: comma-separated lower-case vertices, empty for none.
    fn blocked_text(&self) -> String {
        self.blocked
            .iter()
            .map(|&(column, row)| format_go_vertex(column, row).to_ascii_lowercase())
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Reads a comma-separated list of vertices on the current board (spaces around entries are
    /// ignored; an empty text means none).
    fn parse_blocked(&self, value: &str) -> Result<Vec<(usize, usize)>, ConfigError> {
        let mut cells = Vec::new();
        // GTP cannot send an empty argument, so `none` (or `-`) clears the list.
        if value.eq_ignore_ascii_case("none") || value == "-" {
            return Ok(cells);
        }
        for entry in value.split(',').map(str::trim).filter(|entry| !entry.is_empty()) {
            let cell = parse_go_vertex(entry, self.width, self.height).map_err(|error| {
                ConfigError::InvalidValue(format!(
                    "{entry}: {error}; expected cells like c3,f5 on the {}x{} board",
                    self.width, self.height
                ))
            })?;
            cells.push(cell);
        }
        cells.sort_unstable();
        cells.dedup();
        Ok(cells)
    }
}

impl GameConfig for Connect4Config {
    fn size(&self) -> (usize, usize) {
        (self.width, self.height)
    }

    /// Accepts any width and height from 4 to 12; drops the blocked cells off the new board.
    fn set_size(&mut self, width: usize, height: usize) -> Result<(), ConfigError> {
        let sides = MIN_SIDE..=MAX_SIDE;
        if !sides.contains(&width) || !sides.contains(&height) {
            return Err(ConfigError::UnacceptableSize);
        }
        self.width = width;
        self.height = height;
        self.blocked.retain(|&(column, row)| column < width && row < height);
        Ok(())
    }

    fn params(&self) -> Vec<Param> {
        vec![Param::string("blocked", self.blocked_text())]
    }

    fn set_param(&mut self, name: &str, value: &str) -> Result<(), ConfigError> {
        match name {
            "blocked" => self.blocked = self.parse_blocked(value)?,
            _ => return Err(ConfigError::UnknownParam),
        }
        Ok(())
    }
}

/// A move: the zero-based column the piece is dropped into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Column(pub u8);

/// What one cell of the board holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CellState {
    /// Free: a piece may still land here.
    Empty,
    /// Blocked by the variant: never holds a piece.
    Blocked,
    /// Holds a piece of this colour.
    Stone(Color),
}

/// A Connect Four position: both colours' pieces and the blocked cells as bitboards (cell index
/// `column * height + row`, row 0 at the bottom), the landing row of every column, the side to
/// move and the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Connect4 {
    width: u8,
    height: u8,
    stones: [[u64; WORDS]; 2],
    blocked: [u64; WORDS],
    /// The row where the next piece in each column lands; `height` once the column is full.
    landing_row: [u8; MAX_SIDE],
    free_cells: u8,
    to_move: Color,
    outcome: Option<Outcome>,
    hash: u64,
}

/// Line directions as (dx, dy): horizontal, vertical and the two diagonals.
const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

fn bit(words: &[u64; WORDS], index: usize) -> bool {
    words[index / 64] >> (index % 64) & 1 != 0
}

fn set_bit(words: &mut [u64; WORDS], index: usize) {
    words[index / 64] |= 1 << (index % 64);
}

impl Connect4 {
    /// Board width (number of columns).
    pub fn width(&self) -> usize {
        self.width as usize
    }

    /// Board height (number of rows).
    pub fn height(&self) -> usize {
        self.height as usize
    }

    /// The number of cells still free (neither taken nor blocked).
    pub fn free_cells(&self) -> usize {
        self.free_cells as usize
    }

    /// What the cell at zero-based `(column, row from the bottom)` holds.
    ///
    /// # Panics
    /// When the cell is off the board.
    pub fn cell_state(&self, column: usize, row: usize) -> CellState {
        assert!(column < self.width() && row < self.height(), "cell ({column}, {row}) off the board");
        let index = self.index(column, row);
        if bit(&self.blocked, index) {
            CellState::Blocked
        } else if bit(&self.stones[0], index) {
            CellState::Stone(Color::Black)
        } else if bit(&self.stones[1], index) {
            CellState::Stone(Color::White)
        } else {
            CellState::Empty
        }
    }

    /// The row (zero-based from the bottom) where a piece dropped into `column` lands, or `None`
    /// when the column is full or off the board.
    pub fn landing_row(&self, column: usize) -> Option<usize> {
        let row = *self.landing_row.get(column)? as usize;
        (column < self.width() && row < self.height()).then_some(row)
    }

    fn index(&self, column: usize, row: usize) -> usize {
        column * self.height() + row
    }

    /// The lowest free row at or above `row` in `column`; `height` when there is none.
    fn free_row_from(&self, column: usize, mut row: usize) -> usize {
        while row < self.height() && bit(&self.blocked, self.index(column, row)) {
            row += 1;
        }
        row
    }

    /// Whether `color` has four in a row through the cell at `(column, row)`, which holds one of
    /// its pieces.
    fn makes_line(&self, color: Color, column: usize, row: usize) -> bool {
        let own = &self.stones[color.index()];
        let (width, height) = (self.width() as i32, self.height() as i32);
        DIRECTIONS.iter().any(|&(dx, dy)| {
            let mut length = 1;
            for sign in [1, -1] {
                let (mut x, mut y) = (column as i32 + sign * dx, row as i32 + sign * dy);
                while x >= 0 && y >= 0 && x < width && y < height && bit(own, x as usize * self.height() + y as usize) {
                    length += 1;
                    x += sign * dx;
                    y += sign * dy;
                }
            }
            length >= LINE_LENGTH
        })
    }

    fn set_to_move(&mut self, color: Color) {
        if self.to_move != color {
            self.to_move = color;
            self.hash ^= ZOBRIST[WHITE_TO_MOVE_KEY];
        }
    }

    /// The hash recomputed from the board, for checking the incremental one.
    pub fn hash_from_scratch(&self) -> u64 {
        let mut hash = if self.to_move == Color::White { ZOBRIST[WHITE_TO_MOVE_KEY] } else { 0 };
        for index in 0..self.width() * self.height() {
            for (words, base) in [(&self.stones[0], 0), (&self.stones[1], MAX_CELLS), (&self.blocked, BLOCKED_KEYS)] {
                if bit(words, index) {
                    hash ^= ZOBRIST[base + index];
                }
            }
        }
        hash
    }

    fn playable(&self, column: usize) -> bool {
        column < self.width() && (self.landing_row[column] as usize) < self.height()
    }
}

impl Game for Connect4 {
    type Move = Column;
    type Config = Connect4Config;

    fn plies_left_bound(&self) -> Option<usize> {
        Some(self.free_cells as usize)
    }

    /// Connect Four is decided early: between strong players the result is known (and the
    /// rest is played from the proof, in no time) once about 0.4 of the board is filled (16
    /// pieces on 7x6), so the clock is for the plies before that, with 6 in reserve.
    fn expected_plies_left(&self) -> usize {
        let cells = self.width as usize * self.height as usize;
        let blocked: usize = self.blocked.iter().map(|word| word.count_ones() as usize).sum();
        let played = cells - self.free_cells as usize - blocked;
        super::typical_plies_left(cells * 2 / 5, played, 6, self.free_cells as usize)
    }

    fn stone_at_point(&self, column: usize, row_from_top: usize) -> Option<Color> {
        if column >= self.width() || row_from_top >= self.height() {
            return None;
        }
        match self.cell_state(column, self.height() - 1 - row_from_top) {
            CellState::Stone(color) => Some(color),
            CellState::Empty | CellState::Blocked => None,
        }
    }

    fn new(config: &Connect4Config) -> Connect4 {
        let mut position = Connect4 {
            width: config.width as u8,
            height: config.height as u8,
            stones: [[0; WORDS]; 2],
            blocked: [0; WORDS],
            landing_row: [0; MAX_SIDE],
            free_cells: (config.width * config.height - config.blocked.len()) as u8,
            to_move: Color::Black,
            outcome: None,
            hash: 0,
        };
        for &(column, row) in &config.blocked {
            let index = position.index(column, row);
            set_bit(&mut position.blocked, index);
            position.hash ^= ZOBRIST[BLOCKED_KEYS + index];
        }
        for column in 0..position.width() {
            position.landing_row[column] = position.free_row_from(column, 0) as u8;
        }
        // A board blocked everywhere has no move at all: call it a draw at once.
        if position.free_cells == 0 {
            position.outcome = Some(Outcome::Draw);
        }
        position
    }

    fn to_move(&self) -> Color {
        self.to_move
    }

    fn legal_moves(&self, out: &mut Vec<Column>) {
        if self.outcome.is_some() {
            return;
        }
        out.extend((0..self.width()).filter(|&column| self.playable(column)).map(|c| Column(c as u8)));
    }

    fn is_legal(&self, mv: Column) -> bool {
        self.outcome.is_none() && self.playable(mv.0 as usize)
    }

    fn play_unchecked(&mut self, mv: Column) {
        debug_assert!(self.is_legal(mv), "illegal Connect Four move {mv:?}");
        let color = self.to_move;
        let column = mv.0 as usize;
        let row = self.landing_row[column] as usize;
        let index = self.index(column, row);
        set_bit(&mut self.stones[color.index()], index);
        self.hash ^= ZOBRIST[color.index() * MAX_CELLS + index];
        self.landing_row[column] = self.free_row_from(column, row + 1) as u8;
        self.free_cells -= 1;
        self.outcome = if self.makes_line(color, column, row) {
            Some(Outcome::Win(color))
        } else if self.free_cells == 0 {
            Some(Outcome::Draw)
        } else {
            None
        };
        self.set_to_move(color.opponent());
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    /// Reads a column letter (`d`), a 1-based column number (`4`) or the vertex of the cell where
    /// the next piece in that column lands (`d1` on an empty column).
    ///
    /// # Errors
    /// [`MoveError::Syntax`] for text that is none of these; [`MoveError::OffBoard`] for a column
    /// outside the board and for a vertex that is not where a piece would land now (a cell already
    /// taken, blocked, floating above the landing cell, or in a full column): such a vertex names
    /// no move of this position. A full column given by letter or number parses and is then
    /// refused as illegal by `play`.
    fn parse_move(&self, text: &str) -> Result<Column, MoveError> {
        let text = text.trim();
        let bytes = text.as_bytes();
        if bytes.is_empty() {
            return Err(MoveError::Syntax);
        }
        // A 1-based column number.
        if bytes.iter().all(u8::is_ascii_digit) {
            if bytes.len() > 2 {
                return Err(MoveError::Syntax);
            }
            let number: usize = text.parse().map_err(|_| MoveError::Syntax)?;
            if number == 0 || number > self.width() {
                return Err(MoveError::OffBoard);
            }
            return Ok(Column((number - 1) as u8));
        }
        // A bare column letter.
        if bytes.len() == 1 {
            let letter = bytes[0].to_ascii_uppercase();
            let column = super::GO_COLUMN_LETTERS.iter().position(|&c| c == letter).ok_or(MoveError::Syntax)?;
            if column >= self.width() {
                return Err(MoveError::OffBoard);
            }
            return Ok(Column(column as u8));
        }
        // A vertex: only the landing cell of its column names a move.
        let (column, row) = parse_go_vertex(text, self.width(), self.height())?;
        if self.landing_row(column) == Some(row) { Ok(Column(column as u8)) } else { Err(MoveError::OffBoard) }
    }

    /// The vertex of the cell where the piece lands in this position (lower case, `d1`); the bare
    /// column letter for a full column, which names no landing cell.
    fn format_move(&self, mv: Column) -> String {
        let column = mv.0 as usize;
        match self.landing_row(column) {
            Some(row) => format_go_vertex(column, row).to_ascii_lowercase(),
            None => (super::GO_COLUMN_LETTERS[column.min(MAX_SIDE)] as char).to_ascii_lowercase().to_string(),
        }
    }

    fn board_text(&self) -> String {
        super::go_board_text(self.width(), self.height(), |column, row| match self.cell_state(column, row) {
            CellState::Stone(color) => super::stone_symbol(Some(color)),
            CellState::Blocked => '#',
            CellState::Empty => '.',
        })
    }

    /// Pieces may be set up in any order (GTP set-up with `play`), so any colour may be handed
    /// the turn.
    fn give_turn_to(&mut self, color: Color) -> Result<(), PlayError> {
        if self.outcome.is_some() {
            return Err(PlayError::GameOver);
        }
        self.set_to_move(color);
        Ok(())
    }

    /// Uniformly random columns drawn from a shrinking array of playable columns: no allocation,
    /// constant work per move beyond the line check.
    fn playout<R: rand::Rng>(&mut self, rng: &mut R) -> Outcome {
        if let Some(outcome) = self.outcome {
            return outcome;
        }
        let mut open = [0u8; MAX_SIDE];
        let mut open_count = 0;
        for column in 0..self.width() {
            if self.playable(column) {
                open[open_count] = column as u8;
                open_count += 1;
            }
        }
        loop {
            let slot = rng.random_range(0..open_count);
            let column = open[slot] as usize;
            self.play_unchecked(Column(column as u8));
            if let Some(outcome) = self.outcome {
                return outcome;
            }
            if !self.playable(column) {
                open_count -= 1;
                open[slot] = open[open_count];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::perft;
    use rand::{Rng, SeedableRng};

    fn classic() -> Connect4 {
        Connect4::new(&Connect4Config::default())
    }

    fn with_blocked(width: usize, height: usize, blocked: &str) -> Connect4 {
        let mut config = Connect4Config::default();
        config.set_size(width, height).unwrap();
        config.set_param("blocked", blocked).unwrap();
        Connect4::new(&config)
    }

    fn play_all(position: &mut Connect4, moves: &str) {
        for text in moves.split_whitespace() {
            let mv = position.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            position.play(mv).unwrap_or_else(|e| panic!("{text}: {e}"));
        }
    }

    #[test]
    fn perft_from_the_start_matches_the_published_counts() {
        // Move sequences of length d from the empty 7x6 board; the same counts come out of
        // OpenSpiel's connect_four (open_spiel 2.0.2 from PyPI, counted once, depths 0 to 9) and agree
        // with the closed forms 7^d for d <= 6 and 7^7 - 7 (seven columns cannot take seven
        // pieces) for d = 7.
        let start = classic();
        let expected = [1, 7, 49, 343, 2_401, 16_807, 117_649, 823_536, 5_673_234];
        for (depth, &count) in expected.iter().enumerate() {
            assert_eq!(perft(&start, depth as u32), count, "depth {depth}");
        }
    }

    #[test]
    #[ignore = "slow: several seconds in release mode"]
    fn perft_depth_nine() {
        // From OpenSpiel's connect_four as above.
        assert_eq!(perft(&classic(), 9), 39_394_572);
    }

    #[test]
    fn rows_columns_and_diagonals_win() {
        let games: [(&str, Color); 4] = [
            // Row: Black a1 b1 c1 d1.
            ("a a b b c c d", Color::Black),
            // Column: White stacks g1..g4 while Black plays elsewhere.
            ("a g b g a g b g", Color::White),
            // Rising diagonal a1 b2 c3 d4 for Black.
            ("a b b c c d c d d g d", Color::Black),
            // Falling diagonal d1 c2 b3 a4 for Black.
            ("d c c b b a b a a g a", Color::Black),
        ];
        for (moves, winner) in games {
            let mut position = classic();
            play_all(&mut position, moves);
            assert_eq!(position.outcome(), Some(Outcome::Win(winner)), "{moves}\n{}", position.board_text());
            assert_eq!(position.play(Column(5)), Err(PlayError::GameOver));
            let mut after = Vec::new();
            position.legal_moves(&mut after);
            assert!(after.is_empty());
        }
    }

    #[test]
    fn three_in_a_row_does_not_win_and_lines_need_adjacency() {
        let mut position = classic();
        play_all(&mut position, "a a b b c g e g");
        // Black has a1 b1 c1 and e1, with d1 empty.
        assert_eq!(position.outcome(), None);
        play_all(&mut position, "d");
        assert_eq!(position.outcome(), Some(Outcome::Win(Color::Black)));
    }

    #[test]
    fn full_board_without_four_is_a_draw() {
        // On 4x4 fill columns in the pattern XXOO / OOXX by rows: rows 1 and 3 are X X O O,
        // rows 2 and 4 are O O X X, so no line of four forms anywhere.
        let mut position = Connect4::new(&{
            let mut config = Connect4Config::default();
            config.set_size(4, 4).unwrap();
            config
        });
        // Row 1: a b c d = X X O O needs moves X:a O:c X:b O:d.
        play_all(&mut position, "a c b d");
        // Row 2: O O X X: X:c O:a X:d O:b.
        play_all(&mut position, "c a d b");
        // Row 3: X X O O again, row 4: O O X X again.
        play_all(&mut position, "a c b d c a d");
        assert_eq!(position.outcome(), None);
        play_all(&mut position, "b");
        assert_eq!(position.outcome(), Some(Outcome::Draw), "\n{}", position.board_text());
        assert_eq!(position.score_text().as_deref(), Some("0"));
    }

    #[test]
    fn blocked_cells_are_skipped_and_break_lines() {
        // d1 blocked: a piece in column d lands on d2; Black's a1 b1 c1 + e1 f1 g1 never connect.
        let mut position = with_blocked(7, 6, "d1");
        assert_eq!(position.cell_state(3, 0), CellState::Blocked);
        assert_eq!(position.landing_row(3), Some(1));
        assert_eq!(position.parse_move("d2"), Ok(Column(3)));
        assert_eq!(position.parse_move("d1"), Err(MoveError::OffBoard));
        play_all(&mut position, "a a b b c c e e f f g");
        assert_eq!(position.outcome(), None, "\n{}", position.board_text());
        // Pieces in column d now land on d2, which joins White's a2 b2 c2 and e2 f2.
        play_all(&mut position, "d2");
        assert_eq!(position.cell_state(3, 1), CellState::Stone(Color::White));
        assert_eq!(position.outcome(), Some(Outcome::Win(Color::White)));

        // A blocked cell in the middle of a column: c2 blocked, pieces go c1, c3, c4.
        let mut position = with_blocked(4, 4, "c2");
        play_all(&mut position, "c c");
        assert_eq!(position.cell_state(2, 0), CellState::Stone(Color::Black));
        assert_eq!(position.cell_state(2, 2), CellState::Stone(Color::White));
        assert_eq!(position.format_move(Column(2)), "c4");
        play_all(&mut position, "c4");
        assert_eq!(position.landing_row(2), None);
        assert!(!position.is_legal(Column(2)));
        assert_eq!(position.free_cells(), 16 - 1 - 3);

        // A blocked top cell makes the column full one piece early.
        let mut position = with_blocked(4, 4, "a4");
        play_all(&mut position, "a a a");
        assert!(!position.is_legal(Column(0)));
        assert_eq!(position.play(Column(0)), Err(PlayError::Illegal));
    }

    #[test]
    fn a_board_with_every_free_cell_filled_is_a_draw_even_with_blocked_cells() {
        let mut position = with_blocked(4, 4, "a1,b2,c3,d4,a4,d1");
        assert_eq!(position.free_cells(), 10);
        for _ in 0..10 {
            assert_eq!(position.outcome(), None);
            let mut moves = Vec::new();
            position.legal_moves(&mut moves);
            position.play(moves[0]).unwrap();
            if position.outcome().is_some() {
                break;
            }
        }
        assert!(position.outcome().is_some());
    }

    #[test]
    fn moves_parse_in_every_notation() {
        let mut position = classic();
        assert_eq!(position.parse_move("d"), Ok(Column(3)));
        assert_eq!(position.parse_move("D"), Ok(Column(3)));
        assert_eq!(position.parse_move("4"), Ok(Column(3)));
        assert_eq!(position.parse_move("d1"), Ok(Column(3)));
        assert_eq!(position.parse_move("d2"), Err(MoveError::OffBoard));
        assert_eq!(position.parse_move("8"), Err(MoveError::OffBoard));
        assert_eq!(position.parse_move("0"), Err(MoveError::OffBoard));
        assert_eq!(position.parse_move("h"), Err(MoveError::OffBoard));
        assert_eq!(position.parse_move("i"), Err(MoveError::Syntax));
        assert_eq!(position.parse_move(""), Err(MoveError::Syntax));
        assert_eq!(position.parse_move("d1x"), Err(MoveError::Syntax));
        assert_eq!(position.parse_move("h1"), Err(MoveError::OffBoard));
        play_all(&mut position, "d d d d d d");
        assert_eq!(position.parse_move("d"), Ok(Column(3)));
        assert_eq!(position.play(Column(3)), Err(PlayError::Illegal));
        assert_eq!(position.parse_move("d6"), Err(MoveError::OffBoard));
        assert_eq!(position.format_move(Column(3)), "d");
        // Every legal move round-trips through its vertex on a wide board (columns past I).
        let mut wide = with_blocked(12, 12, "j1");
        play_all(&mut wide, "m l 12 10");
        let mut moves = Vec::new();
        wide.legal_moves(&mut moves);
        assert_eq!(moves.len(), 12);
        for mv in moves {
            assert_eq!(wide.parse_move(&wide.format_move(mv)), Ok(mv));
        }
        assert_eq!(wide.format_move(Column(8)), "j2");
    }

    #[test]
    fn config_checks_sizes_and_blocked_cells() {
        let mut config = Connect4Config::default();
        assert_eq!(config.set_size(3, 6), Err(ConfigError::UnacceptableSize));
        assert_eq!(config.set_size(7, 13), Err(ConfigError::UnacceptableSize));
        assert_eq!(config.size(), (7, 6));
        config.set_param("blocked", " f5, c3 ,c3").unwrap();
        assert_eq!(config.blocked_cells(), &[(2, 2), (5, 4)]);
        assert_eq!(config.params(), vec![Param::string("blocked", "c3,f5")]);
        assert!(matches!(config.set_param("blocked", "h1"), Err(ConfigError::InvalidValue(_))));
        assert!(matches!(config.set_param("blocked", "c3,zz"), Err(ConfigError::InvalidValue(_))));
        assert_eq!(config.blocked_cells(), &[(2, 2), (5, 4)]);
        assert_eq!(config.set_param("misere", "1"), Err(ConfigError::UnknownParam));
        config.set_size(5, 4).unwrap();
        assert_eq!(config.blocked_cells(), &[(2, 2)]);
        config.set_param("blocked", "").unwrap();
        assert!(config.blocked_cells().is_empty());
    }

    #[test]
    fn hash_is_incremental_and_turn_can_be_handed_over() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        for blocked in ["", "c3,d1,a6", "b2,b3,b4"] {
            for _ in 0..200 {
                let mut position = with_blocked(7, 6, blocked);
                assert_eq!(position.hash(), position.hash_from_scratch());
                while position.outcome().is_none() {
                    let mut moves = Vec::new();
                    position.legal_moves(&mut moves);
                    let mv = moves[rng.random_range(0..moves.len())];
                    if rng.random_range(0..10) == 0 {
                        let color = if rng.random_range(0..2) == 0 { Color::Black } else { Color::White };
                        position.play_as(color, mv).unwrap();
                    } else {
                        position.play(mv).unwrap();
                    }
                    assert_eq!(position.hash(), position.hash_from_scratch());
                }
            }
        }
        let mut position = classic();
        position.play_as(Color::White, Column(0)).unwrap();
        assert_eq!(position.cell_state(0, 0), CellState::Stone(Color::White));
        assert_eq!(position.to_move(), Color::Black);
        assert_ne!(classic().hash(), with_blocked(7, 6, "a1").hash());
    }

    #[test]
    fn playout_ends_games_like_the_rules_say() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
        let mut black_wins = 0;
        for _ in 0..2_000 {
            let mut position = with_blocked(7, 6, "d3");
            let outcome = position.playout(&mut rng);
            assert_eq!(position.outcome(), Some(outcome));
            assert_eq!(position.hash(), position.hash_from_scratch());
            if outcome == Outcome::Win(Color::Black) {
                black_wins += 1;
            }
        }
        // Random play favours the first player clearly on 7x6 (about 55%).
        assert!((900..1_400).contains(&black_wins), "{black_wins}");
        let mut big = with_blocked(12, 12, "a1,l12");
        let outcome = big.playout(&mut rng);
        assert_eq!(big.outcome(), Some(outcome));
    }

    /// Prints the playout rate on the empty 7x6 board. Run with
    /// `cargo test --release --lib games::connect4::tests::playout_speed -- --ignored --nocapture`.
    #[test]
    #[ignore = "measurement, prints only"]
    fn playout_speed() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
        let start = std::time::Instant::now();
        let count = 1_000_000;
        let mut black_wins = 0;
        for _ in 0..count {
            let mut position = classic();
            if position.playout(&mut rng) == Outcome::Win(Color::Black) {
                black_wins += 1;
            }
        }
        let seconds = start.elapsed().as_secs_f64();
        println!("{:.0} playouts/s, Black won {black_wins} of {count}", count as f64 / seconds);
    }

    #[test]
    fn board_text_shows_pieces_and_blocked_cells() {
        let mut position = with_blocked(4, 4, "b1");
        play_all(&mut position, "a b");
        let text = position.board_text();
        assert_eq!(text.lines().count(), 6);
        assert!(text.contains(" 1 X # . . 1"), "{text}");
        assert!(text.contains(" 2 . O . . 2"), "{text}");
    }
}
