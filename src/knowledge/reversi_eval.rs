//! The trained Reversi evaluation: per game stage, a weight for every configuration of every
//! pattern ([`super::reversi_patterns`]) and for each numeric feature; the value of a position
//! is the sum of its features' weights, an estimate of the final disc difference for the side
//! to move.
//!
//! Weights are integers in 1/[`WEIGHT_UNIT`] of a disc, as the weights file stores them.

use std::sync::OnceLock;

use super::reversi_patterns::{
    FEATURE_SET, IMAGES, ImageGroup, NUMERIC_FEATURES, PATTERN_COUNT, PatternViews, REPRESENTATIVES, STAGES,
    image_groups, representative_indices, stage_of, table_size,
};
use super::weights_format::{self, WeightsError, WeightsFile, WeightsHeader};
use crate::games::reversi::legal_move_mask;

/// Weights and evaluations are in 1/64 of a disc.
pub const WEIGHT_UNIT: i32 = 64;

/// The largest evaluation magnitude: every disc.
pub const MAX_EVALUATION: i32 = 64 * WEIGHT_UNIT;

/// The game name in the weights file.
pub const GAME: &str = "reversi";

/// The shipped weights, made by `ponder train --game reversi` (see `weights/README.md`).
static EMBEDDED_WEIGHTS: &[u8] = include_bytes!("../../weights/reversi.weights");

/// Where each pattern's table starts in a stage's concatenated tables.
const TABLE_OFFSETS: [usize; PATTERN_COUNT + 1] = table_offsets();

const fn table_offsets() -> [usize; PATTERN_COUNT + 1] {
    let mut offsets = [0; PATTERN_COUNT + 1];
    let mut pattern = 0;
    while pattern < PATTERN_COUNT {
        offsets[pattern + 1] = offsets[pattern] + table_size(pattern);
        pattern += 1;
    }
    offsets
}

/// Pattern weights of one stage, all tables concatenated.
pub const PATTERN_WEIGHTS_PER_STAGE: usize = TABLE_OFFSETS[PATTERN_COUNT];

/// One stage's weights.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageWeights {
    /// Every pattern's table, concatenated in [`super::reversi_patterns::BASE_PATTERNS`] order.
    pub patterns: Vec<i16>,
    /// The numeric features' weights, in [`NUMERIC_FEATURES`] order.
    pub numeric: [i16; NUMERIC_FEATURES],
}

impl StageWeights {
    fn zero() -> StageWeights {
        StageWeights { patterns: vec![0; PATTERN_WEIGHTS_PER_STAGE], numeric: [0; NUMERIC_FEATURES] }
    }
}

/// Where instance `instance`'s configuration `index` sits in a stage's pattern weights.
pub fn weight_slot(instance: usize, index: u32) -> usize {
    TABLE_OFFSETS[instance / IMAGES] + index as usize
}

/// A stage's folded tables: for each pattern, at a configuration index of an image group's
/// representative, the sum of the weights its members read. The groups of one pattern are
/// images of each other, so their members move the digits alike and one table serves them all
/// (a test checks this). Sums beyond the range of an `i16` saturate: no trained file comes near
/// (the largest folded sum of the shipped 30,000-game weights is 1,566, about 24 discs), and half
/// the memory of `i32` tables keeps more of them in the cache.
fn folded_tables(weights: &StageWeights) -> Vec<i16> {
    let mut folded = vec![0i16; PATTERN_WEIGHTS_PER_STAGE];
    for pattern in 0..PATTERN_COUNT {
        let group = image_groups().iter().find(|group| group.pattern == pattern).expect("every pattern has images");
        let table = &weights.patterns[TABLE_OFFSETS[pattern]..TABLE_OFFSETS[pattern + 1]];
        let slots = &mut folded[TABLE_OFFSETS[pattern]..TABLE_OFFSETS[pattern + 1]];
        for_each_member_index(group, slots.len(), |index, member_indices| {
            let sum: i32 = member_indices.iter().map(|&member_index| i32::from(table[member_index as usize])).sum();
            slots[index] = sum.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
        });
    }
    folded
}

/// Calls `visit(index, member_indices)` for every representative index below `size` in order,
/// with each member's index of that configuration ([`ImageGroup::member_index`]).
///
/// Why not `member_index` for each: the load folds 2.5 million entries per image, and digit by
/// digit arithmetic made a Reversi process's start take 0.18-0.23 s here (0.08 s counting up,
/// of which folding is still about half, perf). Counting up in base 3
/// changes one digit at a time (plus the carries), so each member's index moves by that
/// digit's power at its own position.
fn for_each_member_index(group: &ImageGroup, size: usize, mut visit: impl FnMut(usize, &[u32])) {
    let powers: Vec<Vec<u32>> = group
        .digit_moves
        .iter()
        .map(|moves| moves.iter().map(|&position| 3u32.pow(position as u32)).collect())
        .collect();
    let mut digits = vec![0u8; group.digit_moves[0].len()];
    let mut member_indices = vec![0u32; group.members.len()];
    for index in 0..size {
        visit(index, &member_indices);
        for (position, digit) in digits.iter_mut().enumerate() {
            if *digit < 2 {
                *digit += 1;
                for (member_index, member_powers) in member_indices.iter_mut().zip(&powers) {
                    *member_index += member_powers[position];
                }
                break;
            }
            *digit = 0;
            for (member_index, member_powers) in member_indices.iter_mut().zip(&powers) {
                *member_index -= 2 * member_powers[position];
            }
        }
    }
}

/// A complete evaluation: weights for every stage.
///
/// The value of a position sums one weight per pattern instance (88 of them). The images of a
/// pattern that read the same squares in another order (an edge from either end) are summed
/// once at load into a folded table read at one of them: the same sum from 46 lookups, which
/// is why the weights are set through [`Evaluator::set_stage`] only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evaluator {
    stages: Vec<StageWeights>,
    /// Per stage, every pattern's folded table, concatenated as the stage's tables are.
    folded: Vec<Vec<i16>>,
}

impl Evaluator {
    /// All weights zero: every position evaluates to 0.
    pub fn zero() -> Evaluator {
        let folded = vec![vec![0; PATTERN_WEIGHTS_PER_STAGE]; STAGES];
        Evaluator { stages: (0..STAGES).map(|_| StageWeights::zero()).collect(), folded }
    }

    /// The weights of every stage, as the weights file holds them.
    pub fn stages(&self) -> &[StageWeights] {
        &self.stages
    }

    /// Replaces the weights of stage `stage`.
    pub fn set_stage(&mut self, stage: usize, weights: StageWeights) {
        self.folded[stage] = folded_tables(&weights);
        self.stages[stage] = weights;
    }

    /// The estimated final disc difference for the side to move (discs `player`) against
    /// `opponent`, in 1/[`WEIGHT_UNIT`] discs, within ±[`MAX_EVALUATION`].
    pub fn evaluate(&self, player: u64, opponent: u64) -> i32 {
        let indices = representative_indices(player, opponent);
        self.value(&indices.map(|index| index as u16), player, opponent, legal_move_mask(player, opponent))
    }

    /// The same as [`Evaluator::evaluate`] from the position's [`PatternViews`] kept up to date
    /// by the search, and the side to move's legal moves, which the search has at hand.
    #[inline]
    pub fn evaluate_views(&self, views: &PatternViews, player: u64, opponent: u64, player_moves: u64) -> i32 {
        self.value(&views.player[..REPRESENTATIVES.len()], player, opponent, player_moves)
    }

    fn value(&self, indices: &[u16], player: u64, opponent: u64, player_moves: u64) -> i32 {
        let empties = (!(player | opponent)).count_ones();
        let stage = stage_of(empties);
        let folded = &self.folded[stage];
        let mut sum = 0i32;
        for (&(pattern, _), &index) in REPRESENTATIVES.iter().zip(indices) {
            sum += i32::from(folded[TABLE_OFFSETS[pattern] + usize::from(index)]);
        }
        // The numeric features in NUMERIC_FEATURES order: constant, both sides' mobility, parity.
        let [constant, own_mobility, their_mobility, parity] = self.stages[stage].numeric.map(i32::from);
        sum += constant
            + own_mobility * player_moves.count_ones() as i32
            + their_mobility * legal_move_mask(opponent, player).count_ones() as i32
            + parity * (empties & 1) as i32;
        sum.clamp(-MAX_EVALUATION, MAX_EVALUATION)
    }

    /// The table sizes of the weights file, in file order: per stage, each pattern's table,
    /// then the numeric weights.
    pub fn file_table_sizes() -> Vec<usize> {
        (0..STAGES).flat_map(|_| (0..PATTERN_COUNT).map(table_size).chain(std::iter::once(NUMERIC_FEATURES))).collect()
    }

    /// The weights file holding this evaluation.
    pub fn to_file(&self, data_hash: u64, description: &str) -> WeightsFile {
        let mut tables = Vec::new();
        for stage in &self.stages {
            for pattern in 0..PATTERN_COUNT {
                tables.push(stage.patterns[TABLE_OFFSETS[pattern]..TABLE_OFFSETS[pattern + 1]].to_vec());
            }
            tables.push(stage.numeric.to_vec());
        }
        WeightsFile {
            header: WeightsHeader {
                game: GAME.to_string(),
                feature_set: FEATURE_SET.to_string(),
                data_hash,
                description: description.to_string(),
            },
            tables,
        }
    }

    /// Reads an evaluation from a weights file's bytes.
    ///
    /// # Errors
    /// A [`WeightsError`] when the file is damaged or made for another game or feature set.
    pub fn from_bytes(bytes: &[u8]) -> Result<(Evaluator, WeightsHeader), WeightsError> {
        let file = weights_format::decode(bytes, GAME, FEATURE_SET, &Self::file_table_sizes())?;
        let mut tables = file.tables.into_iter();
        let mut stages = Vec::with_capacity(STAGES);
        for _ in 0..STAGES {
            let mut patterns = Vec::with_capacity(PATTERN_WEIGHTS_PER_STAGE);
            for _ in 0..PATTERN_COUNT {
                patterns.extend(tables.next().expect("decode checked the table count"));
            }
            let numeric = tables.next().expect("decode checked the table count");
            let numeric: [i16; NUMERIC_FEATURES] = numeric.try_into().expect("decode checked the table sizes");
            stages.push(StageWeights { patterns, numeric });
        }
        let mut evaluator = Evaluator::zero();
        for (stage, weights) in stages.into_iter().enumerate() {
            evaluator.set_stage(stage, weights);
        }
        Ok((evaluator, file.header))
    }
}

/// The shipped evaluation, read once from the weights embedded in the binary.
///
/// # Errors
/// The embedded file's [`WeightsError`] (a build with a damaged or outdated weights file).
pub fn embedded() -> Result<&'static Evaluator, &'static WeightsError> {
    static EMBEDDED: OnceLock<Result<Evaluator, WeightsError>> = OnceLock::new();
    EMBEDDED.get_or_init(|| Evaluator::from_bytes(EMBEDDED_WEIGHTS).map(|(evaluator, _)| evaluator)).as_ref()
}

/// The header of the shipped weights, for reports.
pub fn embedded_header() -> Result<WeightsHeader, WeightsError> {
    Evaluator::from_bytes(EMBEDDED_WEIGHTS).map(|(_, header)| header)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::reversi::{Reversi, ReversiConfig};
    use crate::games::testing::random_running_position;
    use crate::games::{Color, Game};
    use crate::knowledge::reversi_patterns::{instance_indices, numeric_features, symmetric_bitboard};
    use rand::{Rng, SeedableRng};

    /// An evaluation with random weights everywhere: symmetry must hold whatever they are.
    fn random_evaluator(seed: u64) -> Evaluator {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
        let mut evaluator = Evaluator::zero();
        for stage in 0..STAGES {
            let mut weights = StageWeights::zero();
            weights.patterns.iter_mut().for_each(|weight| *weight = rng.random_range(-40..=40));
            weights.numeric.iter_mut().for_each(|weight| *weight = rng.random_range(-100..=100));
            evaluator.set_stage(stage, weights);
        }
        evaluator
    }

    /// The value as the sum of every instance's weight, read from the stored tables: what the
    /// folded tables must reproduce.
    fn unfolded_value(evaluator: &Evaluator, player: u64, opponent: u64) -> i32 {
        let stage = &evaluator.stages()[stage_of((!(player | opponent)).count_ones())];
        let indices = instance_indices(player, opponent);
        let mut sum: i32 = indices
            .iter()
            .enumerate()
            .map(|(instance, &index)| i32::from(stage.patterns[weight_slot(instance, index)]))
            .sum();
        for (weight, value) in stage.numeric.iter().zip(numeric_features(player, opponent)) {
            sum += i32::from(*weight) * value as i32;
        }
        sum.clamp(-MAX_EVALUATION, MAX_EVALUATION)
    }

    #[test]
    fn folded_tables_give_the_sum_over_every_instance() {
        // The groups of a pattern move digits alike, so one folded table serves them all.
        for group in image_groups() {
            let first = image_groups().iter().find(|other| other.pattern == group.pattern).unwrap();
            assert_eq!(group.digit_moves, first.digit_moves, "{group:?}");
        }
        let evaluator = random_evaluator(3);
        let mut rng = rand::rngs::SmallRng::seed_from_u64(4);
        let start = Reversi::new(&ReversiConfig);
        for plies in [0, 5, 15, 25, 35, 45, 55] {
            for _ in 0..20 {
                let position = random_running_position(&start, &mut rng, plies);
                let (player, opponent) = (position.player_discs(), position.opponent_discs());
                assert_eq!(evaluator.evaluate(player, opponent), unfolded_value(&evaluator, player, opponent));
            }
        }
        // And for the shipped weights.
        let shipped = embedded().unwrap();
        for _ in 0..50 {
            let plies = rng.random_range(0..58);
            let position = random_running_position(&start, &mut rng, plies);
            let (player, opponent) = (position.player_discs(), position.opponent_discs());
            assert_eq!(shipped.evaluate(player, opponent), unfolded_value(shipped, player, opponent));
        }
    }

    #[test]
    fn views_kept_move_by_move_read_and_evaluate_as_the_position_read_anew() {
        use crate::games::reversi::flipped_discs;
        let evaluator = random_evaluator(9);
        let mut rng = rand::rngs::SmallRng::seed_from_u64(10);
        let start = Reversi::new(&ReversiConfig);
        let (mut moves_checked, mut passes) = (0, 0);
        for _ in 0..40 {
            let (mut player, mut opponent) = (start.player_discs(), start.opponent_discs());
            let mut views = PatternViews::new(player, opponent);
            loop {
                let moves = legal_move_mask(player, opponent);
                if moves == 0 {
                    if legal_move_mask(opponent, player) == 0 {
                        break;
                    }
                    views = views.after_pass();
                    (player, opponent) = (opponent, player);
                    passes += 1;
                } else {
                    let square = (0..64)
                        .filter(|square| moves >> square & 1 != 0)
                        .nth(rng.random_range(0..moves.count_ones() as usize))
                        .unwrap();
                    let flipped = flipped_discs(player, opponent, square);
                    views = views.after_move(square, flipped);
                    (player, opponent) = (opponent & !flipped, player | flipped | 1u64 << square);
                    moves_checked += 1;
                }
                assert_eq!(views, PatternViews::new(player, opponent));
                let value = evaluator.evaluate_views(&views, player, opponent, legal_move_mask(player, opponent));
                assert_eq!(value, evaluator.evaluate(player, opponent));
            }
        }
        assert!(moves_checked > 2000 && passes > 0, "{moves_checked} moves, {passes} passes");
    }

    #[test]
    fn counting_up_gives_every_members_index() {
        let mut checked = 0;
        for group in image_groups() {
            let size = table_size(group.pattern);
            for_each_member_index(group, size, |index, member_indices| {
                for (member, &member_index) in member_indices.iter().enumerate() {
                    assert_eq!(member_index, group.member_index(member, index as u32), "{group:?} at {index}");
                }
                checked += 1;
            });
        }
        let every_index: usize = image_groups().iter().map(|group| table_size(group.pattern)).sum();
        assert_eq!(checked, every_index);
    }

    #[test]
    fn a_position_and_its_symmetric_images_evaluate_alike() {
        let evaluator = random_evaluator(1);
        let mut rng = rand::rngs::SmallRng::seed_from_u64(2);
        let start = Reversi::new(&ReversiConfig);
        let mut checked = 0;
        for plies in [2, 10, 20, 30, 40, 50, 56] {
            for _ in 0..10 {
                let position = random_running_position(&start, &mut rng, plies);
                let (player, opponent) = (position.player_discs(), position.opponent_discs());
                let value = evaluator.evaluate(player, opponent);
                for symmetry in 1..8 {
                    let image = evaluator
                        .evaluate(symmetric_bitboard(player, symmetry), symmetric_bitboard(opponent, symmetry));
                    assert_eq!(image, value, "symmetry {symmetry} of\n{}", position.board_text());
                }
                checked += 1;
            }
        }
        assert_eq!(checked, 70);
        // Not a trivially constant evaluation: the values differ between positions.
        let a = evaluator.evaluate(start.player_discs(), start.opponent_discs());
        let b = evaluator.evaluate(start.opponent_discs(), start.player_discs());
        let other = Reversi::from_bitboards(0xff, 0xff00, Color::Black).unwrap();
        assert!(a != b || a != evaluator.evaluate(other.player_discs(), other.opponent_discs()));
    }

    #[test]
    fn an_evaluator_round_trips_through_its_weights_file() {
        let evaluator = random_evaluator(7);
        let bytes = weights_format::encode(&evaluator.to_file(42, "test data"));
        let (read, header) = Evaluator::from_bytes(&bytes).unwrap();
        assert_eq!(read, evaluator);
        assert_eq!(header.data_hash, 42);
        assert_eq!(header.description, "test data");
        assert_eq!(header.game, "reversi");
        assert_eq!(header.feature_set, FEATURE_SET);
    }

    #[test]
    fn the_embedded_weights_load() {
        let evaluator = embedded().expect("the shipped weights file loads");
        assert_eq!(evaluator.stages().len(), STAGES);
        assert!(embedded_header().unwrap().description.contains("ponder train"));
    }
}
