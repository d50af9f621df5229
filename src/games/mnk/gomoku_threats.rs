//! Threat recognition for Gomoku (five in a row, freestyle or exact five), kept up to date move
//! by move.
//!
//! Every empty cell carries, for each colour and each of the four line directions, a key that
//! encodes the ten cells around it on that line (five on each side) as empty, own stone or
//! blocked (opponent stone or board edge). Five cells each way are enough: a five through a cell
//! lies within four cells of it, and exact five needs one more cell at each end to rule out an
//! overline. Keys are base-3 sums, so putting or removing a stone adds or subtracts a constant
//! in the keys of the forty cells it can see, and a table indexed by key (built once, by brute
//! force over all 3^10 windows) says what putting a stone on the cell makes in that line: a five,
//! an open four, a four, an open three or a closed three.
//!
//! From the four line patterns of a cell the board keeps, per colour, the sets of cells where a
//! stone would make a five, a winning four (two or more cells that make five: an open four or a
//! double four), any four, and an open three. Those sets are what threat-space search asks for.
//!
//! Definitions used throughout (for the colour that would put the stone on the cell):
//! - *five*: a line of five (exactly five under exact five) through the cell;
//! - *four*: the line then has exactly one empty cell that would complete a five through the
//!   cell (the defender's only block in that line), *open four*: two or more such cells;
//! - *open three*: one more stone in the line could make an open four through the cell (this
//!   includes broken threes such as `.X.XX.`), *closed three*: one more stone could make a four
//!   but never an open four.

use std::cell::RefCell;
use std::fmt;
use std::sync::LazyLock;

use super::{Cell, MAX_CELLS, MAX_SIDE, Mnk, WHITE_TO_MOVE_KEY, ZOBRIST};
use crate::games::{Color, Game, Outcome};

/// The line directions as `(dx, dy)`, indexed as in [`ThreatBoard::line_pattern`]: horizontal,
/// vertical, diagonal up-right, diagonal down-right.
pub const LINE_DIRECTIONS: [(i32, i32); 4] = super::DIRECTIONS;

/// Cells of border around the board in the padded layout: a window reaches five cells out.
const PAD: usize = 5;
/// Window cells on each side of the centre.
const REACH: usize = 5;
/// Distinct window keys: three states for each of the ten window cells.
pub const KEY_COUNT: usize = 59_049;

const EMPTY: u8 = 0;
const WALL: u8 = 3;

/// Window offsets along a line with their weights in a key: offset -5 is the lowest digit,
/// +5 the highest, the centre is not encoded. A digit is 0 for an empty cell, 1 for a stone of
/// the key's colour, 2 for an opponent stone or the board edge (see
/// [`ThreatBoard::window_key`]).
pub const OFFSET_WEIGHTS: [(isize, u16); 10] = {
    let mut table = [(0isize, 0u16); 10];
    let mut digit = 0;
    let mut weight: u16 = 1;
    while digit < 10 {
        let offset = if digit < 5 { digit as isize - 5 } else { digit as isize - 4 };
        table[digit] = (offset, weight);
        digit += 1;
        if digit < 10 {
            weight *= 3;
        }
    }
    table
};

/// What putting a stone on a cell makes in one line, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LinePattern {
    /// Nothing of the below.
    None,
    /// One more stone can make a four, never an open four.
    ClosedThree,
    /// One more stone can make an open four (straight or broken three).
    OpenThree,
    /// Exactly one cell of the line then completes a five.
    Four,
    /// Two or more cells of the line then complete a five.
    OpenFour,
    /// The stone completes a five (exactly five under exact five).
    Five,
}

impl LinePattern {
    fn from_code(code: u8) -> LinePattern {
        match code & PATTERN_MASK {
            0 => LinePattern::None,
            1 => LinePattern::ClosedThree,
            2 => LinePattern::OpenThree,
            3 => LinePattern::Four,
            4 => LinePattern::OpenFour,
            _ => LinePattern::Five,
        }
    }

    fn code(self) -> u8 {
        self as u8
    }
}

/// The kinds of threat cells a [`ThreatBoard`] keeps for each colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ThreatKind {
    /// A stone here makes five: an immediate win.
    Five,
    /// A stone here leaves two or more cells that make five (open four or double four): a win
    /// next move unless the opponent makes five first.
    WinningFour,
    /// A stone here makes at least one four (winning fours included).
    Four,
    /// A stone here makes an open three in some line.
    OpenThree,
}

const KINDS: usize = 4;

/// A set of cells of a board up to 25x25, as a bitset over cell indices.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CellSet {
    words: [u64; MAX_CELLS.div_ceil(64)],
}

impl CellSet {
    /// The empty set.
    pub const fn new() -> CellSet {
        CellSet { words: [0; MAX_CELLS.div_ceil(64)] }
    }

    /// Adds `cell`.
    pub fn insert(&mut self, cell: Cell) {
        self.words[cell.0 as usize / 64] |= 1 << (cell.0 % 64);
    }

    /// Takes `cell` out.
    pub fn remove(&mut self, cell: Cell) {
        self.words[cell.0 as usize / 64] &= !(1 << (cell.0 % 64));
    }

    /// Whether `cell` is in the set.
    pub fn contains(&self, cell: Cell) -> bool {
        self.words[cell.0 as usize / 64] >> (cell.0 % 64) & 1 != 0
    }

    /// Whether the set has no cell.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&word| word == 0)
    }

    /// The number of cells in the set.
    pub fn len(&self) -> usize {
        self.words.iter().map(|word| word.count_ones() as usize).sum()
    }

    /// The lowest cell of the set.
    pub fn first(&self) -> Option<Cell> {
        self.iter().next()
    }

    /// The cells in increasing index order.
    pub fn iter(&self) -> impl Iterator<Item = Cell> + '_ {
        self.words.iter().enumerate().flat_map(|(index, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let bit = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    Cell((index * 64 + bit) as u16)
                })
            })
        })
    }

    /// Cells in both sets.
    pub fn intersection(&self, other: &CellSet) -> CellSet {
        let mut words = self.words;
        words.iter_mut().zip(&other.words).for_each(|(word, other)| *word &= other);
        CellSet { words }
    }

    /// Cells in either set.
    pub fn union(&self, other: &CellSet) -> CellSet {
        let mut words = self.words;
        words.iter_mut().zip(&other.words).for_each(|(word, other)| *word |= other);
        CellSet { words }
    }
}

impl fmt::Debug for CellSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter().map(|cell| cell.0)).finish()
    }
}

/// Pattern tables for freestyle (index 0) and exact five (index 1): the pattern code of each key
/// in bits 0..3 and, for a four, the window index (0..=10, centre 5) of its block cell in bits
/// 3..7. One byte an entry keeps a table in 58 KiB, within a core's L2 cache.
static PATTERN_TABLES: LazyLock<[Box<[u8]>; 2]> = LazyLock::new(|| [build_table(false), build_table(true)]);

/// The pattern bits of a table entry.
const PATTERN_MASK: u8 = 7;

fn build_table(exact: bool) -> Box<[u8]> {
    (0..KEY_COUNT).map(|key| classify_window(key, exact)).collect()
}

/// Whether the run of `own` stones through the window centre is a winning line.
fn centre_run_wins(own: u16, exact: bool) -> bool {
    let mut length = 1;
    let mut index = REACH;
    while index > 0 && own >> (index - 1) & 1 != 0 {
        length += 1;
        index -= 1;
    }
    index = REACH;
    while index < 2 * REACH && own >> (index + 1) & 1 != 0 {
        length += 1;
        index += 1;
    }
    if exact { length == 5 } else { length >= 5 }
}

/// Brute force over one window: the pattern made by an own stone at the centre. A run that
/// reaches the window's end through the centre is at least six long, so it is a (freestyle)
/// win and never an exact five: the window decides every case.
fn classify_window(key: usize, exact: bool) -> u8 {
    // 1. Decode the key into an 11-cell line (bit i = window index i), centre own.
    let mut own: u16 = 1 << REACH;
    let mut empty: u16 = 0;
    let mut rest = key;
    for (digit, &(offset, _)) in OFFSET_WEIGHTS.iter().enumerate() {
        let index = (offset + REACH as isize) as usize;
        match rest % 3 {
            0 => empty |= 1 << index,
            1 => own |= 1 << index,
            _ => {}
        }
        rest /= 3;
        debug_assert!(digit < 10);
    }
    // 2. Five, or the cells that would complete a five through the centre.
    if centre_run_wins(own, exact) {
        return LinePattern::Five.code();
    }
    let near = |index: usize| index.abs_diff(REACH) < REACH;
    let completing = |stones: u16| -> Vec<usize> {
        (0..=2 * REACH)
            .filter(|&index| near(index) && empty >> index & 1 != 0 && stones >> index & 1 == 0)
            .filter(|&index| centre_run_wins(stones | 1 << index, exact))
            .collect()
    };
    let fives = completing(own);
    match fives.len() {
        0 => {}
        1 => return LinePattern::Four.code() | (fives[0] as u8) << 3,
        _ => return LinePattern::OpenFour.code(),
    }
    // 3. Threes: what one more stone in the line could make.
    let mut best = LinePattern::None;
    for index in (0..=2 * REACH).filter(|&index| near(index) && empty >> index & 1 != 0) {
        match completing(own | 1 << index).len() {
            0 => {}
            1 => best = LinePattern::ClosedThree,
            _ => return LinePattern::OpenThree.code(),
        }
    }
    best.code()
}

/// Whether threat recognition applies to `position`: five in a row, not misère.
pub fn is_five_in_a_row(position: &Mnk) -> bool {
    position.k == 5 && !position.misere
}

/// A Gomoku board with per-cell threat patterns for both colours, updated incrementally by
/// [`put`](ThreatBoard::put) and [`remove`](ThreatBoard::remove). It holds stones only, not the
/// side to move: searches keep track of whose turn it is.
#[derive(Clone)]
pub struct ThreatBoard {
    width: usize,
    height: usize,
    exact: bool,
    /// Index steps of the four directions in the padded layout.
    steps: [isize; 4],
    /// Padded cells: empty, black (1), white (2) or wall.
    cells: Vec<u8>,
    /// Per padded cell, colour and direction: the window key.
    keys: Vec<[[u16; 4]; 2]>,
    /// Per padded cell, colour and direction: the pattern code of the key (kept for empty cells
    /// only; recomputed when a cell is emptied), so a key change that keeps the pattern costs
    /// no set updates.
    patterns: Vec<[[u8; 4]; 2]>,
    /// Per padded cell and colour: the [`ThreatKind`] bits the cell has in `points`.
    kinds: Vec<[u8; 2]>,
    padded_of_cell: Vec<u16>,
    /// Cell index of each padded cell; `u16::MAX` on the border.
    cell_of_padded: Vec<u16>,
    /// Per colour and [`ThreatKind`]: the cells where a stone of that colour makes that threat.
    points: [[CellSet; KINDS]; 2],
    /// Zobrist hash of the stones, with [`Mnk`]'s keys.
    stones_hash: u64,
    stone_count: usize,
    table: &'static [u8],
    /// What each stone put by [`play`](ThreatBoard::play) changed, newest last, so that
    /// [`undo`](ThreatBoard::undo) restores it instead of classifying the cells again.
    journal: Journal,
}

/// The undo journal of [`ThreatBoard::play`]: a mark per stone, and the patterns and kinds it
/// changed with their old values.
#[derive(Clone, Default)]
struct Journal {
    marks: Vec<JournalMark>,
    patterns: Vec<PatternChange>,
    kinds: Vec<KindsChange>,
}

#[derive(Clone, Copy)]
struct JournalMark {
    cell: Cell,
    color: Color,
    patterns: usize,
    kinds: usize,
}

/// A pattern code of an empty padded cell before a stone changed it.
#[derive(Clone, Copy)]
struct PatternChange {
    padded: u16,
    side: u8,
    direction: u8,
    old: u8,
}

/// The [`ThreatKind`] bits of a padded cell before a stone changed them.
#[derive(Clone, Copy)]
struct KindsChange {
    padded: u16,
    side: u8,
    old: u8,
}

const OFF_BOARD: u16 = u16::MAX;

impl ThreatBoard {
    /// An empty `width` x `height` board.
    ///
    /// # Panics
    /// When a side is 0 or larger than 25.
    pub fn empty(width: usize, height: usize, exact_five: bool) -> ThreatBoard {
        assert!((1..=MAX_SIDE).contains(&width) && (1..=MAX_SIDE).contains(&height), "bad board size");
        let padded_width = width + 2 * PAD;
        let padded_height = height + 2 * PAD;
        let padded_cells = padded_width * padded_height;
        let pw = padded_width as isize;
        let mut board = ThreatBoard {
            width,
            height,
            exact: exact_five,
            steps: LINE_DIRECTIONS.map(|(dx, dy)| dx as isize + dy as isize * pw),
            cells: vec![WALL; padded_cells],
            keys: vec![[[0; 4]; 2]; padded_cells],
            patterns: vec![[[0; 4]; 2]; padded_cells],
            kinds: vec![[0; 2]; padded_cells],
            padded_of_cell: vec![0; width * height],
            cell_of_padded: vec![OFF_BOARD; padded_cells],
            points: [[CellSet::new(); KINDS]; 2],
            stones_hash: 0,
            stone_count: 0,
            table: &PATTERN_TABLES[usize::from(exact_five)],
            journal: Journal::default(),
        };
        for row in 0..height {
            for column in 0..width {
                let padded = (row + PAD) * padded_width + column + PAD;
                board.cells[padded] = EMPTY;
                board.padded_of_cell[row * width + column] = padded as u16;
                board.cell_of_padded[padded] = (row * width + column) as u16;
            }
        }
        // The board edge blocks both colours.
        for &padded in &board.padded_of_cell {
            let padded = padded as usize;
            for direction in 0..4 {
                for &(offset, weight) in &OFFSET_WEIGHTS {
                    let neighbour = (padded as isize + offset * board.steps[direction]) as usize;
                    if board.cells[neighbour] == WALL {
                        board.keys[padded][0][direction] += 2 * weight;
                        board.keys[padded][1][direction] += 2 * weight;
                    }
                }
            }
        }
        for padded in board.padded_of_cell.clone() {
            board.classify(padded as usize, false);
        }
        board
    }

    /// An empty board cloned from this thread's last one of the same size and rule: cloning
    /// costs a tenth of building (playouts and solver calls build many).
    fn empty_from_cache(width: usize, height: usize, exact_five: bool) -> ThreatBoard {
        thread_local! {
            static LAST_EMPTY: RefCell<Option<ThreatBoard>> = const { RefCell::new(None) };
        }
        LAST_EMPTY.with_borrow_mut(|slot| match slot {
            Some(board) if (board.width, board.height, board.exact) == (width, height, exact_five) => board.clone(),
            _ => slot.insert(ThreatBoard::empty(width, height, exact_five)).clone(),
        })
    }

    /// The stones of `position`.
    ///
    /// # Panics
    /// When `position` is not a five-in-a-row game (see [`is_five_in_a_row`]).
    pub fn new(position: &Mnk) -> ThreatBoard {
        assert!(is_five_in_a_row(position), "threats are defined for five in a row");
        let mut board = ThreatBoard::empty_from_cache(position.width(), position.height(), position.exact);
        for index in 0..position.width() * position.height() {
            if let Some(color) = position.stone_at(Cell(index as u16)) {
                board.put(color, Cell(index as u16));
            }
        }
        board
    }

    /// Board width.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Board height.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Whether only exactly five wins (an overline does not).
    pub fn exact_five(&self) -> bool {
        self.exact
    }

    /// Stones on the board.
    pub fn stone_count(&self) -> usize {
        self.stone_count
    }

    /// The cell at zero-based `(column, row from the bottom)`.
    pub fn cell(&self, column: usize, row: usize) -> Cell {
        Cell((row * self.width + column) as u16)
    }

    /// Zero-based `(column, row from the bottom)` of `cell`.
    pub fn coordinates(&self, cell: Cell) -> (usize, usize) {
        (cell.0 as usize % self.width, cell.0 as usize / self.width)
    }

    /// The cell `steps` cells from `cell` along direction `direction` (see
    /// [`LINE_DIRECTIONS`]), if on the board.
    pub fn step(&self, cell: Cell, direction: usize, steps: i32) -> Option<Cell> {
        let (column, row) = self.coordinates(cell);
        let (dx, dy) = LINE_DIRECTIONS[direction];
        let (x, y) = (column as i32 + dx * steps, row as i32 + dy * steps);
        (x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height)
            .then(|| self.cell(x as usize, y as usize))
    }

    /// The stone on `cell`, if any.
    pub fn stone_at(&self, cell: Cell) -> Option<Color> {
        match self.cells[self.padded_of_cell[cell.0 as usize] as usize] {
            1 => Some(Color::Black),
            2 => Some(Color::White),
            _ => None,
        }
    }

    /// Whether `cell` is empty.
    pub fn is_empty(&self, cell: Cell) -> bool {
        self.cells[self.padded_of_cell[cell.0 as usize] as usize] == EMPTY
    }

    /// The [`Game::hash`](crate::games::Game::hash) of an [`Mnk`] position with these stones and `to_move` to move.
    pub fn zobrist(&self, to_move: Color) -> u64 {
        match to_move {
            Color::Black => self.stones_hash,
            Color::White => self.stones_hash ^ ZOBRIST[WHITE_TO_MOVE_KEY],
        }
    }

    /// Puts a `color` stone on the empty `cell` and updates every pattern it affects.
    ///
    /// # Panics
    /// In debug builds, when `cell` is taken.
    pub fn put(&mut self, color: Color, cell: Cell) {
        let padded = self.place(color, cell);
        self.update_around(padded, color, true, false);
    }

    /// Puts a `color` stone on the empty `cell` as [`put`](ThreatBoard::put) does, and notes
    /// what it changed so that [`undo`](ThreatBoard::undo) takes it back at a fraction of the
    /// cost of [`remove`](ThreatBoard::remove) (searches put and take back stones in order).
    ///
    /// # Panics
    /// In debug builds, when `cell` is taken.
    pub fn play(&mut self, color: Color, cell: Cell) {
        self.journal.marks.push(JournalMark {
            cell,
            color,
            patterns: self.journal.patterns.len(),
            kinds: self.journal.kinds.len(),
        });
        let padded = self.place(color, cell);
        self.update_around(padded, color, true, true);
    }

    /// Sets a `color` stone on the empty `cell` in the cells, the hash and the count (not in
    /// the patterns); its padded index.
    fn place(&mut self, color: Color, cell: Cell) -> usize {
        debug_assert!(self.is_empty(cell), "cell {cell:?} is taken");
        let padded = self.padded_of_cell[cell.0 as usize] as usize;
        self.cells[padded] = color.index() as u8 + 1;
        self.stones_hash ^= ZOBRIST[color.index() * MAX_CELLS + cell.0 as usize];
        self.stone_count += 1;
        padded
    }

    /// Takes the `color` stone off `cell` in the cells, the hash and the count (not in the
    /// patterns); its padded index.
    fn lift(&mut self, color: Color, cell: Cell) -> usize {
        let padded = self.padded_of_cell[cell.0 as usize] as usize;
        self.cells[padded] = EMPTY;
        self.stones_hash ^= ZOBRIST[color.index() * MAX_CELLS + cell.0 as usize];
        self.stone_count -= 1;
        padded
    }

    /// Takes back the last stone of [`play`](ThreatBoard::play) not taken back yet, restoring
    /// every pattern and threat set as it was. Stones put or removed since by
    /// [`put`](ThreatBoard::put) and [`remove`](ThreatBoard::remove) must have been taken away
    /// again.
    ///
    /// # Panics
    /// When no stone of `play` is left to take back.
    pub fn undo(&mut self) {
        let mark = self.journal.marks.pop().expect("undo needs a stone put by play");
        let padded = self.lift(mark.color, mark.cell);
        let (own, other) = (mark.color.index(), mark.color.opponent().index());
        for direction in 0..4 {
            let step = self.steps[direction];
            for &(offset, weight) in &OFFSET_WEIGHTS {
                let keys = &mut self.keys[(padded as isize - offset * step) as usize];
                keys[own][direction] -= weight;
                keys[other][direction] -= 2 * weight;
            }
        }
        // Newest first, so a value changed twice ends as it was before the first change.
        for change in self.journal.patterns.drain(mark.patterns..).rev() {
            self.patterns[usize::from(change.padded)][usize::from(change.side)][usize::from(change.direction)] =
                change.old;
        }
        while self.journal.kinds.len() > mark.kinds {
            let change = self.journal.kinds.pop().expect("a change above the mark");
            self.set_kinds(usize::from(change.padded), usize::from(change.side), change.old);
        }
    }

    /// Takes the stone off `cell` and updates every pattern it affected.
    ///
    /// # Panics
    /// When `cell` is empty.
    pub fn remove(&mut self, cell: Cell) {
        let color = self.stone_at(cell).expect("remove needs a stone");
        let padded = self.lift(color, cell);
        self.update_around(padded, color, false, false);
    }

    /// Adds (or takes away) the stone at `padded` in the keys of the cells that see it, and
    /// reclassifies the cell itself and those whose pattern in that line changed (noting the
    /// old values in the journal when `journaled`).
    fn update_around(&mut self, padded: usize, color: Color, adding: bool, journaled: bool) {
        let (own, other) = (color.index(), color.opponent().index());
        self.classify(padded, journaled);
        for direction in 0..4 {
            let step = self.steps[direction];
            for &(offset, weight) in &OFFSET_WEIGHTS {
                // The stone is at `offset` in the window of the cell `offset` steps back.
                let viewer = (padded as isize - offset * step) as usize;
                let keys = &mut self.keys[viewer];
                if adding {
                    keys[own][direction] += weight;
                    keys[other][direction] += 2 * weight;
                } else {
                    keys[own][direction] -= weight;
                    keys[other][direction] -= 2 * weight;
                }
                if self.cells[viewer] != EMPTY {
                    continue;
                }
                for side in [own, other] {
                    let code = self.table[self.keys[viewer][side][direction] as usize] & PATTERN_MASK;
                    let old = self.patterns[viewer][side][direction];
                    if code != old {
                        if journaled {
                            let (padded, side, direction) = (viewer as u16, side as u8, direction as u8);
                            self.journal.patterns.push(PatternChange { padded, side, direction, old });
                        }
                        self.patterns[viewer][side][direction] = code;
                        self.refresh_kinds(viewer, side, journaled);
                    }
                }
            }
        }
    }

    /// Recomputes every pattern of one padded cell from its keys (none for a taken cell).
    fn classify(&mut self, padded: usize, journaled: bool) {
        if self.cells[padded] == EMPTY {
            for side in 0..2 {
                for direction in 0..4 {
                    let key = self.keys[padded][side][direction];
                    self.patterns[padded][side][direction] = self.table[key as usize] & PATTERN_MASK;
                }
            }
        }
        for side in 0..2 {
            self.refresh_kinds(padded, side, journaled);
        }
    }

    /// Brings the threat sets of one padded cell and colour in line with its patterns.
    fn refresh_kinds(&mut self, padded: usize, side: usize, journaled: bool) {
        if self.cell_of_padded[padded] == OFF_BOARD {
            return;
        }
        let mut kinds = 0u8;
        if self.cells[padded] == EMPTY {
            let mut fours = 0;
            for &code in &self.patterns[padded][side] {
                match LinePattern::from_code(code) {
                    LinePattern::Five => kinds |= 1 << ThreatKind::Five as u8,
                    LinePattern::OpenFour => fours += 2,
                    LinePattern::Four => fours += 1,
                    LinePattern::OpenThree => kinds |= 1 << ThreatKind::OpenThree as u8,
                    LinePattern::ClosedThree | LinePattern::None => {}
                }
            }
            if fours > 0 {
                kinds |= 1 << ThreatKind::Four as u8;
            }
            if fours > 1 {
                kinds |= 1 << ThreatKind::WinningFour as u8;
            }
        }
        let old = self.set_kinds(padded, side, kinds);
        if journaled && old != kinds {
            self.journal.kinds.push(KindsChange { padded: padded as u16, side: side as u8, old });
        }
    }

    /// Sets the [`ThreatKind`] bits of the on-board padded cell `padded` for colour `side`,
    /// and the threat sets with them; the bits it had.
    fn set_kinds(&mut self, padded: usize, side: usize, kinds: u8) -> u8 {
        let cell = Cell(self.cell_of_padded[padded]);
        let old = self.kinds[padded][side];
        self.kinds[padded][side] = kinds;
        let mut changed = kinds ^ old;
        while changed != 0 {
            let kind = changed.trailing_zeros() as usize;
            changed &= changed - 1;
            let set = &mut self.points[side][kind];
            if kinds >> kind & 1 != 0 {
                set.insert(cell);
            } else {
                set.remove(cell);
            }
        }
        old
    }

    /// What a `color` stone on the empty `cell` makes in line `direction`.
    pub fn line_pattern(&self, color: Color, cell: Cell, direction: usize) -> LinePattern {
        LinePattern::from_code(self.line_code(color, cell, direction))
    }

    /// The window key of `cell` for `color` in line `direction`: the ten cells around it on
    /// that line as base-3 digits (see [`OFFSET_WEIGHTS`]), below [`KEY_COUNT`]. Evaluations
    /// classify keys more finely than [`LinePattern`] does.
    pub fn window_key(&self, color: Color, cell: Cell, direction: usize) -> u16 {
        let padded = self.padded_of_cell[cell.0 as usize] as usize;
        self.keys[padded][color.index()][direction]
    }

    fn line_code(&self, color: Color, cell: Cell, direction: usize) -> u8 {
        let padded = self.padded_of_cell[cell.0 as usize] as usize;
        self.table[self.keys[padded][color.index()][direction] as usize]
    }

    /// The cells where a `color` stone makes a threat of `kind`.
    pub fn points(&self, color: Color, kind: ThreatKind) -> &CellSet {
        &self.points[color.index()][kind as usize]
    }

    /// Cells where `color` makes five.
    pub fn five_points(&self, color: Color) -> &CellSet {
        self.points(color, ThreatKind::Five)
    }

    /// Cells where `color` makes an open four or a double four (two or more cells to make five).
    pub fn winning_four_points(&self, color: Color) -> &CellSet {
        self.points(color, ThreatKind::WinningFour)
    }

    /// Cells where `color` makes at least one four (winning fours included).
    pub fn four_points(&self, color: Color) -> &CellSet {
        self.points(color, ThreatKind::Four)
    }

    /// The stones' hash and both colours' five, winning-four and four points: what tests of a
    /// search that plays on a lent board compare before and after it.
    #[cfg(test)]
    pub(crate) fn threat_snapshot(&self) -> (u64, [(CellSet, CellSet, CellSet); 2]) {
        let threats = [Color::Black, Color::White]
            .map(|color| (*self.five_points(color), *self.winning_four_points(color), *self.four_points(color)));
        (self.zobrist(Color::Black), threats)
    }

    /// Cells where `color` makes an open three (straight or broken) in some line.
    pub fn open_three_points(&self, color: Color) -> &CellSet {
        self.points(color, ThreatKind::OpenThree)
    }

    /// The cells where `color` must play now to stop the opponent's five: the opponent's five
    /// points. Two or more mean `color` cannot stop it (unless it makes five first).
    pub fn forced_defences(&self, color: Color) -> &CellSet {
        self.five_points(color.opponent())
    }

    /// The cell that would complete the five of the four a `color` stone on `cell` makes, when
    /// that stone makes exactly one four and no open four: the opponent's only block. `None`
    /// for a winning four or a cell that makes no four.
    pub fn four_reply(&self, color: Color, cell: Cell) -> Option<Cell> {
        if !self.is_empty(cell) {
            return None;
        }
        let mut reply = None;
        for direction in 0..4 {
            let code = self.line_code(color, cell, direction);
            match LinePattern::from_code(code) {
                LinePattern::Four if reply.is_none() => {
                    let index = (code >> 3) as i32;
                    reply = self.step(cell, direction, index - REACH as i32);
                }
                LinePattern::Four | LinePattern::OpenFour | LinePattern::Five => return None,
                _ => {}
            }
        }
        reply
    }

    /// The moves that make a four for `color`, each with the opponent's only block when it has
    /// exactly one (`None` for winning fours).
    pub fn four_moves(&self, color: Color) -> Vec<(Cell, Option<Cell>)> {
        self.four_points(color).iter().map(|cell| (cell, self.four_reply(color, cell))).collect()
    }
}

impl fmt::Debug for ThreatBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "ThreatBoard {}x{} exact={}", self.width, self.height, self.exact)?;
        for row in (0..self.height).rev() {
            let line: String = (0..self.width)
                .map(|column| match self.stone_at(self.cell(column, row)) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None => '.',
                })
                .collect();
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

/// Empty cells within two cells (in both directions) of a stone, for the playout policy: a
/// list to sample from, whose taken cells are dropped lazily, and a set against duplicates.
struct NearbyCells {
    list: Vec<Cell>,
    listed: CellSet,
}

impl NearbyCells {
    fn new(board: &ThreatBoard) -> NearbyCells {
        let mut nearby = NearbyCells { list: Vec::with_capacity(board.width * board.height), listed: CellSet::new() };
        for index in 0..board.width * board.height {
            if !board.is_empty(Cell(index as u16)) {
                nearby.add_around(board, Cell(index as u16));
            }
        }
        nearby
    }

    fn add_around(&mut self, board: &ThreatBoard, cell: Cell) {
        let (column, row) = board.coordinates(cell);
        for y in row.saturating_sub(2)..(row + 3).min(board.height) {
            for x in column.saturating_sub(2)..(column + 3).min(board.width) {
                let near = board.cell(x, y);
                if board.is_empty(near) && !self.listed.contains(near) {
                    self.listed.insert(near);
                    self.list.push(near);
                }
            }
        }
    }

    /// A uniformly random empty cell of the list, dropping taken ones met on the way.
    fn sample<R: rand::Rng>(&mut self, board: &ThreatBoard, rng: &mut R) -> Option<Cell> {
        while !self.list.is_empty() {
            let index = rng.random_range(0..self.list.len());
            let cell = self.list[index];
            if board.is_empty(cell) {
                return Some(cell);
            }
            self.list.swap_remove(index);
        }
        None
    }
}

/// A threat-aware playout for Gomoku, a drop-in for [`Game::playout`]: the side to move makes
/// five when it can, else blocks the opponent's five, else makes an open four or double four,
/// else plays a random empty cell within two cells of a stone (any empty cell on an empty
/// board). Plays on `position` to the end and returns the result; positions that are not five
/// in a row get the plain random playout.
pub fn gomoku_playout<R: rand::Rng>(position: &mut Mnk, rng: &mut R) -> Outcome {
    if let Some(outcome) = position.outcome() {
        return outcome;
    }
    if !is_five_in_a_row(position) {
        return position.playout(rng);
    }
    let mut board = ThreatBoard::new(position);
    let mut nearby = NearbyCells::new(&board);
    loop {
        let side = position.to_move();
        let opponent = side.opponent();
        let cell = if let Some(five) = board.five_points(side).first() {
            five
        } else if let Some(block) = random_member(board.five_points(opponent), rng) {
            block
        } else if let Some(winning) = random_member(board.winning_four_points(side), rng) {
            winning
        } else if let Some(near) = nearby.sample(&board, rng) {
            near
        } else {
            // An empty board (or no empty cell near any stone): any empty cell.
            let mut moves = Vec::new();
            position.legal_moves(&mut moves);
            moves[rng.random_range(0..moves.len())]
        };
        position.play_unchecked(cell);
        if let Some(outcome) = position.outcome() {
            return outcome;
        }
        board.put(side, cell);
        nearby.add_around(&board, cell);
    }
}

fn random_member<R: rand::Rng>(set: &CellSet, rng: &mut R) -> Option<Cell> {
    match set.len() {
        0 => None,
        1 => set.first(),
        count => set.iter().nth(rng.random_range(0..count)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::mnk::MnkConfig;
    use crate::games::{Game, GameConfig};
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// A plain grid for the brute-force checks: no tables, no windows, whole-board scans.
    #[derive(Clone)]
    struct Grid {
        width: i32,
        height: i32,
        exact: bool,
        cells: Vec<Option<Color>>,
    }

    impl Grid {
        fn get(&self, x: i32, y: i32) -> Option<Color> {
            self.cells[(y * self.width + x) as usize]
        }

        fn inside(&self, x: i32, y: i32) -> bool {
            x >= 0 && y >= 0 && x < self.width && y < self.height
        }

        /// The run of `color` through (x, y) along `(dx, dy)` as (start step, end step) from it.
        fn run(&self, color: Color, x: i32, y: i32, (dx, dy): (i32, i32)) -> (i32, i32) {
            let mut back = 0;
            while self.inside(x - (back + 1) * dx, y - (back + 1) * dy)
                && self.get(x - (back + 1) * dx, y - (back + 1) * dy) == Some(color)
            {
                back += 1;
            }
            let mut forward = 0;
            while self.inside(x + (forward + 1) * dx, y + (forward + 1) * dy)
                && self.get(x + (forward + 1) * dx, y + (forward + 1) * dy) == Some(color)
            {
                forward += 1;
            }
            (-back, forward)
        }

        fn winning_length(&self, length: i32) -> bool {
            if self.exact { length == 5 } else { length >= 5 }
        }

        /// Whether the `color` stone at (x, y) is part of a winning line; with `through`,
        /// a line that also contains that cell.
        fn wins_at(&self, color: Color, x: i32, y: i32, through: Option<(i32, i32)>) -> bool {
            LINE_DIRECTIONS.iter().any(|&(dx, dy)| {
                let (start, end) = self.run(color, x, y, (dx, dy));
                self.winning_length(end - start + 1)
                    && through
                        .is_none_or(|(tx, ty)| (start..=end).any(|step| (x + step * dx, y + step * dy) == (tx, ty)))
            })
        }

        fn set(&mut self, x: i32, y: i32, stone: Option<Color>) {
            self.cells[(y * self.width + x) as usize] = stone;
        }

        /// Empty cells where a `color` stone wins in a line through both it and `through`.
        fn completing_cells(&mut self, color: Color, through: Option<(i32, i32)>) -> Vec<(i32, i32)> {
            let mut found = Vec::new();
            for y in 0..self.height {
                for x in 0..self.width {
                    if self.get(x, y).is_none() {
                        self.set(x, y, Some(color));
                        if self.wins_at(color, x, y, through) {
                            found.push((x, y));
                        }
                        self.set(x, y, None);
                    }
                }
            }
            found
        }

        /// Whether a `color` stone at the empty (x, y) makes an open three: some second stone
        /// in one of its lines gives two cells that complete a five through both stones.
        fn makes_open_three(&mut self, color: Color, x: i32, y: i32) -> bool {
            self.set(x, y, Some(color));
            let mut found = false;
            'search: for &(dx, dy) in &LINE_DIRECTIONS {
                for step in (-6..=6).filter(|&step| step != 0) {
                    let (ex, ey) = (x + step * dx, y + step * dy);
                    if !self.inside(ex, ey) || self.get(ex, ey).is_some() {
                        continue;
                    }
                    self.set(ex, ey, Some(color));
                    // Cells completing a five through both stones, on this same line.
                    let on_line = self
                        .completing_cells(color, Some((x, y)))
                        .into_iter()
                        .filter(|&(fx, fy)| {
                            (fx - x) * dy == (fy - y) * dx && {
                                let mut probe = self.clone();
                                probe.set(fx, fy, Some(color));
                                probe.wins_at(color, fx, fy, Some((ex, ey)))
                            }
                        })
                        .count();
                    self.set(ex, ey, None);
                    if on_line >= 2 {
                        found = true;
                        break 'search;
                    }
                }
            }
            self.set(x, y, None);
            found
        }
    }

    fn random_pair(rng: &mut SmallRng, width: usize, height: usize, exact: bool, stones: usize) -> (ThreatBoard, Grid) {
        let mut board = ThreatBoard::empty(width, height, exact);
        let mut grid = Grid { width: width as i32, height: height as i32, exact, cells: vec![None; width * height] };
        for _ in 0..stones {
            let cell = Cell(rng.random_range(0..width * height) as u16);
            if board.is_empty(cell) {
                let color = if rng.random_bool(0.5) { Color::Black } else { Color::White };
                board.put(color, cell);
                grid.cells[cell.0 as usize] = Some(color);
            }
        }
        (board, grid)
    }

    /// Every threat set against whole-board brute force, for both colours. Returns how many
    /// fives, fours, winning fours and open threes it saw, so tests can show they met each.
    fn check_against_brute_force(board: &ThreatBoard, grid: &mut Grid) -> [usize; 4] {
        let mut seen = [0; 4];
        for color in [Color::Black, Color::White] {
            for y in 0..grid.height {
                for x in 0..grid.width {
                    let cell = board.cell(x as usize, y as usize);
                    if grid.get(x, y).is_some() {
                        for kind in [ThreatKind::Five, ThreatKind::WinningFour, ThreatKind::Four, ThreatKind::OpenThree]
                        {
                            assert!(!board.points(color, kind).contains(cell));
                        }
                        continue;
                    }
                    grid.set(x, y, Some(color));
                    let five = grid.wins_at(color, x, y, None);
                    let completing = grid.completing_cells(color, Some((x, y)));
                    grid.set(x, y, None);
                    let context = || format!("{color} at ({x},{y}) in\n{board:?}");
                    assert_eq!(board.five_points(color).contains(cell), five, "five: {}", context());
                    seen[0] += usize::from(five);
                    seen[1] += usize::from(!five && !completing.is_empty());
                    seen[2] += usize::from(!five && completing.len() >= 2);
                    if five {
                        // In freestyle any further stone next to a five wins too; nothing to compare.
                        continue;
                    }
                    assert_eq!(board.four_points(color).contains(cell), !completing.is_empty(), "four: {}", context());
                    assert_eq!(
                        board.winning_four_points(color).contains(cell),
                        completing.len() >= 2,
                        "winning four: {}",
                        context()
                    );
                    let expected_reply = (completing.len() == 1).then(|| {
                        let (fx, fy) = completing[0];
                        board.cell(fx as usize, fy as usize)
                    });
                    assert_eq!(board.four_reply(color, cell), expected_reply, "reply: {}", context());
                    if completing.is_empty() {
                        let three = grid.makes_open_three(color, x, y);
                        assert_eq!(board.open_three_points(color).contains(cell), three, "three: {}", context());
                        seen[3] += usize::from(three);
                    }
                }
            }
        }
        seen
    }

    fn add(total: &mut [usize; 4], seen: [usize; 4]) {
        total.iter_mut().zip(seen).for_each(|(total, seen)| *total += seen);
    }

    #[test]
    fn threat_sets_match_brute_force_on_random_positions() {
        let mut rng = SmallRng::seed_from_u64(8);
        let mut total = [0; 4];
        for round in 0..48 {
            let exact = round % 2 == 1;
            // Small boards put many patterns against edges and corners; 15x15 is the real size.
            let (width, height) = [(7, 7), (9, 6), (15, 15), (6, 11)][round / 2 % 4];
            let stones = rng.random_range(8..width * height * 2 / 3);
            let (board, mut grid) = random_pair(&mut rng, width, height, exact, stones);
            add(&mut total, check_against_brute_force(&board, &mut grid));
        }
        assert!(total.iter().all(|&count| count >= 20), "too few threats met: {total:?}");
    }

    #[test]
    fn dense_lines_of_one_colour_match_brute_force() {
        // Mostly one colour, so fours, open fours, overlines and broken threes abound.
        let mut rng = SmallRng::seed_from_u64(9);
        let mut total = [0; 4];
        for round in 0..40 {
            let exact = round % 2 == 0;
            let (width, height) = (9, 9);
            let mut board = ThreatBoard::empty(width, height, exact);
            let mut grid =
                Grid { width: width as i32, height: height as i32, exact, cells: vec![None; width * height] };
            for _ in 0..rng.random_range(10..40) {
                let cell = Cell(rng.random_range(0..width * height) as u16);
                if board.is_empty(cell) {
                    let color = if rng.random_bool(0.85) { Color::Black } else { Color::White };
                    board.put(color, cell);
                    grid.cells[cell.0 as usize] = Some(color);
                }
            }
            add(&mut total, check_against_brute_force(&board, &mut grid));
        }
        assert!(total.iter().all(|&count| count >= 20), "too few threats met: {total:?}");
        println!("fives, fours, winning fours, open threes checked: {total:?}");
    }

    #[test]
    fn removing_stones_restores_the_board_exactly() {
        let mut rng = SmallRng::seed_from_u64(10);
        for exact in [false, true] {
            let (mut board, _) = random_pair(&mut rng, 15, 15, exact, 60);
            let reference = board.clone();
            let mut placed = Vec::new();
            for _ in 0..40 {
                let cell = Cell(rng.random_range(0..225));
                if board.is_empty(cell) {
                    board.put(if rng.random_bool(0.5) { Color::Black } else { Color::White }, cell);
                    placed.push(cell);
                }
            }
            while let Some(cell) = placed.pop() {
                board.remove(cell);
            }
            assert_eq!(board.keys, reference.keys);
            assert_eq!(board.points, reference.points);
            assert_eq!(board.kinds, reference.kinds);
            assert_eq!(board.stones_hash, reference.stones_hash);
        }
    }

    #[test]
    fn undo_restores_what_play_changed_at_every_step() {
        let mut rng = SmallRng::seed_from_u64(12);
        for exact in [false, true] {
            let (mut board, _) = random_pair(&mut rng, 15, 15, exact, 50);
            let start = board.clone();
            // The same stones by put and remove, which classify every cell they affect.
            let mut reference = board.clone();
            let mut played = Vec::new();
            for _ in 0..400 {
                let cell = Cell(rng.random_range(0..225));
                if rng.random_bool(0.55) && board.is_empty(cell) {
                    let color = if rng.random_bool(0.5) { Color::Black } else { Color::White };
                    board.play(color, cell);
                    reference.put(color, cell);
                    played.push(cell);
                } else if let Some(last) = played.pop() {
                    board.undo();
                    reference.remove(last);
                }
                assert_eq!(board.cells, reference.cells);
                assert_eq!(board.keys, reference.keys);
                assert_eq!(board.points, reference.points);
                assert_eq!(board.kinds, reference.kinds);
                assert_eq!((board.stones_hash, board.stone_count), (reference.stones_hash, reference.stone_count));
            }
            while !played.is_empty() {
                played.pop();
                board.undo();
            }
            assert_eq!(board.cells, start.cells);
            assert_eq!(board.keys, start.keys);
            assert_eq!(board.patterns, start.patterns);
            assert_eq!(board.points, start.points);
            assert_eq!(board.kinds, start.kinds);
            assert!(board.journal.patterns.is_empty() && board.journal.kinds.is_empty());
        }
    }

    #[test]
    fn the_board_of_a_position_has_its_hash_and_stones() {
        let mut rng = SmallRng::seed_from_u64(11);
        let mut position = Mnk::new(&MnkConfig::gomoku());
        for _ in 0..30 {
            let mut moves = Vec::new();
            position.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            position.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
        let board = ThreatBoard::new(&position);
        assert_eq!(board.zobrist(position.to_move()), position.hash());
        for index in 0..225 {
            assert_eq!(board.stone_at(Cell(index)), position.stone_at(Cell(index)));
        }
        let mut config = MnkConfig::gomoku();
        config.set_size(19, 7).unwrap();
        assert_eq!(ThreatBoard::new(&Mnk::new(&config)).zobrist(Color::Black), Mnk::new(&config).hash());
    }

    fn board_from(rows: &[&str], exact: bool) -> ThreatBoard {
        let height = rows.len();
        let width = rows[0].len();
        let mut board = ThreatBoard::empty(width, height, exact);
        for (index, text) in rows.iter().enumerate() {
            let row = height - 1 - index;
            for (column, symbol) in text.chars().enumerate() {
                match symbol {
                    'X' => board.put(Color::Black, board.cell(column, row)),
                    'O' => board.put(Color::White, board.cell(column, row)),
                    _ => {}
                }
            }
        }
        board
    }

    #[test]
    fn textbook_shapes_are_named_right() {
        let black = Color::Black;
        // Straight three: both ends make open fours; a broken three is an open three too.
        let board = board_from(&["..........", "...XX.....", "....X.X...", ".........."], false);
        let row2 = |column| board.cell(column, 2);
        assert_eq!(board.line_pattern(black, row2(5), 0), LinePattern::OpenThree);
        assert_eq!(board.line_pattern(black, row2(2), 0), LinePattern::OpenThree);
        assert_eq!(board.line_pattern(black, board.cell(5, 1), 0), LinePattern::OpenThree);
        assert_eq!(board.line_pattern(black, board.cell(7, 1), 0), LinePattern::OpenThree);
        assert_eq!(board.four_reply(black, board.cell(5, 1)), None);
        // A three blocked on one side can only become a four.
        let blocked = board_from(&["OXX......."], false);
        assert_eq!(blocked.line_pattern(black, blocked.cell(3, 0), 0), LinePattern::ClosedThree);
        // A four against the edge: one block cell.
        let edge = board_from(&["XXX......."], false);
        assert_eq!(edge.line_pattern(black, edge.cell(3, 0), 0), LinePattern::Four);
        assert_eq!(edge.four_reply(black, edge.cell(3, 0)), Some(edge.cell(4, 0)));
        assert_eq!(edge.line_pattern(black, edge.cell(4, 0), 0), LinePattern::Four);
        // XXXX.X: the gap makes six, a win in freestyle only.
        let freestyle = board_from(&["XXXX.X...."], false);
        let exact = board_from(&["XXXX.X...."], true);
        assert_eq!(freestyle.line_pattern(black, freestyle.cell(4, 0), 0), LinePattern::Five);
        assert_ne!(exact.line_pattern(black, exact.cell(4, 0), 0), LinePattern::Five);
        assert!(exact.five_points(black).is_empty());
        // .XXX..X: under exact five the open end next to the lone stone is an overline.
        let exact = board_from(&[".XXX..X..."], true);
        assert_eq!(exact.line_pattern(black, exact.cell(4, 0), 0), LinePattern::Four);
        assert_eq!(exact.four_reply(black, exact.cell(4, 0)), Some(exact.cell(0, 0)));
        let freestyle = board_from(&[".XXX..X..."], false);
        assert_eq!(freestyle.line_pattern(black, freestyle.cell(4, 0), 0), LinePattern::OpenFour);
        assert!(freestyle.winning_four_points(black).contains(freestyle.cell(4, 0)));
    }

    #[test]
    fn the_threat_playout_wins_blocks_and_finishes_games() {
        let mut rng = SmallRng::seed_from_u64(14);
        // Black to move with a four: the playout must take the five at once.
        let mut config = MnkConfig::gomoku();
        config.set_size(9, 9).unwrap();
        let mut position = Mnk::new(&config);
        for (black, white) in [((0, 4), (8, 8)), ((1, 4), (8, 6)), ((2, 4), (6, 8)), ((3, 4), (0, 8))] {
            position.play(position.cell(black.0, black.1)).unwrap();
            position.play(position.cell(white.0, white.1)).unwrap();
        }
        for _ in 0..20 {
            let mut copy = position.clone();
            assert_eq!(gomoku_playout(&mut copy, &mut rng), Outcome::Win(Color::Black));
            assert_eq!(copy.stone_at(copy.cell(4, 4)), Some(Color::Black));
        }
        // White to move against that four must block it first.
        let mut position = Mnk::new(&config);
        for (black, white) in [((0, 4), (8, 8)), ((1, 4), (8, 6)), ((2, 4), (6, 8)), ((3, 4), (0, 8))] {
            position.play(position.cell(black.0, black.1)).unwrap();
            position.play(position.cell(white.0, white.1)).unwrap();
        }
        position.play(position.cell(0, 0)).unwrap();
        for _ in 0..20 {
            let mut copy = position.clone();
            gomoku_playout(&mut copy, &mut rng);
            assert_eq!(copy.stone_at(copy.cell(4, 4)), Some(Color::White));
        }
        // From the empty board, in both rules, games end with a legal result.
        for exact in [false, true] {
            let mut config = MnkConfig::gomoku();
            config.set_param("exact_five", if exact { "1" } else { "0" }).unwrap();
            for _ in 0..50 {
                let mut position = Mnk::new(&config);
                let outcome = gomoku_playout(&mut position, &mut rng);
                assert_eq!(position.outcome(), Some(outcome));
            }
        }
    }

    /// Playout speed against the plain random playout, from the bench's Gomoku position:
    /// `cargo test --release --lib gomoku_threats::tests::playout_speed -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn playout_speed() {
        let mut rng = SmallRng::seed_from_u64(15);
        let mut start = Mnk::new(&MnkConfig::gomoku());
        for text in ["H8", "J9", "H9", "H10"] {
            start.play(start.parse_move(text).unwrap()).unwrap();
        }
        let playouts = 20_000;
        for threat_aware in [false, true] {
            let started = std::time::Instant::now();
            let mut moves = 0;
            for _ in 0..playouts {
                let mut position = start.clone();
                if threat_aware {
                    gomoku_playout(&mut position, &mut rng);
                } else {
                    position.playout(&mut rng);
                }
                moves += (0..225).filter(|&index| position.stone_at(Cell(index)).is_some()).count() - 4;
            }
            let seconds = started.elapsed().as_secs_f64();
            println!(
                "{}: {:.0} playouts/s, {:.1} moves a playout",
                if threat_aware { "gomoku_playout" } else { "random playout" },
                playouts as f64 / seconds,
                moves as f64 / playouts as f64
            );
        }
    }
}
