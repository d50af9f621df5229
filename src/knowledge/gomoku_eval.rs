//! A pattern evaluation of Gomoku positions for the alpha-beta search
//! ([`crate::search::gomoku_alphabeta`]), in the manner of classical engines such as Rapfi's:
//! every empty cell is scored, for each colour, by what a stone of that colour would make there
//! in each of its four lines (a five, an open four, a four, an open or closed three, an open or
//! closed two), plus a bonus for the combinations that win by force (double four, four-three,
//! double three). A position's value is the sum of the cells' scores for the side to move less
//! the opponent's, the side to move's weighted up a little since it moves first.
//!
//! The scores are **hand-set**, not trained: round numbers ordered by how close each shape is to
//! a five. They are the first step of issue 15 item 3; fitting them from self-play (item 2) is
//! left for later.
//!
//! The evaluation is kept up to date move by move: a stone changes the line windows of the
//! forty cells that see it (five each way in four directions) and the cell itself, so only
//! those cells are scored again ([`PatternEvaluation::refresh_around`]).

use std::sync::LazyLock;

use crate::games::Color;
use crate::games::mnk::Cell;
use crate::games::mnk::gomoku_threats::{KEY_COUNT, OFFSET_WEIGHTS, ThreatBoard};

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

/// The side to move's cell scores count this many fifths: threats of the side to move are a
/// move ahead of the opponent's.
const TEMPO_FIFTHS: i32 = 6;

/// Line shapes of every window key: freestyle (index 0) and exact five (index 1).
static SHAPE_TABLES: LazyLock<[Box<[LineShape]>; 2]> = LazyLock::new(|| [shape_table(false), shape_table(true)]);

/// A cell's score for one colour, indexed by its four line shapes (three bits each, the first
/// direction lowest): the line scores plus the combination bonuses.
static CELL_SCORES: LazyLock<Box<[i32]>> = LazyLock::new(|| (0..1 << 12).map(combined_cell_score).collect());

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

/// The cell scores of a board for both colours and their sums, kept up to date by
/// [`refresh_around`](PatternEvaluation::refresh_around) after each stone put or taken away.
#[derive(Clone)]
pub struct PatternEvaluation {
    /// Per colour and cell: the cell's score (0 for a taken cell).
    scores: [Vec<i32>; 2],
    /// Per colour and cell: its four line shapes packed as in [`CELL_SCORES`] (kept for empty
    /// cells): a stone changes one line of each cell that sees it, so one shape is looked up
    /// again, not four.
    packed_shapes: [Vec<u16>; 2],
    /// Per colour: the sum of its cell scores.
    totals: [i32; 2],
    shapes: &'static [LineShape],
    cell_scores: &'static [i32],
}

impl PatternEvaluation {
    /// The scores of every cell of `board`.
    pub fn new(board: &ThreatBoard) -> PatternEvaluation {
        let cells = board.width() * board.height();
        let mut evaluation = PatternEvaluation {
            scores: [vec![0; cells], vec![0; cells]],
            packed_shapes: [vec![0; cells], vec![0; cells]],
            totals: [0; 2],
            shapes: &SHAPE_TABLES[usize::from(board.exact_five())],
            cell_scores: &CELL_SCORES,
        };
        for index in 0..cells {
            evaluation.rescore(board, Cell(index as u16), 0..4);
        }
        evaluation
    }

    /// Scores again the cells whose windows see `cell`, after a stone was put on it or taken
    /// off it: the cell in all four lines, the others in the line through `cell`.
    pub fn refresh_around(&mut self, board: &ThreatBoard, cell: Cell) {
        self.rescore(board, cell, 0..4);
        for direction in 0..4 {
            for steps in (-5..=5).filter(|&steps| steps != 0) {
                if let Some(seen) = board.step(cell, direction, steps) {
                    self.rescore(board, seen, direction..direction + 1);
                }
            }
        }
    }

    fn rescore(&mut self, board: &ThreatBoard, cell: Cell, directions: std::ops::Range<usize>) {
        let index = cell.0 as usize;
        let empty = board.is_empty(cell);
        for color in [Color::Black, Color::White] {
            let side = color.index();
            let score = if empty {
                let mut packed = self.packed_shapes[side][index];
                for direction in directions.clone() {
                    let shape = self.shapes[board.window_key(color, cell, direction) as usize] as u16;
                    packed = packed & !(7 << (3 * direction)) | shape << (3 * direction);
                }
                self.packed_shapes[side][index] = packed;
                self.cell_scores[packed as usize]
            } else {
                0
            };
            self.totals[side] += score - self.scores[side][index];
            self.scores[side][index] = score;
        }
    }

    /// What a `color` stone on `cell` is worth to `color` (0 for a taken cell).
    pub fn cell_score(&self, color: Color, cell: Cell) -> i32 {
        self.scores[color.index()][cell.0 as usize]
    }

    /// The value of the position for `to_move`: its cell scores, weighted for the tempo, less
    /// the opponent's.
    pub fn position_value(&self, to_move: Color) -> i32 {
        self.totals[to_move.index()] * TEMPO_FIFTHS / 5 - self.totals[to_move.opponent().index()]
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
                    assert_eq!(fresh.totals, evaluation.totals);
                    values.push((evaluation.position_value(Color::Black), evaluation.position_value(Color::White)));
                }
                assert!(values.iter().all(|&value| value == values[0]), "{values:?}");
            }
        }
    }

    #[test]
    fn the_side_with_the_stronger_shape_is_ahead() {
        let board = board(&["F8", "G8", "H8"], &["F6", "G6"], false);
        let evaluation = PatternEvaluation::new(&board);
        assert!(evaluation.position_value(Color::Black) > 0);
        assert!(evaluation.position_value(Color::White) < 0);
    }
}
