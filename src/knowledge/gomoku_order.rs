//! A learned move order for Gomoku's alpha-beta search
//! ([`crate::search::gomoku_alphabeta`]), in the manner of the classical evaluators' policy
//! scores (Rapfi's among them): every candidate cell gets a score that is a sum of weights of
//! what a stone there would see, for each colour:
//!
//! 1. **Windows**, per line direction: the four cells on each side of the cell along the line
//!    (empty, the colour's stone, or blocked: an opponent stone or the edge), where everything
//!    past the first blocked cell counts as blocked (nothing beyond a wall takes part in the
//!    line), and the two sides taken as an unordered pair (a line read backwards is the same
//!    line). That is [`WINDOW_CLASSES`] classes, read from the threat board's window keys.
//!    The side to move's four windows sum one table, the opponent's another.
//! 2. **Combinations**: the multiset of the four line shapes of the evaluation
//!    ([`crate::knowledge::gomoku_eval`], 330 combinations), one table for the side to move's
//!    and one for the opponent's: what the directions make together (a four and an open three,
//!    two open threes) that the per-direction sums cannot say.
//!
//! The windows are finer than the evaluation's eight line shapes (they tell apart the twos and
//! threes by their spacing and room), which is what the hand-set order misses: fitted to the
//! same eight shapes the order found Rapfi's move no more often (see `weights/README.md`). The
//! weights are `ln` strengths of a softmax over the candidates, in [`ORDER_UNIT`]s, fitted by
//! `ponder train --game gomoku --model order` ([`crate::train::gomoku_order_fit`]). Freestyle
//! only: exact five keeps the hand-set order.

use std::sync::{LazyLock, OnceLock};

use super::gomoku_eval::{COMBINATIONS, PatternEvaluation, combination_of};
use super::weights_format::{self, WeightsError, WeightsFile};
use crate::games::Color;
use crate::games::mnk::Cell;
use crate::games::mnk::gomoku_threats::{KEY_COUNT, OFFSET_WEIGHTS, ThreatBoard};

/// The game named in the weights file.
pub const GAME: &str = "gomoku";

/// The feature set named in the weights file.
pub const ORDER_FEATURE_SET: &str = "gomoku-order-windows4x2-combinations330 v1";

/// Window cells read on each side of the cell.
const SIDE_CELLS: usize = 4;

/// States of one side of a window: a run of up to [`SIDE_CELLS`] cells, each empty or the
/// colour's, then blocked to the end (1 + 2 + 4 + 8 + 16).
const SIDE_STATES: usize = 31;

/// Window classes: unordered pairs of side states.
pub const WINDOW_CLASSES: usize = SIDE_STATES * (SIDE_STATES + 1) / 2;

/// Tables: the side to move's windows, the opponent's windows, the side to move's
/// combinations, the opponent's combinations.
pub const ORDER_TABLE_SIZES: [usize; 4] = [WINDOW_CLASSES, WINDOW_CLASSES, COMBINATIONS, COMBINATIONS];

/// Weights are stored as `ln(strength)` times this.
pub const ORDER_UNIT: f64 = 256.0;

/// The state of one side of a window, read outward from the cell: `digits[k]` is the cell
/// `k + 1` steps away (0 empty, 1 own stone, 2 blocked). Numbered by the run before the first
/// block: runs of length `n` take the `2^n` numbers after those of the shorter runs.
fn side_state(digits: [u8; SIDE_CELLS]) -> usize {
    let run = digits.iter().position(|&digit| digit == 2).unwrap_or(SIDE_CELLS);
    let bits = digits[..run].iter().enumerate().fold(0, |bits, (k, &digit)| bits | usize::from(digit) << k);
    (1 << run) - 1 + bits
}

/// The window class of every window key ([`ThreatBoard::window_key`]).
static WINDOW_CLASS_OF_KEY: LazyLock<Box<[u16]>> = LazyLock::new(|| {
    (0..KEY_COUNT as u32)
        .map(|key| {
            let digit_at = |offset: isize| {
                let &(_, weight) = OFFSET_WEIGHTS.iter().find(|&&(o, _)| o == offset).expect("offset in the window");
                (key / u32::from(weight) % 3) as u8
            };
            let side = |step: isize| side_state(std::array::from_fn(|k| digit_at(step * (k as isize + 1))));
            let (a, b) = (side(-1), side(1));
            let (low, high) = (a.min(b), a.max(b));
            // Unordered pairs (low <= high), numbered row by row.
            (high * (high + 1) / 2 + low) as u16
        })
        .collect()
});

/// The window class of `color`'s line `direction` through the empty `cell`.
pub fn window_class(board: &ThreatBoard, color: Color, cell: Cell, direction: usize) -> usize {
    usize::from(WINDOW_CLASS_OF_KEY[usize::from(board.window_key(color, cell, direction))])
}

/// The features of a candidate cell with `to_move` to move: the four window classes of each
/// colour (side to move first) and each colour's combination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderFeatures {
    pub windows: [[u16; 4]; 2],
    pub combinations: [u16; 2],
}

/// [`OrderFeatures`] of the empty `cell`.
pub fn order_features(
    board: &ThreatBoard,
    evaluation: &PatternEvaluation,
    to_move: Color,
    cell: Cell,
) -> OrderFeatures {
    let colours = [to_move, to_move.opponent()];
    OrderFeatures {
        windows: colours
            .map(|color| std::array::from_fn(|direction| window_class(board, color, cell, direction) as u16)),
        combinations: colours.map(|color| combination_of(evaluation.packed_shape(color, cell)) as u16),
    }
}

/// The fitted weights, as `ln(strength)` in [`ORDER_UNIT`]s per table.
#[derive(Clone, Debug, PartialEq)]
pub struct OrderWeights {
    pub tables: [Vec<i32>; 4],
}

impl OrderWeights {
    /// The weights of a decoded file.
    pub fn from_file(file: &WeightsFile) -> OrderWeights {
        OrderWeights { tables: std::array::from_fn(|t| file.tables[t].iter().map(|&w| i32::from(w)).collect()) }
    }

    /// Reads a weights file's bytes.
    ///
    /// # Errors
    /// The [`WeightsError`] of a file that is not a Gomoku move order of this feature set.
    pub fn decode(bytes: &[u8]) -> Result<OrderWeights, WeightsError> {
        weights_format::decode(bytes, GAME, ORDER_FEATURE_SET, &ORDER_TABLE_SIZES)
            .map(|file| OrderWeights::from_file(&file))
    }

    /// The score of a candidate with these features: the sum of its weights.
    pub fn score(&self, features: &OrderFeatures) -> i32 {
        let [own_windows, their_windows, own_combinations, their_combinations] = &self.tables;
        let windows = |table: &[i32], classes: &[u16; 4]| classes.iter().map(|&c| table[usize::from(c)]).sum::<i32>();
        windows(own_windows, &features.windows[0])
            + windows(their_windows, &features.windows[1])
            + own_combinations[usize::from(features.combinations[0])]
            + their_combinations[usize::from(features.combinations[1])]
    }

    /// The weights laid out for the search: per window key and per packing of four line
    /// shapes, so a candidate's score is ten table look-ups (four windows and a packing a
    /// colour) and no feature is computed.
    pub fn tables(&self) -> OrderTables {
        let [own_windows, their_windows, own_combinations, their_combinations] = &self.tables;
        let by_key = |table: &[i32]| WINDOW_CLASS_OF_KEY.iter().map(|&class| table[usize::from(class)]).collect();
        let by_packing = |table: &[i32]| (0..1u16 << 12).map(|packed| table[combination_of(packed)]).collect();
        OrderTables {
            windows: [by_key(own_windows), by_key(their_windows)],
            combinations: [by_packing(own_combinations), by_packing(their_combinations)],
        }
    }
}

/// [`OrderWeights`] as the search reads them (see [`OrderWeights::tables`]); the side to move's
/// tables first.
pub struct OrderTables {
    windows: [Box<[i32]>; 2],
    combinations: [Box<[i32]>; 2],
}

impl OrderTables {
    /// The score of the empty `cell` with `to_move` to move: [`OrderWeights::score`] of its
    /// [`order_features`].
    pub fn cell_score(&self, board: &ThreatBoard, evaluation: &PatternEvaluation, to_move: Color, cell: Cell) -> i32 {
        let mut score = 0;
        for (side, color) in [to_move, to_move.opponent()].into_iter().enumerate() {
            let windows = &self.windows[side];
            score +=
                (0..4).map(|direction| windows[usize::from(board.window_key(color, cell, direction))]).sum::<i32>();
            score += self.combinations[side][usize::from(evaluation.packed_shape(color, cell))];
        }
        score
    }
}

/// The shipped weights, made by `ponder train --game gomoku --model order` (see
/// `weights/README.md`).
static EMBEDDED_ORDER_WEIGHTS: &[u8] = include_bytes!("../../weights/gomoku.order");

/// The embedded weights, decoded once.
///
/// # Errors
/// The [`WeightsError`] of a damaged embedded file (a build problem).
pub fn embedded_order() -> Result<&'static OrderWeights, WeightsError> {
    static WEIGHTS: OnceLock<Result<OrderWeights, WeightsError>> = OnceLock::new();
    WEIGHTS.get_or_init(|| OrderWeights::decode(EMBEDDED_ORDER_WEIGHTS)).as_ref().map_err(Clone::clone)
}

/// The search's tables of the embedded weights, built once; `None` (with a warning, once) when
/// the file cannot be read, and the search keeps its hand-set order.
pub fn embedded_order_tables() -> Option<&'static OrderTables> {
    static TABLES: LazyLock<Option<OrderTables>> = LazyLock::new(|| match embedded_order() {
        Ok(weights) => Some(weights.tables()),
        Err(error) => {
            log::warn!("Gomoku move order weights: {error}; using the hand-set order");
            None
        }
    });
    TABLES.as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Game;
    use crate::games::mnk::{Mnk, MnkConfig};

    #[test]
    fn side_states_number_every_run_once() {
        let mut seen = [false; SIDE_STATES];
        for code in 0..81u32 {
            let digits: [u8; SIDE_CELLS] = std::array::from_fn(|k| (code / 3u32.pow(k as u32) % 3) as u8);
            seen[side_state(digits)] = true;
            // Past the first block nothing counts.
            if let Some(block) = digits.iter().position(|&d| d == 2) {
                let mut walled = digits;
                walled[block..].fill(2);
                assert_eq!(side_state(digits), side_state(walled), "{digits:?}");
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    /// A 15x15 board with the `black` and `white` stones played in turn, Black first.
    fn board(black: &[&str], white: &[&str]) -> Mnk {
        let mut position = Mnk::new(&MnkConfig::gomoku());
        let mut stones = Vec::new();
        for (b, w) in black.iter().zip(white.iter().map(Some).chain(std::iter::repeat(None))) {
            stones.push(*b);
            if let Some(w) = w {
                stones.push(*w);
            }
        }
        for text in stones {
            let mv = position.parse_move(text).unwrap();
            position.play(mv).unwrap();
        }
        position
    }

    #[test]
    fn a_line_and_its_mirror_image_share_a_class_and_a_wall_ends_it() {
        // Black stones two to the left of H8 and two to the right of another cell, alike.
        let position = board(&["F8", "M8", "A1"], &["P15", "P14"]);
        let threats = ThreatBoard::new(&position);
        let cell = |text: &str| position.parse_move(text).unwrap();
        let (left, right) =
            (window_class(&threats, Color::Black, cell("H8"), 0), window_class(&threats, Color::Black, cell("K8"), 0));
        assert_eq!(left, right);
        // A different spacing is a different class.
        assert_ne!(left, window_class(&threats, Color::Black, cell("G8"), 0));
        // Past a wall nothing counts: with White on G8, Black's F8 beyond it leaves H8's
        // window as it is without F8.
        let walled = board(&["F8", "A1"], &["G8"]);
        let bare = board(&["B2", "A1"], &["G8"]);
        let class = |position: &Mnk| window_class(&ThreatBoard::new(position), Color::Black, cell("H8"), 0);
        assert_eq!(class(&walled), class(&bare));
        assert_ne!(class(&walled), class(&board(&["F8", "A1"], &["B2"])));
        // Every class is in range.
        assert!(WINDOW_CLASS_OF_KEY.iter().all(|&class| usize::from(class) < WINDOW_CLASSES));
        assert_eq!(
            WINDOW_CLASS_OF_KEY.iter().map(|&c| c as usize).collect::<std::collections::BTreeSet<_>>().len(),
            WINDOW_CLASSES
        );
    }

    #[test]
    fn the_search_tables_score_as_the_weights_do() {
        use rand::{Rng, SeedableRng, rngs::SmallRng};
        let weights = embedded_order().expect("the embedded order decodes");
        assert!(weights.tables.iter().flatten().any(|&w| w != 0));
        let tables = weights.tables();
        let mut rng = SmallRng::seed_from_u64(11);
        for _ in 0..20 {
            let mut position = Mnk::new(&MnkConfig::gomoku());
            let mut legal = Vec::new();
            for _ in 0..rng.random_range(1..40) {
                legal.clear();
                position.legal_moves(&mut legal);
                position.play(legal[rng.random_range(0..legal.len())]).unwrap();
                if position.outcome().is_some() {
                    break;
                }
            }
            let threats = ThreatBoard::new(&position);
            let evaluation = PatternEvaluation::new(&threats);
            let to_move = position.to_move();
            for index in 0..225 {
                let cell = Cell(index);
                if position.stone_at(cell).is_none() {
                    let features = order_features(&threats, &evaluation, to_move, cell);
                    assert_eq!(tables.cell_score(&threats, &evaluation, to_move, cell), weights.score(&features));
                }
            }
        }
    }
}
