//! Learned Gomoku move priors from line patterns, in the manner of Rapfi's classical evaluator
//! and most Gomocup engines: every empty cell gets, for each colour and each of the four line
//! directions, the class of what a stone of that colour there would make in that line (a five,
//! an open four, a four, an open three, ... down to a dead line), read from the nine cells of the
//! line centred on it. The four classes of a colour, taken as a multiset (the directions are
//! alike), are one feature value; so are the opponent's four (where the opponent would build,
//! the side to move blocks), and the stones around the cell. Each feature value has a strength
//! `gamma` and a move's strength is the product (Coulom's generalised Bradley-Terry model, as for
//! Hex in [`super::hex_patterns`]), fitted by `ponder train --game gomoku`
//! ([`crate::train::gomoku_fit`]) to the moves the search chose in self-play.
//!
//! The classes are for freestyle five in a row (an overline wins). Exact five and the other
//! m,n,k games keep the hand-set priors of [`crate::games::mnk::gomoku_knowledge`].
//!
//! The weights file ([`super::weights_format`]) holds three tables in this order: the side to
//! move's combinations ([`COMBINATIONS`]), the opponent's combinations, and the neighbourhood
//! classes ([`NEIGHBOURHOOD_CLASSES`]). Each entry is `ln(gamma)` in 1/[`LOG_GAMMA_UNIT`].

use std::sync::{LazyLock, OnceLock};

use super::prior_mapping::{self, CandidateStrengths};
use super::weights_format::{self, WeightsError, WeightsFile};
use crate::games::mnk::gomoku_knowledge;
use crate::games::mnk::{Cell, Mnk};
use crate::games::{Color, Game, Prior};

/// The game name in the weights file.
pub const GAME: &str = "gomoku";

/// The feature set the tables belong to; a change of the features changes the name.
pub const FEATURE_SET: &str = "gomoku-line9-classes9-combo4-near20 v1";

/// Line classes, weakest first: what a stone of one colour on a cell makes in one line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LineClass {
    /// No five of this colour can ever pass through the cell along the line.
    Dead,
    /// A five is still possible, but needs three stones or more besides this one.
    One,
    /// One more stone can make a (closed) three, never an open three.
    ClosedTwo,
    /// One more stone can make an open three.
    OpenTwo,
    /// One more stone can make a four, never an open four.
    ClosedThree,
    /// One more stone can make an open four.
    OpenThree,
    /// Exactly one cell of the line then completes a five.
    Four,
    /// Two or more cells of the line then complete a five.
    OpenFour,
    /// A five (or longer) through the cell.
    Five,
}

/// Line classes in all.
pub const LINE_CLASSES: usize = 9;

const ALL_CLASSES: [LineClass; LINE_CLASSES] = [
    LineClass::Dead,
    LineClass::One,
    LineClass::ClosedTwo,
    LineClass::OpenTwo,
    LineClass::ClosedThree,
    LineClass::OpenThree,
    LineClass::Four,
    LineClass::OpenFour,
    LineClass::Five,
];

/// Multisets of four line classes: C(9 + 3, 4).
pub const COMBINATIONS: usize = 495;

/// Neighbourhood classes: stones in the 3x3 square around the cell (0 to 4 or more) times
/// stones in the ring at distance 2 (0 to 3 or more).
pub const NEIGHBOURHOOD_CLASSES: usize = 20;

/// The tables' lengths, in file order.
pub const TABLE_SIZES: [usize; 3] = [COMBINATIONS, COMBINATIONS, NEIGHBOURHOOD_CLASSES];

/// Stored values are `ln(gamma)` in 1/1024.
pub const LOG_GAMMA_UNIT: f64 = 1024.0;

/// Cells of a line window on each side of the centre: a five through the centre lies within
/// four cells of it.
const REACH: usize = 4;
const WINDOW: usize = 2 * REACH + 1;
/// Window keys: empty, own or blocked for each of the eight cells around the centre.
const WINDOW_KEYS: usize = 6561;

const EMPTY: u8 = 0;
const OWN: u8 = 1;
const BLOCKED: u8 = 2;

/// Base-3 digit weights of the eight non-centre window cells, nearest the low end first.
const DIGIT_WEIGHTS: [u16; WINDOW] = [1, 3, 9, 27, 0, 81, 243, 729, 2187];

/// The line class of every window key, built once by brute force over the windows.
static CLASS_TABLE: LazyLock<Vec<LineClass>> = LazyLock::new(|| {
    let mut memo = vec![None; WINDOW_KEYS];
    (0..WINDOW_KEYS).map(|key| classify(&window_of_key(key), &mut memo)).collect()
});

/// The combination index of every ordered four classes, `((a * 9 + b) * 9 + c) * 9 + d`.
static COMBINATION_TABLE: LazyLock<Vec<u16>> = LazyLock::new(build_combination_table);

fn window_of_key(mut key: usize) -> [u8; WINDOW] {
    let mut window = [OWN; WINDOW];
    for (index, cell) in window.iter_mut().enumerate() {
        if index != REACH {
            *cell = (key % 3) as u8;
            key /= 3;
        }
    }
    window
}

fn key_of_window(window: &[u8; WINDOW]) -> usize {
    window.iter().zip(DIGIT_WEIGHTS).map(|(&state, weight)| usize::from(state) * usize::from(weight)).sum()
}

/// Whether the own stones through the centre make five or more in a row.
fn five_through_centre(window: &[u8; WINDOW]) -> bool {
    let left = window[..REACH].iter().rev().take_while(|&&state| state == OWN).count();
    let right = window[REACH + 1..].iter().take_while(|&&state| state == OWN).count();
    left + 1 + right >= 5
}

/// The class of a window whose centre holds an own stone: a five; else by how many empty cells
/// complete a five (four, open four); else one step weaker than the best class one more own
/// stone reaches (an open four's precursor is an open three, and so on down to a lone stone).
fn classify(window: &[u8; WINDOW], memo: &mut [Option<LineClass>]) -> LineClass {
    let key = key_of_window(window);
    if let Some(class) = memo[key] {
        return class;
    }
    let class = if five_through_centre(window) {
        LineClass::Five
    } else {
        let mut completions = 0;
        let mut best_after_one_more = LineClass::Dead;
        for index in (0..WINDOW).filter(|&index| window[index] == EMPTY) {
            let mut next = *window;
            next[index] = OWN;
            if five_through_centre(&next) {
                completions += 1;
            } else {
                best_after_one_more = best_after_one_more.max(classify(&next, memo));
            }
        }
        match completions {
            0 => weaker(best_after_one_more),
            1 => LineClass::Four,
            _ => LineClass::OpenFour,
        }
    };
    memo[key] = Some(class);
    class
}

/// What a line one own stone short of `class` is.
fn weaker(class: LineClass) -> LineClass {
    match class {
        LineClass::Five | LineClass::OpenFour => LineClass::OpenThree,
        LineClass::Four => LineClass::ClosedThree,
        LineClass::OpenThree => LineClass::OpenTwo,
        LineClass::ClosedThree => LineClass::ClosedTwo,
        LineClass::OpenTwo | LineClass::ClosedTwo | LineClass::One => LineClass::One,
        LineClass::Dead => LineClass::Dead,
    }
}

fn build_combination_table() -> Vec<u16> {
    // Multisets are numbered in the order of their sorted (descending) class tuples.
    let mut sorted_tuples = Vec::new();
    for a in 0..LINE_CLASSES {
        for b in 0..=a {
            for c in 0..=b {
                for d in 0..=c {
                    sorted_tuples.push([a, b, c, d]);
                }
            }
        }
    }
    debug_assert_eq!(sorted_tuples.len(), COMBINATIONS);
    (0..LINE_CLASSES.pow(4))
        .map(|ordered| {
            let mut tuple = [ordered / 729, ordered / 81 % 9, ordered / 9 % 9, ordered % 9];
            tuple.sort_unstable_by(|x, y| y.cmp(x));
            sorted_tuples.iter().position(|&sorted| sorted == tuple).unwrap() as u16
        })
        .collect()
}

/// The line class of a `color` stone on `cell` in line direction `direction` (horizontal,
/// vertical, up-right, down-right), whatever is on `cell` now.
pub fn line_class(position: &Mnk, color: Color, cell: Cell, direction: usize) -> LineClass {
    let (dx, dy) = crate::games::mnk::gomoku_threats::LINE_DIRECTIONS[direction];
    let (width, height) = (position.width() as i32, position.height() as i32);
    let (x, y) = (i32::from(cell.0) % width, i32::from(cell.0) / width);
    let mut key = 0usize;
    for (index, weight) in DIGIT_WEIGHTS.iter().enumerate() {
        if index == REACH {
            continue;
        }
        let step = index as i32 - REACH as i32;
        let (cx, cy) = (x + step * dx, y + step * dy);
        let state = if cx < 0 || cy < 0 || cx >= width || cy >= height {
            BLOCKED
        } else {
            match position.stone_at(position.cell(cx as usize, cy as usize)) {
                None => EMPTY,
                Some(stone) if stone == color => OWN,
                Some(_) => BLOCKED,
            }
        };
        key += usize::from(state) * usize::from(*weight);
    }
    CLASS_TABLE[key]
}

/// The combination index of four line classes, in any order.
pub fn combination(classes: [LineClass; 4]) -> u16 {
    let ordered = classes.iter().fold(0, |index, &class| index * LINE_CLASSES + class as usize);
    COMBINATION_TABLE[ordered]
}

/// The four line classes of a combination index, strongest first.
pub fn classes_of_combination(index: u16) -> [LineClass; 4] {
    let ordered = COMBINATION_TABLE.iter().position(|&c| c == index).expect("a combination index");
    let mut classes = [ordered / 729, ordered / 81 % 9, ordered / 9 % 9, ordered % 9].map(|c| ALL_CLASSES[c]);
    classes.sort_unstable_by(|x, y| y.cmp(x));
    classes
}

/// The features of one candidate cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellFeatures {
    /// The side to move's combination ([`combination`]).
    pub own: u16,
    /// The opponent's combination.
    pub opponent: u16,
    /// Stones around ([`NEIGHBOURHOOD_CLASSES`]).
    pub neighbourhood: u8,
}

/// The combination of a `color` stone on `cell`.
fn combination_at(position: &Mnk, color: Color, cell: Cell) -> u16 {
    combination(std::array::from_fn(|direction| line_class(position, color, cell, direction)))
}

/// Stones in the 3x3 square around `cell` and in the ring at distance 2.
fn neighbourhood_class(position: &Mnk, cell: Cell) -> u8 {
    let (width, height) = (position.width() as i32, position.height() as i32);
    let (x, y) = (i32::from(cell.0) % width, i32::from(cell.0) / width);
    let (mut near, mut ring) = (0u8, 0u8);
    for cy in (y - 2).max(0)..=(y + 2).min(height - 1) {
        for cx in (x - 2).max(0)..=(x + 2).min(width - 1) {
            if position.stone_at(position.cell(cx as usize, cy as usize)).is_some() {
                if (cx - x).abs() <= 1 && (cy - y).abs() <= 1 {
                    near += 1;
                } else {
                    ring += 1;
                }
            }
        }
    }
    near.min(4) * 4 + ring.min(3)
}

/// The features of a move to `cell` for the side to move.
pub fn cell_features(position: &Mnk, cell: Cell) -> CellFeatures {
    let side = position.to_move();
    CellFeatures {
        own: combination_at(position, side, cell),
        opponent: combination_at(position, side.opponent(), cell),
        neighbourhood: neighbourhood_class(position, cell),
    }
}

/// Whether the learned priors apply: freestyle five in a row, running.
pub fn applies(position: &Mnk) -> bool {
    gomoku_knowledge::applies(position) && !position.exact_k() && position.outcome().is_none()
}

/// Whether `cell` is a candidate the priors rank: empty and within two cells (king steps) of a
/// stone; on an empty board, within two of the centre.
pub fn is_candidate(position: &Mnk, cell: Cell, board_is_empty: bool) -> bool {
    let (width, height) = (position.width() as i32, position.height() as i32);
    let (x, y) = (i32::from(cell.0) % width, i32::from(cell.0) / width);
    if position.stone_at(cell).is_some() {
        return false;
    }
    if board_is_empty {
        return (x - width / 2).abs() <= 2 && (y - height / 2).abs() <= 2;
    }
    ((y - 2).max(0)..=(y + 2).min(height - 1)).any(|cy| {
        ((x - 2).max(0)..=(x + 2).min(width - 1))
            .any(|cx| position.stone_at(position.cell(cx as usize, cy as usize)).is_some())
    })
}

/// The shipped weights, made by `ponder train --game gomoku` (see `weights/README.md`).
static EMBEDDED_WEIGHTS: &[u8] = include_bytes!("../../weights/gomoku.patterns");

/// The prior of a cell far from every stone (as the hand-set priors give it).
const FAR_PRIOR: Prior = Prior::new(20, 0.1);

/// The fitted strengths, as `ln(gamma)` per table.
#[derive(Clone, Debug, PartialEq)]
pub struct PatternWeights {
    pub own: Vec<f32>,
    pub opponent: Vec<f32>,
    pub neighbourhood: Vec<f32>,
}

impl PatternWeights {
    /// The weights of a decoded file.
    pub fn from_file(file: &WeightsFile) -> PatternWeights {
        let [own, opponent, neighbourhood]: [Vec<f32>; 3] = prior_mapping::log_gamma_tables(file, LOG_GAMMA_UNIT)
            .try_into()
            .expect("the format check gives every table");
        PatternWeights { own, opponent, neighbourhood }
    }

    /// Reads a weights file's bytes.
    ///
    /// # Errors
    /// The [`WeightsError`] of a file that is not Gomoku pattern weights of this feature set.
    pub fn decode(bytes: &[u8]) -> Result<PatternWeights, WeightsError> {
        weights_format::decode(bytes, GAME, FEATURE_SET, &TABLE_SIZES).map(|file| PatternWeights::from_file(&file))
    }

    /// `ln(gamma)` of a candidate: the sum over its features.
    pub fn log_gamma(&self, features: &CellFeatures) -> f32 {
        self.own[usize::from(features.own)]
            + self.opponent[usize::from(features.opponent)]
            + self.neighbourhood[usize::from(features.neighbourhood)]
    }
}

/// The embedded weights, decoded once.
///
/// # Errors
/// The [`WeightsError`] of a damaged embedded file (a build problem).
pub fn embedded() -> Result<&'static PatternWeights, WeightsError> {
    static WEIGHTS: OnceLock<Result<PatternWeights, WeightsError>> = OnceLock::new();
    WEIGHTS.get_or_init(|| PatternWeights::decode(EMBEDDED_WEIGHTS)).as_ref().map_err(Clone::clone)
}

/// Priors for `moves` from the embedded weights (the search's prior hook for Gomoku). Falls back
/// to the hand-set priors where the learned ones do not apply or the weights cannot be read.
pub fn move_priors(position: &Mnk, moves: &[Cell], priors: &mut [Prior]) {
    match embedded() {
        Ok(weights) => priors_with(weights, position, moves, priors),
        Err(_) => position.move_priors(moves, priors),
    }
}

/// [`move_priors`] with the given weights. A five to complete or to block is a forced move the
/// rules decide, so there the hand-set priors stay (a win, or every other move losing at once);
/// otherwise every candidate ([`is_candidate`]) gets a learned prior ([`super::prior_mapping`])
/// and the cells far from every stone a poor prior.
pub fn priors_with(weights: &PatternWeights, position: &Mnk, moves: &[Cell], priors: &mut [Prior]) {
    if !applies(position) || has_five_point(position) {
        position.move_priors(moves, priors);
        return;
    }
    let board_is_empty =
        (0..position.width() * position.height()).all(|index| position.stone_at(Cell(index as u16)).is_none());
    let log_gammas: Vec<Option<f32>> = moves
        .iter()
        .map(|&cell| {
            is_candidate(position, cell, board_is_empty).then(|| weights.log_gamma(&cell_features(position, cell)))
        })
        .collect();
    let strengths = CandidateStrengths::of(log_gammas.iter().flatten().copied());
    for (prior, log_gamma) in priors.iter_mut().zip(&log_gammas) {
        *prior = match (log_gamma, &strengths) {
            (Some(log_gamma), Some(strengths)) => strengths.prior(*log_gamma),
            _ => FAR_PRIOR,
        };
    }
}

/// Whether either side has a cell that completes a five (then the rules force the move).
pub fn has_five_point(position: &Mnk) -> bool {
    [Color::Black, Color::White].into_iter().any(|color| !gomoku_knowledge::five_points(position, color).is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::GameConfig;
    use crate::games::mnk::MnkConfig;

    /// The class of the centre of a line written as text: `X` own, `O` blocked, `.` empty,
    /// `*` the centre (an own stone to be), nine characters.
    fn class_of(text: &str) -> LineClass {
        let window: [u8; WINDOW] = std::array::from_fn(|index| match text.as_bytes()[index] {
            b'X' | b'*' => OWN,
            b'O' => BLOCKED,
            _ => EMPTY,
        });
        assert_eq!(text.as_bytes()[REACH], b'*');
        CLASS_TABLE[key_of_window(&window)]
    }

    #[test]
    fn known_shapes_get_their_class() {
        assert_eq!(class_of("..XX*XX.."), LineClass::Five);
        assert_eq!(class_of("XXXX*XXXX"), LineClass::Five);
        assert_eq!(class_of("...X*XX.."), LineClass::OpenFour);
        assert_eq!(class_of("X.XX*...."), LineClass::Four);
        assert_eq!(class_of("..OX*XX.."), LineClass::Four);
        // A double four in one line: either gap completes a five.
        assert_eq!(class_of("X.XX*.XX."), LineClass::OpenFour);
        assert_eq!(class_of("....*XX.."), LineClass::OpenThree);
        assert_eq!(class_of("...X*.X.."), LineClass::OpenThree);
        assert_eq!(class_of("...O*XX.."), LineClass::ClosedThree);
        assert_eq!(class_of("....*X..."), LineClass::OpenTwo);
        assert_eq!(class_of("...O*X..."), LineClass::ClosedTwo);
        assert_eq!(class_of("....*...."), LineClass::One);
        assert_eq!(class_of("..O.*..O."), LineClass::Dead);
        assert_eq!(class_of("O...*...O"), LineClass::One);
    }

    #[test]
    fn classes_do_not_depend_on_the_line_direction() {
        // Reading a window backwards is the same line seen from the other side.
        for key in 0..WINDOW_KEYS {
            let mut reversed = window_of_key(key);
            reversed.reverse();
            assert_eq!(CLASS_TABLE[key], CLASS_TABLE[key_of_window(&reversed)], "{:?}", window_of_key(key));
        }
    }

    #[test]
    fn combinations_ignore_the_order_of_directions() {
        let mut seen = std::collections::HashSet::new();
        for ordered in 0..LINE_CLASSES.pow(4) {
            let classes = [ordered / 729, ordered / 81 % 9, ordered / 9 % 9, ordered % 9].map(|c| ALL_CLASSES[c]);
            let index = combination(classes);
            let mut reversed = classes;
            reversed.reverse();
            assert_eq!(index, combination(reversed));
            let mut sorted = classes;
            sorted.sort_unstable_by(|x, y| y.cmp(x));
            assert_eq!(classes_of_combination(index), sorted);
            seen.insert(index);
        }
        assert_eq!(seen.len(), COMBINATIONS);
    }

    fn gomoku(moves: &[&str]) -> Mnk {
        let mut position = Mnk::new(&MnkConfig::gomoku());
        for text in moves {
            position.play(position.parse_move(text).unwrap()).unwrap();
        }
        position
    }

    #[test]
    fn features_are_read_from_the_board_in_every_direction() {
        // Black H8 J9 K10 (a diagonal three), White elsewhere; Black to move.
        let position = gomoku(&["H8", "A1", "J9", "A3", "K10", "A5"]);
        let g7 = position.parse_move("G7").unwrap();
        let l11 = position.parse_move("L11").unwrap();
        for cell in [g7, l11] {
            let own = classes_of_combination(cell_features(&position, cell).own);
            assert_eq!(own[0], LineClass::OpenFour, "{own:?}");
        }
        // White to move sees the same cells as Black's: its opponent's open four points.
        let mut white = position.clone();
        white.give_turn_to(Color::White).unwrap();
        assert_eq!(cell_features(&white, g7).opponent, cell_features(&position, g7).own);
        // The board edge blocks: a White stone on A6 has only B6 to E6 for a five along its row.
        let a6 = position.parse_move("A6").unwrap();
        assert_eq!(line_class(&position, Color::White, a6, 0), LineClass::One);
    }

    #[test]
    fn embedded_weights_load_and_prefer_the_open_four() {
        let weights = embedded().unwrap();
        assert_eq!(weights.own.len(), COMBINATIONS);
        let position = gomoku(&["H8", "A1", "J9", "A3", "K10", "A5"]);
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        let mut priors = vec![Prior::NONE; moves.len()];
        priors_with(weights, &position, &moves, &mut priors);
        let best = moves.iter().zip(&priors).max_by(|a, b| a.1.value.total_cmp(&b.1.value)).unwrap();
        assert!(["G7", "L11"].contains(&position.format_move(*best.0).as_str()), "{:?}", best);
    }

    #[test]
    fn forced_positions_and_exact_five_keep_the_hand_set_priors() {
        let weights = embedded().unwrap();
        let mut config = MnkConfig::gomoku();
        config.set_param("exact_five", "1").unwrap();
        let mut exact = Mnk::new(&config);
        exact.play(exact.parse_move("H8").unwrap()).unwrap();
        let four = gomoku(&["H8", "A1", "J8", "A3", "K8", "A5", "L8"]);
        for position in [exact, four] {
            let mut moves = Vec::new();
            position.legal_moves(&mut moves);
            let (mut learned, mut hand_set) = (vec![Prior::NONE; moves.len()], vec![Prior::NONE; moves.len()]);
            priors_with(weights, &position, &moves, &mut learned);
            position.move_priors(&moves, &mut hand_set);
            assert_eq!(learned, hand_set);
        }
    }

    #[test]
    fn the_search_with_learned_priors_is_deterministic_and_differs_from_the_hand_set_one() {
        use crate::search::{Limits, Search, SearchParams};
        use std::sync::atomic::AtomicBool;
        let position = gomoku(&["H8", "J9", "J8", "G8", "K7"]);
        let limits = Limits { max_visits: Some(3000), ..Limits::default() };
        let run = |learned: bool| {
            let params = SearchParams { threads: 1, pattern_priors: true, ..SearchParams::default() };
            let mut search = Search::<Mnk>::new(params);
            if learned {
                search.set_prior_hook(Some(move_priors));
            }
            let result = search.run(&position, limits, &AtomicBool::new(false), 11, None);
            result.moves.iter().map(|stats| (stats.mv, stats.visits)).collect::<Vec<_>>()
        };
        let learned = run(true);
        assert_eq!(learned, run(true));
        assert_ne!(learned, run(false));
    }
}
