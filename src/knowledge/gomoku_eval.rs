//! A pattern evaluation of Gomoku positions for the alpha-beta search
//! ([`crate::search::gomoku_alphabeta`]), in the manner of classical engines such as Rapfi's:
//! every empty cell is described, for each colour, by what a stone of that colour would make
//! there in each of its four lines (a five, an open four, a four, an open or closed three, an
//! open or closed two).
//!
//! Two things are read from those shapes:
//! - **Cell values** (move ordering): hand-set round numbers ordered by how close each shape is
//!   to a five, plus a bonus for the combinations that win by force (double four, four-three,
//!   double three).
//! - **The position value**, a sum of four parts:
//!   - the *combinations*: the four shapes of a cell as a multiset (330 of them), with a weight
//!     per combination of the side to move's cells and one per combination of the opponent's;
//!   - a constant for the move;
//!   - the *threat steps*: a weight for each count of threat cells reached, per side (say, "the
//!     opponent has at least two cells that make a four"). Sums of cell weights cannot tell two
//!     such cells from one;
//!   - the *crossings*: a weight per pair of the strongest shapes of a cell for the side to
//!     move and for the opponent. A cell good for both is worth more to whoever takes it first.
//!
//!   The weights are **trained** (`ponder train --game gomoku --model value`,
//!   [`crate::train::gomoku_value_fit`]) as a logistic regression of self-play outcomes, in
//!   [`UNITS_PER_LOGIT`] units, and embedded from `weights/gomoku.value`. The hand-set cell
//!   values with the move's tempo are one point of the same space
//!   ([`ValueWeights::hand_set`]), the fit's prior and its fallback.
//!
//! The evaluation is kept up to date move by move: a stone changes the line windows of the
//! forty cells that see it (five each way in four directions) and the cell itself, so only
//! those cells are scored again ([`PatternEvaluation::refresh_around`]).

use std::sync::{LazyLock, OnceLock};

use crate::games::Color;
use crate::games::mnk::Cell;
use crate::games::mnk::gomoku_threats::{KEY_COUNT, OFFSET_WEIGHTS, ThreatBoard};
use crate::knowledge::weights_format::{self, WeightsError, WeightsFile};

/// What a stone put on an empty cell makes in one line, weakest first. Finer than
/// [`crate::games::mnk::gomoku_threats::LinePattern`]: it also knows the twos, which decide
/// quiet positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum LineShape {
    None,
    /// One more stone can make a closed three, never an open three.
    ClosedTwo,
    /// One more stone can make an open three.
    OpenTwo,
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

const SHAPES: [LineShape; 8] = [
    LineShape::None,
    LineShape::ClosedTwo,
    LineShape::OpenTwo,
    LineShape::ClosedThree,
    LineShape::OpenThree,
    LineShape::Four,
    LineShape::OpenFour,
    LineShape::Five,
];

/// Hand-set score of each shape a stone would make in one line, indexed by [`LineShape`]. A
/// cell with a five shape is a four already on the board, an open-four shape is an open three
/// already there, and so on: each step towards five is worth some three to five times the one
/// before.
const SHAPE_SCORES: [i32; 8] = [0, 1, 4, 6, 20, 24, 120, 600];

/// Bonuses for a cell where one stone makes several threats at once: two fours (or an open
/// four with another four) win like an open four; a four with an open three wins unless the
/// four's block also stops the three; two open threes win unless the opponent has fours.
const DOUBLE_FOUR_BONUS: i32 = 300;
const FOUR_THREE_BONUS: i32 = 200;
const DOUBLE_THREE_BONUS: i32 = 100;

/// In the hand-set position value, the side to move's cell scores count this many fifths:
/// threats of the side to move are a move ahead of the opponent's.
const TEMPO_FIFTHS: i32 = 6;

/// Evaluation units per logit of the side to move's winning chance: the trained weights are
/// stored in these units, and the search reports its scores as win rates with them.
pub const UNITS_PER_LOGIT: f64 = 300.0;

/// The game of the value weights file.
pub const GAME: &str = "gomoku";

/// The position value's features: the combination of four line shapes (of 8) of each empty
/// cell, for the side to move and for the opponent, the constant, the threat steps
/// ([`THREAT_STEPS`]) of both, and the crossing of each empty cell ([`CROSSINGS`]).
pub const VALUE_FEATURE_SET: &str = "gomoku-shapes8-combinations330-threatsteps-crossings64-value v2";

/// Pairs of line shapes: the side to move's strongest shape of a cell and the opponent's
/// (`8 * mover + opponent`). The pair of two [`LineShape::None`] (0) carries no weight.
pub const CROSSINGS: usize = 64;

/// Multisets of four line shapes: C(8 + 3, 4).
pub const COMBINATIONS: usize = 330;

/// The kinds of threat cell an evaluation counts per colour: cells where a stone makes a four
/// or an open four in some line, an open four, an open three, and a winning combination (two
/// fours, a four and an open three, or two open threes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum ThreatKind {
    Four,
    OpenFour,
    OpenThree,
    Winning,
}

/// The threat steps of one colour: a count of cells of a kind at least this large. A step's
/// weight counts for every step reached, so the value of a count is the sum of its steps'.
pub const THREAT_STEPS: [(ThreatKind, u16); 12] = [
    (ThreatKind::Four, 1),
    (ThreatKind::Four, 2),
    (ThreatKind::Four, 3),
    (ThreatKind::Four, 4),
    (ThreatKind::OpenFour, 1),
    (ThreatKind::OpenFour, 2),
    (ThreatKind::OpenThree, 1),
    (ThreatKind::OpenThree, 2),
    (ThreatKind::OpenThree, 3),
    (ThreatKind::OpenThree, 5),
    (ThreatKind::Winning, 1),
    (ThreatKind::Winning, 2),
];

/// Counts of threat cells at or past the largest step of every kind are alike.
const COUNT_CAP: usize = 8;

/// The value file's tables: the side to move's combinations, the opponent's, the constant, the
/// side to move's threat steps, the opponent's, and the crossings.
pub const VALUE_TABLE_SIZES: [usize; 6] =
    [COMBINATIONS, COMBINATIONS, 1, THREAT_STEPS.len(), THREAT_STEPS.len(), CROSSINGS];

/// The combination of a cell whose four shapes are all [`LineShape::None`]: it carries no
/// weight (such cells are most of the board, so a weight there would only count empty cells).
pub const EMPTY_COMBINATION: usize = 0;

/// The trained value weights, made by `ponder train --game gomoku --model value` (see
/// `weights/README.md`).
static EMBEDDED_VALUE_WEIGHTS: &[u8] = include_bytes!("../../weights/gomoku.value");

/// Line shapes of every window key: freestyle (index 0) and exact five (index 1).
static SHAPE_TABLES: LazyLock<[Box<[LineShape]>; 2]> = LazyLock::new(|| [shape_table(false), shape_table(true)]);

/// A cell's score for one colour, indexed by its four line shapes (three bits each, the first
/// direction lowest): the line scores plus the combination bonuses.
static CELL_SCORES: LazyLock<Box<[i32]>> = LazyLock::new(|| (0..1 << 12).map(combined_cell_score).collect());

/// What the value reads of a cell, per packing of its four shapes (as in [`CELL_SCORES`]): its
/// strongest shape (the low three bits) and its threat kinds (one bit per [`ThreatKind`] from
/// [`THREAT_FLAGS_SHIFT`] on).
static CELL_TRAITS: LazyLock<Box<[u8]>> = LazyLock::new(|| {
    (0..1 << 12).map(|packed| strongest_shape(packed) as u8 | threat_flags(packed) << THREAT_FLAGS_SHIFT).collect()
});

const STRONGEST_MASK: u8 = 7;
const THREAT_FLAGS_SHIFT: u32 = 3;

fn strongest_shape(packed: usize) -> usize {
    (0..4).map(|direction| packed >> (3 * direction) & 7).max().unwrap_or(0)
}

fn threat_flags(packed: usize) -> u8 {
    let shapes: Vec<LineShape> = (0..4).map(|direction| SHAPES[packed >> (3 * direction) & 7]).collect();
    let count = |wanted: &[LineShape]| shapes.iter().filter(|shape| wanted.contains(shape)).count();
    let fours = count(&[LineShape::Four, LineShape::OpenFour]);
    let open_threes = count(&[LineShape::OpenThree]);
    let flag = |kind: ThreatKind, present: bool| u8::from(present) << kind as usize;
    flag(ThreatKind::Four, fours > 0)
        | flag(ThreatKind::OpenFour, count(&[LineShape::OpenFour]) > 0)
        | flag(ThreatKind::OpenThree, open_threes > 0)
        | flag(ThreatKind::Winning, fours >= 2 || (fours >= 1 && open_threes >= 1) || open_threes >= 2)
}

/// The crossing of a cell whose shapes are packed in `mover` for the side to move and in
/// `opponent` for the other side.
pub fn crossing_of(mover: u16, opponent: u16) -> usize {
    8 * strongest_shape(usize::from(mover)) + strongest_shape(usize::from(opponent))
}

/// The combination (0..[`COMBINATIONS`]) of every packing of four shapes (as in
/// [`CELL_SCORES`]): the shapes sorted, strongest first, numbered in lexicographic order, so
/// the four directions are interchangeable.
static COMBINATION_OF_PACKED: LazyLock<Box<[u16]>> = LazyLock::new(|| {
    let sorted_key = |packed: usize| {
        let mut shapes: [usize; 4] = std::array::from_fn(|direction| packed >> (3 * direction) & 7);
        shapes.sort_unstable_by(|a, b| b.cmp(a));
        shapes
    };
    let mut keys: Vec<[usize; 4]> = (0..1 << 12).map(sorted_key).collect();
    keys.sort_unstable();
    keys.dedup();
    debug_assert_eq!(keys.len(), COMBINATIONS);
    (0..1 << 12).map(|packed| keys.binary_search(&sorted_key(packed)).expect("every key listed") as u16).collect()
});

/// The combination of a cell whose four line shapes are packed in `packed` (12 bits, see
/// [`CELL_SCORES`]).
pub fn combination_of(packed: u16) -> usize {
    usize::from(COMBINATION_OF_PACKED[usize::from(packed)])
}

/// The four shapes of a combination, as packed shapes (the first direction the strongest).
fn combination_packing(combination: usize) -> u16 {
    (0..1u16 << 12).find(|&packed| combination_of(packed) == combination).expect("every combination is packed")
}

/// The trained (or hand-set) position value: a weight per combination of the side to move's
/// empty cells and of the opponent's, a constant, a weight per threat step of the side to move
/// and of the opponent ([`THREAT_STEPS`]), and a weight per crossing ([`CROSSINGS`]), in
/// [`UNITS_PER_LOGIT`] units.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueWeights {
    pub mover: Vec<i32>,
    pub opponent: Vec<i32>,
    pub constant: i32,
    pub mover_threats: Vec<i32>,
    pub opponent_threats: Vec<i32>,
    pub crossings: Vec<i32>,
}

/// The value as the evaluation reads it: per packing of four shapes the side to move's and the
/// opponent's cell weight, the constant, per side (mover, opponent), threat kind and count
/// (capped) the sum of the steps reached, and the crossings' weights.
pub struct ValueTables {
    packed: [Box<[i32]>; 2],
    constant: i32,
    threat_values: [[[i32; COUNT_CAP + 1]; 4]; 2],
    /// Per crossing, its weight (0 for the pair of two [`LineShape::None`]).
    crossings: [i32; CROSSINGS],
}

impl ValueWeights {
    /// The hand-set value (the sum of the side to move's cell scores, weighted for its tempo,
    /// less the opponent's) as weights of the same features.
    pub fn hand_set() -> ValueWeights {
        let score = |combination: usize| CELL_SCORES[usize::from(combination_packing(combination))];
        ValueWeights {
            mover: (0..COMBINATIONS).map(|c| score(c) * TEMPO_FIFTHS / 5).collect(),
            opponent: (0..COMBINATIONS).map(|c| -score(c)).collect(),
            constant: 0,
            mover_threats: vec![0; THREAT_STEPS.len()],
            opponent_threats: vec![0; THREAT_STEPS.len()],
            crossings: vec![0; CROSSINGS],
        }
    }

    /// The weights of a decoded file.
    pub fn from_file(file: &WeightsFile) -> ValueWeights {
        let widen = |table: &[i16]| table.iter().map(|&value| i32::from(value)).collect::<Vec<i32>>();
        ValueWeights {
            mover: widen(&file.tables[0]),
            opponent: widen(&file.tables[1]),
            constant: widen(&file.tables[2])[0],
            mover_threats: widen(&file.tables[3]),
            opponent_threats: widen(&file.tables[4]),
            crossings: widen(&file.tables[5]),
        }
    }

    /// Reads a weights file's bytes.
    ///
    /// # Errors
    /// The [`WeightsError`] of a file that is not Gomoku value weights of this feature set.
    pub fn decode(bytes: &[u8]) -> Result<ValueWeights, WeightsError> {
        weights_format::decode(bytes, GAME, VALUE_FEATURE_SET, &VALUE_TABLE_SIZES)
            .map(|file| ValueWeights::from_file(&file))
    }

    /// The tables the evaluation reads.
    fn tables(&self) -> ValueTables {
        // A taken cell is packed as 0, the empty combination, which must weigh nothing.
        let weight = |weights: &[i32], combination: usize| {
            if combination == EMPTY_COMBINATION { 0 } else { weights[combination] }
        };
        let table = |weights: &[i32]| (0..1u16 << 12).map(|packed| weight(weights, combination_of(packed))).collect();
        let threat_values = |steps: &[i32]| {
            std::array::from_fn(|kind| {
                std::array::from_fn(|count| {
                    THREAT_STEPS
                        .iter()
                        .zip(steps)
                        .filter(|((step_kind, least), _)| *step_kind as usize == kind && count >= usize::from(*least))
                        .map(|(_, weight)| weight)
                        .sum()
                })
            })
        };
        ValueTables {
            packed: [table(&self.mover), table(&self.opponent)],
            constant: self.constant,
            threat_values: [threat_values(&self.mover_threats), threat_values(&self.opponent_threats)],
            crossings: std::array::from_fn(|crossing| if crossing == 0 { 0 } else { self.crossings[crossing] }),
        }
    }
}

/// The embedded value weights, decoded once.
///
/// # Errors
/// The [`WeightsError`] of a damaged embedded file (a build problem).
pub fn embedded_value() -> Result<&'static ValueWeights, WeightsError> {
    static WEIGHTS: OnceLock<Result<ValueWeights, WeightsError>> = OnceLock::new();
    WEIGHTS.get_or_init(|| ValueWeights::decode(EMBEDDED_VALUE_WEIGHTS)).as_ref().map_err(Clone::clone)
}

/// The tables of the value the search uses: the embedded trained weights, or the hand-set value
/// if they could not be read (logged once).
static VALUE_TABLES: LazyLock<ValueTables> = LazyLock::new(|| {
    let weights = embedded_value().cloned().unwrap_or_else(|error| {
        log::warn!("Gomoku value weights: {error}; using the hand-set value");
        ValueWeights::hand_set()
    });
    weights.tables()
});

/// The weight of window index `index` (0..=10, centre 5 excluded) in a key.
fn index_weight(index: usize) -> usize {
    let offset = index as isize - 5;
    OFFSET_WEIGHTS.iter().find(|&&(at, _)| at == offset).map_or(0, |&(_, weight)| weight as usize)
}

/// Whether the run of `own` stones through the window centre (index 5) wins.
fn centre_run_wins(own: u16, exact: bool) -> bool {
    let mut length = 1;
    let mut index = 5;
    while index > 0 && own >> (index - 1) & 1 != 0 {
        length += 1;
        index -= 1;
    }
    index = 5;
    while index < 10 && own >> (index + 1) & 1 != 0 {
        length += 1;
        index += 1;
    }
    if exact { length == 5 } else { length >= 5 }
}

/// Every key's shape. A key with one more own stone is a larger key, so keys classified from
/// the largest down find the shapes of their one-stone-more windows already known: the shape of
/// a window is decided by what its best next stone makes.
fn shape_table(exact: bool) -> Box<[LineShape]> {
    let mut table = vec![LineShape::None; KEY_COUNT];
    for key in (0..KEY_COUNT).rev() {
        // 1. Decode the window: own stones and empty cells by window index, centre own.
        let mut own: u16 = 1 << 5;
        let mut empty: u16 = 0;
        for index in (0..=10).filter(|&index| index != 5) {
            match key / index_weight(index) % 3 {
                0 => empty |= 1 << index,
                1 => own |= 1 << index,
                _ => {}
            }
        }
        if centre_run_wins(own, exact) {
            table[key] = LineShape::Five;
            continue;
        }
        // 2. The shapes one more stone within four cells of the centre makes (a stone further
        //    out is never part of a five through the centre).
        let next = (1..=9)
            .filter(|&index| empty >> index & 1 != 0)
            .map(|index| table[key + index_weight(index)])
            .collect::<Vec<_>>();
        let count = |shape: LineShape| next.iter().filter(|&&made| made == shape).count();
        let best = next.iter().copied().max().unwrap_or(LineShape::None);
        table[key] = match count(LineShape::Five) {
            0 => match best {
                LineShape::OpenFour => LineShape::OpenThree,
                LineShape::Four => LineShape::ClosedThree,
                LineShape::OpenThree => LineShape::OpenTwo,
                LineShape::ClosedThree => LineShape::ClosedTwo,
                _ => LineShape::None,
            },
            1 => LineShape::Four,
            _ => LineShape::OpenFour,
        };
    }
    table.into_boxed_slice()
}

/// The score of a cell whose four line shapes are packed in `packed` (see [`CELL_SCORES`]).
fn combined_cell_score(packed: usize) -> i32 {
    let shapes: Vec<LineShape> = (0..4).map(|direction| SHAPES[packed >> (3 * direction) & 7]).collect();
    let lines: i32 = shapes.iter().map(|&shape| SHAPE_SCORES[shape as usize]).sum();
    let fours = shapes.iter().filter(|&&shape| matches!(shape, LineShape::Four | LineShape::OpenFour)).count();
    let open_threes = shapes.iter().filter(|&&shape| shape == LineShape::OpenThree).count();
    let bonus = if shapes.contains(&LineShape::Five) {
        0
    } else if fours >= 2 {
        DOUBLE_FOUR_BONUS
    } else if fours == 1 && open_threes >= 1 {
        FOUR_THREE_BONUS
    } else if open_threes >= 2 {
        DOUBLE_THREE_BONUS
    } else {
        0
    };
    lines + bonus
}

/// The shape a `color` stone on the empty `cell` of `board` makes in line `direction`.
pub fn line_shape(board: &ThreatBoard, color: Color, cell: Cell, direction: usize) -> LineShape {
    SHAPE_TABLES[usize::from(board.exact_five())][board.window_key(color, cell, direction) as usize]
}

/// The line shapes of a board's cells for both colours (their cell scores read from them) and
/// the position value's sums, kept up to date by
/// [`refresh_around`](PatternEvaluation::refresh_around) after each stone put or taken away,
/// or by [`play`](PatternEvaluation::play) and [`undo`](PatternEvaluation::undo) in a search.
#[derive(Clone)]
pub struct PatternEvaluation {
    /// Per colour and cell: its four line shapes packed as in [`CELL_SCORES`] (0 for a taken
    /// cell): a stone changes one line of each cell that sees it, so one shape is looked up
    /// again, not four.
    packed_shapes: [Vec<u16>; 2],
    /// What the position value is computed from.
    sums: ValueSums,
    shapes: &'static [LineShape],
    cell_scores: &'static [i32],
    value: &'static ValueTables,
    cell_traits: &'static [u8],
    /// Per cell and direction: the cells of the board up to five steps either way on that line
    /// ([`NO_CELL`] past the edge), the cells whose window in that line sees the cell.
    line_neighbours: Box<[[[u16; 10]; 4]]>,
    /// Per stone of [`play`](PatternEvaluation::play) not taken back, newest last: the sums as
    /// they were and where its cells start in `changed_cells`.
    undo_marks: Vec<UndoMark>,
    /// The cells whose packed shapes a stone of `play` changed, with the old shapes (black,
    /// white).
    changed_cells: Vec<(u16, [u16; 2])>,
}

/// The sums over the cells that the position value is computed from, kept up to date stone by
/// stone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ValueSums {
    /// Per colour: the sum of its cells' value weights as the side to move (0) and as the
    /// opponent (1).
    value_totals: [[i32; 2]; 2],
    /// Per colour and [`ThreatKind`]: how many of its cells are of that kind.
    threat_counts: [[u16; 4]; 2],
    /// Per colour to move: the sum of the crossings' weights of the cells.
    crossing_totals: [i32; 2],
}

/// The sums of a [`PatternEvaluation`] before a stone, and the first of its changed cells.
#[derive(Clone, Copy)]
struct UndoMark {
    sums: ValueSums,
    changed_from: usize,
}

/// A neighbour past the board's edge.
const NO_CELL: u16 = u16::MAX;

impl PatternEvaluation {
    /// The scores of every cell of `board`, with the embedded value weights.
    pub fn new(board: &ThreatBoard) -> PatternEvaluation {
        PatternEvaluation::with_value(board, &VALUE_TABLES)
    }

    fn with_value(board: &ThreatBoard, value: &'static ValueTables) -> PatternEvaluation {
        let cells = board.width() * board.height();
        let mut evaluation = PatternEvaluation {
            packed_shapes: [vec![0; cells], vec![0; cells]],
            sums: ValueSums::default(),
            shapes: &SHAPE_TABLES[usize::from(board.exact_five())],
            cell_scores: &CELL_SCORES,
            value,
            cell_traits: &CELL_TRAITS,
            line_neighbours: (0..cells)
                .map(|index| {
                    std::array::from_fn(|direction| {
                        let mut seen = [NO_CELL; 10];
                        for (slot, steps) in (-5..=5).filter(|&steps| steps != 0).enumerate() {
                            if let Some(cell) = board.step(Cell(index as u16), direction, steps) {
                                seen[slot] = cell.0;
                            }
                        }
                        seen
                    })
                })
                .collect(),
            undo_marks: Vec::new(),
            changed_cells: Vec::new(),
        };
        for index in 0..cells {
            evaluation.rescore(board, Cell(index as u16), 0..4, false);
        }
        evaluation
    }

    /// Scores again the cells whose windows see `cell`, after a stone was put on it or taken
    /// off it: the cell in all four lines, the others in the line through `cell`.
    pub fn refresh_around(&mut self, board: &ThreatBoard, cell: Cell) {
        self.rescore_around(board, cell, false);
    }

    /// [`refresh_around`](PatternEvaluation::refresh_around) after a stone was put on `cell`,
    /// noting what changed so that [`undo`](PatternEvaluation::undo) restores it without
    /// scoring anything again (searches put and take back stones in order).
    pub fn play(&mut self, board: &ThreatBoard, cell: Cell) {
        self.undo_marks.push(UndoMark { sums: self.sums, changed_from: self.changed_cells.len() });
        self.rescore_around(board, cell, true);
    }

    /// A pass (a search's null move): the scores stay, and [`previous_value`] becomes the
    /// value of this same position for the side that passed. [`undo`] takes it back.
    ///
    /// [`previous_value`]: PatternEvaluation::previous_value
    /// [`undo`]: PatternEvaluation::undo
    pub fn pass(&mut self) {
        self.undo_marks.push(UndoMark { sums: self.sums, changed_from: self.changed_cells.len() });
    }

    /// Takes back the last stone of [`play`](PatternEvaluation::play) (or the last
    /// [`pass`](PatternEvaluation::pass)) not taken back yet: the scores are again those of the
    /// board before it.
    ///
    /// # Panics
    /// When no stone of `play` or pass is left to take back.
    pub fn undo(&mut self) {
        let mark = self.undo_marks.pop().expect("undo needs a stone of play");
        for (index, old) in self.changed_cells.drain(mark.changed_from..).rev() {
            self.packed_shapes[0][usize::from(index)] = old[0];
            self.packed_shapes[1][usize::from(index)] = old[1];
        }
        self.sums = mark.sums;
    }

    fn rescore_around(&mut self, board: &ThreatBoard, cell: Cell, journaled: bool) {
        self.rescore(board, cell, 0..4, journaled);
        for direction in 0..4 {
            for slot in 0..10 {
                let seen = self.line_neighbours[cell.0 as usize][direction][slot];
                if seen != NO_CELL {
                    self.rescore(board, Cell(seen), direction..direction + 1, journaled);
                }
            }
        }
    }

    /// Scores `cell` again in `directions`, noting its old shapes when `journaled`.
    fn rescore(&mut self, board: &ThreatBoard, cell: Cell, directions: std::ops::Range<usize>, journaled: bool) {
        let index = cell.0 as usize;
        let empty = board.is_empty(cell);
        if !empty && self.packed_shapes[0][index] == 0 && self.packed_shapes[1][index] == 0 {
            // A cell that was taken already: nothing of it counts.
            return;
        }
        // Per colour, the packed shapes before and after. Often neither changes (22% of the
        // empty cells rescored in searches of 8 held-out positions), and then nothing else does.
        let mut packings = [[0u16; 2]; 2];
        for color in [Color::Black, Color::White] {
            let side = color.index();
            let old = self.packed_shapes[side][index];
            let mut packed = 0;
            if empty {
                // A cell emptied again is rescored in all four lines, so `old` is only read
                // for a cell that stayed empty.
                packed = old;
                for direction in directions.clone() {
                    let shape = self.shapes[board.window_key(color, cell, direction) as usize] as u16;
                    packed = packed & !(7 << (3 * direction)) | shape << (3 * direction);
                }
            }
            packings[side] = [old, packed];
        }
        if packings.iter().all(|&[old, packed]| old == packed) {
            return;
        }
        if journaled {
            self.changed_cells.push((cell.0, [packings[0][0], packings[1][0]]));
        }
        let [mover_table, opponent_table] = &self.value.packed;
        // Per colour, the traits of the cell before and after.
        let mut traits = [[0u8; 2]; 2];
        for side in 0..2 {
            let [old, packed] = packings[side];
            self.packed_shapes[side][index] = packed;
            let (old, packed) = (usize::from(old), usize::from(packed));
            self.sums.value_totals[side][0] += mover_table[packed] - mover_table[old];
            self.sums.value_totals[side][1] += opponent_table[packed] - opponent_table[old];
            traits[side] = [self.cell_traits[old], self.cell_traits[packed]];
            let changed = (traits[side][0] ^ traits[side][1]) >> THREAT_FLAGS_SHIFT;
            if changed != 0 {
                let gained = traits[side][1] >> THREAT_FLAGS_SHIFT;
                for kind in 0..4 {
                    if changed >> kind & 1 != 0 {
                        if gained >> kind & 1 != 0 {
                            self.sums.threat_counts[side][kind] += 1;
                        } else {
                            self.sums.threat_counts[side][kind] -= 1;
                        }
                    }
                }
            }
        }
        let strongest = |side: usize, when: usize| usize::from(traits[side][when] & STRONGEST_MASK);
        if (0..2).any(|side| strongest(side, 0) != strongest(side, 1)) {
            let crossings = &self.value.crossings;
            for (mover, opponent) in [(0, 1), (1, 0)] {
                let crossing = |when: usize| crossings[8 * strongest(mover, when) + strongest(opponent, when)];
                self.sums.crossing_totals[mover] += crossing(1) - crossing(0);
            }
        }
    }

    /// The four line shapes of a `color` stone on `cell`, packed (0 for a taken cell; see
    /// [`combination_of`]).
    pub fn packed_shape(&self, color: Color, cell: Cell) -> u16 {
        self.packed_shapes[color.index()][cell.0 as usize]
    }

    /// What a `color` stone on `cell` is worth to `color` (0 for a taken cell).
    pub fn cell_score(&self, color: Color, cell: Cell) -> i32 {
        self.cell_scores[usize::from(self.packed_shapes[color.index()][cell.0 as usize])]
    }

    /// The value of the position for `to_move`, in [`UNITS_PER_LOGIT`] units.
    pub fn position_value(&self, to_move: Color) -> i32 {
        self.value_of(to_move, &self.sums)
    }

    /// The value of the position before the last stone of [`play`](PatternEvaluation::play)
    /// for the side that then had the move (`to_move`'s opponent), if any stone is journaled.
    pub fn previous_value(&self, to_move: Color) -> Option<i32> {
        let mark = self.undo_marks.last()?;
        Some(self.value_of(to_move.opponent(), &mark.sums))
    }

    /// The position value for `to_move` from `sums`.
    fn value_of(&self, to_move: Color, sums: &ValueSums) -> i32 {
        let ValueSums { value_totals, threat_counts, crossing_totals } = sums;
        let (mover, opponent) = (to_move.index(), to_move.opponent().index());
        let threats = |side: usize, role: usize| -> i32 {
            let values = &self.value.threat_values[role];
            (0..4).map(|kind| values[kind][usize::from(threat_counts[side][kind]).min(COUNT_CAP)]).sum()
        };
        value_totals[mover][0]
            + value_totals[opponent][1]
            + self.value.constant
            + threats(mover, 0)
            + threats(opponent, 1)
            + crossing_totals[mover]
    }

    /// The crossing of each empty cell with `to_move` to move, but for the pair of two
    /// [`LineShape::None`], in cell order: position value features.
    pub fn crossings(&self, to_move: Color) -> impl Iterator<Item = usize> + '_ {
        let (mover, opponent) = (&self.packed_shapes[to_move.index()], &self.packed_shapes[to_move.opponent().index()]);
        mover.iter().zip(opponent).map(|(&mine, &theirs)| crossing_of(mine, theirs)).filter(|&crossing| crossing != 0)
    }

    /// How many of `color`'s empty cells are of each [`ThreatKind`] (indexed by the kind).
    pub fn threat_counts(&self, color: Color) -> [u16; 4] {
        self.sums.threat_counts[color.index()]
    }

    /// The combination of each of `color`'s empty cells that has one (not
    /// [`EMPTY_COMBINATION`]), in cell order: the position value's features.
    pub fn combinations(&self, color: Color) -> impl Iterator<Item = usize> + '_ {
        self.packed_shapes[color.index()]
            .iter()
            .map(|&packed| combination_of(packed))
            .filter(|&combination| combination != EMPTY_COMBINATION)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::mnk::{Mnk, MnkConfig};
    use crate::games::{Game, GameConfig};

    /// A 15x15 board with Black's stones at `black` and White's at `white` (GTP vertices).
    fn board(black: &[&str], white: &[&str], exact: bool) -> ThreatBoard {
        let mut config = MnkConfig::gomoku();
        if exact {
            config.set_param("exact_five", "1").unwrap();
        }
        let empty = Mnk::new(&config);
        let mut board = ThreatBoard::empty(15, 15, exact);
        for (color, cells) in [(Color::Black, black), (Color::White, white)] {
            for text in cells {
                board.put(color, empty.parse_move(text).unwrap());
            }
        }
        board
    }

    fn shape_at(board: &ThreatBoard, color: Color, text: &str) -> LineShape {
        let cell = Mnk::new(&MnkConfig::gomoku()).parse_move(text).unwrap();
        line_shape(board, color, cell, 0)
    }

    #[test]
    fn recognises_line_shapes_on_hand_made_rows() {
        // Row 8 only, horizontal direction (0).
        let open_three = board(&["F8", "G8", "H8"], &[], false);
        assert_eq!(shape_at(&open_three, Color::Black, "J8"), LineShape::OpenFour);
        assert_eq!(shape_at(&open_three, Color::Black, "E8"), LineShape::OpenFour);
        assert_eq!(shape_at(&open_three, Color::Black, "K8"), LineShape::Four);
        // White sees the same cells as blocks of Black's line: nothing of its own there.
        assert_eq!(shape_at(&open_three, Color::White, "J8"), LineShape::None);
        let closed_three = board(&["F8", "G8", "H8"], &["E8"], false);
        assert_eq!(shape_at(&closed_three, Color::Black, "J8"), LineShape::Four);
        assert_eq!(shape_at(&closed_three, Color::Black, "K8"), LineShape::Four);
        let four = board(&["F8", "G8", "H8", "J8"], &["E8"], false);
        assert_eq!(shape_at(&four, Color::Black, "K8"), LineShape::Five);
        let open_two = board(&["G8", "H8"], &[], false);
        assert_eq!(shape_at(&open_two, Color::Black, "J8"), LineShape::OpenThree);
        assert_eq!(shape_at(&open_two, Color::Black, "K8"), LineShape::OpenThree);
        let one = board(&["H8"], &[], false);
        assert_eq!(shape_at(&one, Color::Black, "J8"), LineShape::OpenTwo);
        assert_eq!(shape_at(&one, Color::Black, "L8"), LineShape::OpenTwo);
        assert_eq!(shape_at(&one, Color::Black, "N8"), LineShape::None);
        // Against the edge: A8 B8 at the edge, a stone on C8 makes a two that can never be
        // open (A8 side is the edge).
        let edge_two = board(&["A8", "B8"], &[], false);
        assert_eq!(shape_at(&edge_two, Color::Black, "C8"), LineShape::ClosedThree);
        // A hemmed-in line: five cells between White stones hold no five at all.
        let hemmed = board(&["G8", "H8"], &["E8", "K8"], false);
        assert_eq!(shape_at(&hemmed, Color::Black, "J8"), LineShape::None);
        // Exact five: X X X X . X: filling the gap makes six, not five.
        let overline = board(&["D8", "E8", "F8", "G8", "J8"], &[], true);
        assert_eq!(shape_at(&overline, Color::Black, "H8"), LineShape::None);
        let freestyle = board(&["D8", "E8", "F8", "G8", "J8"], &[], false);
        assert_eq!(shape_at(&freestyle, Color::Black, "H8"), LineShape::Five);
    }

    #[test]
    fn combinations_score_above_their_lines() {
        let pack = |shapes: [LineShape; 4]| -> usize {
            shapes.iter().enumerate().map(|(d, &s)| (s as usize) << (3 * d)).sum()
        };
        let single = CELL_SCORES[pack([LineShape::Four, LineShape::None, LineShape::None, LineShape::None])];
        let four_three = CELL_SCORES[pack([LineShape::Four, LineShape::OpenThree, LineShape::None, LineShape::None])];
        let double_four = CELL_SCORES[pack([LineShape::Four, LineShape::Four, LineShape::None, LineShape::None])];
        assert!(four_three > single + SHAPE_SCORES[LineShape::OpenThree as usize]);
        assert!(double_four > four_three);
    }

    /// The eight images of (column, row) on a square board of side `side`.
    fn image(symmetry: usize, column: usize, row: usize, side: usize) -> (usize, usize) {
        let (x, y) = if symmetry & 4 != 0 { (row, column) } else { (column, row) };
        let x = if symmetry & 1 != 0 { side - 1 - x } else { x };
        let y = if symmetry & 2 != 0 { side - 1 - y } else { y };
        (x, y)
    }

    #[test]
    fn position_values_are_the_same_on_all_eight_board_images() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(15);
        for exact in [false, true] {
            for _ in 0..20 {
                let stones: Vec<(Color, usize, usize)> = (0..rng.random_range(1..30))
                    .map(|index| {
                        let color = if index % 2 == 0 { Color::Black } else { Color::White };
                        (color, rng.random_range(3..12), rng.random_range(3..12))
                    })
                    .collect();
                let mut values = Vec::new();
                for symmetry in 0..8 {
                    let mut board = ThreatBoard::empty(15, 15, exact);
                    let mut evaluation = PatternEvaluation::new(&board);
                    for &(color, column, row) in &stones {
                        let (x, y) = image(symmetry, column, row, 15);
                        let cell = board.cell(x, y);
                        if board.is_empty(cell) {
                            board.put(color, cell);
                            evaluation.refresh_around(&board, cell);
                        }
                    }
                    // The incremental sums equal the sums from scratch.
                    let fresh = PatternEvaluation::new(&board);
                    assert_eq!(fresh.sums.value_totals, evaluation.sums.value_totals);
                    assert_eq!(fresh.sums.threat_counts, evaluation.sums.threat_counts);
                    assert_eq!(fresh.sums.crossing_totals, evaluation.sums.crossing_totals);
                    assert_eq!(fresh.packed_shapes, evaluation.packed_shapes);
                    values.push((evaluation.position_value(Color::Black), evaluation.position_value(Color::White)));
                }
                assert!(values.iter().all(|&value| value == values[0]), "{values:?}");
            }
        }
    }

    #[test]
    fn undo_restores_the_scores_play_changed() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(16);
        let mut board = ThreatBoard::empty(15, 15, false);
        let mut evaluation = PatternEvaluation::new(&board);
        let mut played = 0;
        for _ in 0..300 {
            let cell = board.cell(rng.random_range(2..13), rng.random_range(2..13));
            if rng.random_bool(0.6) && board.is_empty(cell) {
                let color = if played % 2 == 0 { Color::Black } else { Color::White };
                board.play(color, cell);
                evaluation.play(&board, cell);
                played += 1;
            } else if played > 0 {
                board.undo();
                evaluation.undo();
                played -= 1;
            }
            let fresh = PatternEvaluation::new(&board);
            assert_eq!(fresh.packed_shapes, evaluation.packed_shapes);
            assert_eq!(fresh.sums.value_totals, evaluation.sums.value_totals);
            assert_eq!(fresh.sums.threat_counts, evaluation.sums.threat_counts);
            assert_eq!(fresh.sums.crossing_totals, evaluation.sums.crossing_totals);
        }
        assert!(played > 5, "the walk played too few stones: {played}");
    }

    #[test]
    fn after_a_pass_the_previous_value_is_the_same_position_for_the_side_that_passed() {
        let mut board = ThreatBoard::empty(15, 15, false);
        let mut evaluation = PatternEvaluation::new(&board);
        for (color, x, y) in [(Color::Black, 7, 7), (Color::White, 8, 8), (Color::Black, 7, 8)] {
            let cell = board.cell(x, y);
            board.play(color, cell);
            evaluation.play(&board, cell);
        }
        // White to move passes: Black is to move in the same position.
        let (white, black) = (evaluation.position_value(Color::White), evaluation.position_value(Color::Black));
        let before = evaluation.previous_value(Color::White);
        evaluation.pass();
        assert_eq!(evaluation.previous_value(Color::Black), Some(white));
        assert_eq!(evaluation.position_value(Color::Black), black);
        evaluation.undo();
        assert_eq!(evaluation.previous_value(Color::White), before);
        assert_eq!(evaluation.position_value(Color::White), white);
    }

    #[test]
    fn the_previous_value_is_that_of_the_position_before_the_last_stone() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(17);
        let mut board = ThreatBoard::empty(15, 15, false);
        let mut evaluation = PatternEvaluation::new(&board);
        assert_eq!(evaluation.previous_value(Color::Black), None, "nothing played yet");
        // Each position's value for the side to move, before every stone played since.
        let mut values_before = Vec::new();
        let mut to_move = Color::Black;
        for _ in 0..40 {
            let cell = board.cell(rng.random_range(3..12), rng.random_range(3..12));
            if !board.is_empty(cell) {
                continue;
            }
            values_before.push(PatternEvaluation::new(&board).position_value(to_move));
            board.play(to_move, cell);
            evaluation.play(&board, cell);
            to_move = to_move.opponent();
            // The side that moved before the stone is the opponent of the side to move now.
            assert_eq!(evaluation.previous_value(to_move), values_before.last().copied());
        }
        while let Some(before) = values_before.pop() {
            board.undo();
            evaluation.undo();
            to_move = to_move.opponent();
            assert_eq!(evaluation.position_value(to_move), before);
            let earlier = values_before.last().copied();
            assert_eq!(evaluation.previous_value(to_move), earlier);
        }
    }

    #[test]
    fn the_side_with_the_stronger_shape_is_ahead() {
        let board = board(&["F8", "G8", "H8"], &["F6", "G6"], false);
        let hand_set: &'static _ = Box::leak(Box::new(ValueWeights::hand_set().tables()));
        for evaluation in [PatternEvaluation::new(&board), PatternEvaluation::with_value(&board, hand_set)] {
            assert!(evaluation.position_value(Color::Black) > 0);
            assert!(evaluation.position_value(Color::White) < 0);
        }
    }

    #[test]
    fn combinations_ignore_the_order_of_the_directions() {
        let pack = |shapes: [usize; 4]| -> u16 { shapes.iter().enumerate().map(|(d, &s)| (s << (3 * d)) as u16).sum() };
        let mut seen = std::collections::HashSet::new();
        for packed in 0..1u16 << 12 {
            let combination = combination_of(packed);
            assert!(combination < COMBINATIONS);
            seen.insert(combination);
            let shapes: [usize; 4] = std::array::from_fn(|d| usize::from(packed >> (3 * d) & 7));
            let rotated = pack([shapes[1], shapes[2], shapes[3], shapes[0]]);
            let swapped = pack([shapes[1], shapes[0], shapes[2], shapes[3]]);
            assert_eq!(combination_of(rotated), combination);
            assert_eq!(combination_of(swapped), combination);
        }
        assert_eq!(seen.len(), COMBINATIONS);
        assert_eq!(combination_of(0), EMPTY_COMBINATION);
        // Different multisets stay apart: a four with a three is not two threes.
        let four_three = pack([LineShape::Four as usize, LineShape::OpenThree as usize, 0, 0]);
        let three_three = pack([LineShape::OpenThree as usize, LineShape::OpenThree as usize, 0, 0]);
        assert_ne!(combination_of(four_three), combination_of(three_three));
    }

    #[test]
    fn the_hand_set_weights_are_the_cell_scores_with_the_tempo() {
        let board = board(&["F8", "G8", "H8", "J10"], &["F6", "G6", "K9"], false);
        let hand_set: &'static _ = Box::leak(Box::new(ValueWeights::hand_set().tables()));
        let evaluation = PatternEvaluation::with_value(&board, hand_set);
        let cells = || (0..225).map(|index| Cell(index as u16));
        let sum = |color: Color, fifths: i32| -> i32 {
            cells().map(|cell| evaluation.cell_score(color, cell) * fifths / 5).sum()
        };
        assert_eq!(evaluation.position_value(Color::Black), sum(Color::Black, TEMPO_FIFTHS) - sum(Color::White, 5));
        assert_eq!(evaluation.position_value(Color::White), sum(Color::White, TEMPO_FIFTHS) - sum(Color::Black, 5));
        // The features: every empty cell with a shape, by colour.
        let shaped = |color: Color| cells().filter(|&cell| evaluation.cell_score(color, cell) > 0).count();
        assert_eq!(evaluation.combinations(Color::Black).count(), shaped(Color::Black));
    }

    #[test]
    fn threat_cells_are_counted_by_kind() {
        // Black: an open three on row 8 (E8 and J8 make open fours, D8 and K8 fours) and an
        // open two C3 C4 on column C, far from it. White: a lone stone in the corner.
        let black = board(&["F8", "G8", "H8", "C3", "C4"], &["A1"], false);
        let evaluation = PatternEvaluation::new(&black);
        let count_cells = |color: Color, wanted: &[LineShape]| {
            (0..225)
                .filter(|&index| {
                    let cell = Cell(index as u16);
                    black.is_empty(cell) && (0..4).any(|d| wanted.contains(&line_shape(&black, color, cell, d)))
                })
                .count() as u16
        };
        let [fours, open_fours, open_threes, _] = evaluation.threat_counts(Color::Black);
        assert_eq!(open_fours, 2);
        assert_eq!(fours, 4);
        assert_eq!(fours, count_cells(Color::Black, &[LineShape::Four, LineShape::OpenFour]));
        assert_eq!(open_threes, count_cells(Color::Black, &[LineShape::OpenThree]));
        // C2, C5 and C6 (C1 is against the edge: C1 C3 C4 can never make an open four).
        assert_eq!(open_threes, 3);
        assert_eq!(evaluation.threat_counts(Color::White), [0, 0, 0, 0]);
        // A winning cell makes two threats at once: E8 makes the row's open four and, with
        // E6 and E7, an open three in the column.
        let crossed = board(&["F8", "G8", "H8", "E6", "E7"], &[], false);
        let [_, _, _, winning] = PatternEvaluation::new(&crossed).threat_counts(Color::Black);
        assert!(winning >= 1);
    }

    #[test]
    fn threat_steps_add_their_weights_once_reached() {
        let black = board(&["F8", "G8", "H8"], &["A1"], false);
        let mut weights = ValueWeights::hand_set();
        weights.mover.fill(0);
        weights.opponent.fill(0);
        // Black has two open-four cells (E8, J8): the steps "at least 1" and "at least 2".
        let step = |kind: ThreatKind, least: u16| THREAT_STEPS.iter().position(|&s| s == (kind, least)).unwrap();
        weights.mover_threats[step(ThreatKind::OpenFour, 1)] = 7;
        weights.mover_threats[step(ThreatKind::OpenFour, 2)] = 11;
        weights.opponent_threats[step(ThreatKind::OpenFour, 1)] = -100;
        weights.opponent_threats[step(ThreatKind::Winning, 1)] = -1000;
        let tables: &'static _ = Box::leak(Box::new(weights.tables()));
        let evaluation = PatternEvaluation::with_value(&black, tables);
        assert_eq!(evaluation.position_value(Color::Black), 18);
        assert_eq!(evaluation.position_value(Color::White), -100);
    }

    #[test]
    fn the_embedded_value_weights_decode() {
        let weights = embedded_value().unwrap();
        assert_eq!(weights.mover.len(), COMBINATIONS);
        assert_eq!(weights.opponent.len(), COMBINATIONS);
        assert_eq!(weights.mover_threats.len(), THREAT_STEPS.len());
        // The trained threat steps are not the hand-set zeros.
        assert!(weights.mover_threats.iter().chain(&weights.opponent_threats).any(|&w| w != 0));
    }
}
