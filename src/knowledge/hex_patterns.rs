//! Learned Hex move priors in the manner of MoHex: every candidate cell is a team of features
//! ([`crate::games::hex::knowledge::CellFeatures`]: its 12-cell pattern, its relation to the
//! opponent's last stone, its distances to the edges), each feature value has a strength
//! `gamma`, and a move's strength is the product of its features' (Coulom's generalised
//! Bradley-Terry model, "Computing Elo ratings of move patterns", 2007). The gammas are fitted
//! by `ponder train --game hex` ([`crate::train::hex_fit`]) to the moves of self-play games.
//!
//! The weights file ([`super::weights_format`]) holds three tables in this order: the pattern
//! table ([`PATTERN_CODES`] entries, indexed by the smaller of a pattern's code and its
//! 180-degree rotation's), the last-move table ([`LAST_MOVE_CLASSES`]) and the edge table
//! ([`EDGE_CLASSES`]). Each entry is `ln(gamma)` in 1/[`LOG_GAMMA_UNIT`]; 0 (gamma 1) for
//! feature values never seen in training.

use std::sync::OnceLock;

use super::prior_mapping::{self, CandidateStrengths};
use super::weights_format::{self, WeightsError, WeightsFile};
use crate::games::Outcome;
use crate::games::Prior;
use crate::games::hex::knowledge::{
    CellFeatures, DEAD_PRIOR, EDGE_CLASSES, LAST_MOVE_CLASSES, PATTERN_CODES, PlayoutWeights, cell_features,
    pattern_is_dead, rotated_pattern,
};
use crate::games::hex::{Hex, HexMove};

/// The game name in the weights file.
pub const GAME: &str = "hex";

/// The feature set the tables belong to; a change of the features changes the name.
pub const FEATURE_SET: &str = "hex-12cell-last5-edge36 v1";

/// The tables' lengths, in file order.
pub const TABLE_SIZES: [usize; 3] = [PATTERN_CODES, LAST_MOVE_CLASSES, EDGE_CLASSES];

/// Stored values are `ln(gamma)` in 1/1024.
pub const LOG_GAMMA_UNIT: f64 = 1024.0;

/// The shipped weights, made by `ponder train --game hex` (see `weights/README.md`).
static EMBEDDED_WEIGHTS: &[u8] = include_bytes!("../../weights/hex.patterns");

/// The fitted strengths, as `ln(gamma)` per table.
#[derive(Clone, Debug, PartialEq)]
pub struct PatternWeights {
    pub pattern: Vec<f32>,
    pub last_move: Vec<f32>,
    pub edge: Vec<f32>,
}

impl PatternWeights {
    /// Every gamma 1: no preference.
    pub fn neutral() -> PatternWeights {
        PatternWeights {
            pattern: vec![0.0; PATTERN_CODES],
            last_move: vec![0.0; LAST_MOVE_CLASSES],
            edge: vec![0.0; EDGE_CLASSES],
        }
    }

    /// The weights of a decoded file.
    pub fn from_file(file: &WeightsFile) -> PatternWeights {
        let [pattern, last_move, edge]: [Vec<f32>; 3] = prior_mapping::log_gamma_tables(file, LOG_GAMMA_UNIT)
            .try_into()
            .expect("the format check gives every table");
        PatternWeights { pattern, last_move, edge }
    }

    /// Reads a weights file's bytes.
    ///
    /// # Errors
    /// The [`WeightsError`] of a file that is not Hex pattern weights of this feature set.
    pub fn decode(bytes: &[u8]) -> Result<PatternWeights, WeightsError> {
        weights_format::decode(bytes, GAME, FEATURE_SET, &TABLE_SIZES).map(|file| PatternWeights::from_file(&file))
    }

    /// `ln(gamma)` of a candidate: the sum over its features.
    pub fn log_gamma(&self, features: &CellFeatures) -> f32 {
        self.pattern[features.pattern as usize]
            + self.last_move[usize::from(features.last_move)]
            + self.edge[usize::from(features.edge)]
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

/// The weight of a dead cell in the pattern playout against a gamma of 1: a stone there never
/// matters, so the playout fills such cells last (MoHex gives its inferior cells 1e-4 to 1e-5
/// against gammas of about 0.1).
const DEAD_PLAYOUT_WEIGHT: f32 = 1e-4;

/// The playout weighs a cell by its gamma to this power: the square root flattens the learned
/// preferences (fitted to the moves a search chose, up to 37 times the median gamma), since a
/// playout needs balance more than strength. Against MoHex 2.0 at 2 s a move the full gammas
/// scored 0-8 (stopped), the square roots 16-44, no better than the plain playouts (see
/// `weights/README.md`).
const PLAYOUT_GAMMA_POWER: f32 = 0.5;

impl PatternWeights {
    /// The playout weights of these strengths: every pattern code's gamma (the code and its
    /// 180-degree rotation share one) and the edge classes' gammas, each to the power
    /// [`PLAYOUT_GAMMA_POWER`], dead patterns [`DEAD_PLAYOUT_WEIGHT`]; the last-move feature
    /// stays out (the bridge reply plays that part).
    pub fn playout_weights(&self) -> PlayoutWeights {
        let pattern = (0..PATTERN_CODES as u32)
            .map(|code| {
                if pattern_is_dead(code) {
                    DEAD_PLAYOUT_WEIGHT
                } else {
                    (PLAYOUT_GAMMA_POWER * self.pattern[code.min(rotated_pattern(code)) as usize]).exp()
                }
            })
            .collect();
        PlayoutWeights { pattern, edge: std::array::from_fn(|class| (PLAYOUT_GAMMA_POWER * self.edge[class]).exp()) }
    }
}

/// The playout weights of the embedded weights, made once.
///
/// # Errors
/// As [`embedded`].
pub fn embedded_playout_weights() -> Result<&'static PlayoutWeights, WeightsError> {
    static WEIGHTS: OnceLock<Result<PlayoutWeights, WeightsError>> = OnceLock::new();
    WEIGHTS.get_or_init(|| embedded().map(PatternWeights::playout_weights)).as_ref().map_err(Clone::clone)
}

/// The search's playout hook for Hex: the pattern playout with the embedded weights (the
/// plain playout if they cannot be read).
pub fn playout(position: &mut Hex, rng: &mut rand::rngs::SmallRng) -> Outcome {
    match embedded_playout_weights() {
        Ok(weights) => position.weighted_playout(rng, weights),
        Err(_) => crate::games::Game::playout(position, rng),
    }
}

thread_local! {
    /// Scratch space of [`move_priors`], reused: it runs at every expansion.
    static SCRATCH: std::cell::RefCell<(Vec<Option<CellFeatures>>, Vec<f32>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// Priors for `moves` from the embedded weights (the search's prior hook for Hex): dead cells
/// keep the hand-set poor prior, the swap move none; every other cell a learned prior
/// ([`super::prior_mapping`]). Falls back to the hand-set priors if the
/// embedded weights cannot be read.
pub fn move_priors(position: &Hex, moves: &[HexMove], priors: &mut [Prior]) {
    match embedded() {
        Ok(weights) => priors_with(weights, position, moves, priors),
        Err(_) => crate::games::Game::move_priors(position, moves, priors),
    }
}

/// [`move_priors`] with the given weights.
pub fn priors_with(weights: &PatternWeights, position: &Hex, moves: &[HexMove], priors: &mut [Prior]) {
    SCRATCH.with(|scratch| {
        let (features, log_gammas) = &mut *scratch.borrow_mut();
        cell_features(position, moves, features);
        log_gammas.clear();
        log_gammas.extend(features.iter().map(|feature| match feature {
            Some(feature) if !feature.dead => weights.log_gamma(feature),
            _ => f32::NAN,
        }));
        let Some(strengths) = CandidateStrengths::of(log_gammas.iter().copied().filter(|v| !v.is_nan())) else {
            for (prior, feature) in priors.iter_mut().zip(features.iter()) {
                if feature.is_some_and(|f| f.dead) {
                    *prior = DEAD_PRIOR;
                }
            }
            return;
        };
        for ((prior, feature), &log_gamma) in priors.iter_mut().zip(features.iter()).zip(log_gammas.iter()) {
            match feature {
                None => {}
                Some(feature) if feature.dead => *prior = DEAD_PRIOR,
                Some(_) => *prior = strengths.prior(log_gamma),
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Game;
    use crate::games::hex::HexConfig;
    use crate::games::testing::random_running_position;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;

    /// A pattern code and its 180-degree rotation weigh the same in the playout, dead patterns
    /// weigh almost nothing, and the playout hook fills the board and names its winner.
    #[test]
    fn playout_weights_share_rotations_and_starve_dead_cells() {
        use rand::Rng;
        let weights = embedded().unwrap().playout_weights();
        let mut rng = SmallRng::seed_from_u64(2);
        let mut dead = 0;
        for _ in 0..5_000 {
            let code = rng.random_range(0..PATTERN_CODES as u32);
            let weight = weights.pattern[code as usize];
            assert_eq!(weight, weights.pattern[rotated_pattern(code) as usize]);
            if pattern_is_dead(code) {
                assert_eq!(weight, DEAD_PLAYOUT_WEIGHT);
                dead += 1;
            } else {
                assert!(weight > 100.0 * DEAD_PLAYOUT_WEIGHT, "{code}: {weight}");
            }
        }
        assert!(dead > 50, "{dead}");
        let mut position = Hex::new(&HexConfig::default());
        let outcome = playout(&mut position, &mut rng);
        assert_eq!(position.outcome(), Some(outcome));
        assert_eq!(position.stone_count(), 121);
    }

    /// Cost of the learned priors against the hand-set ones on random 11x11 positions. Run with
    /// `cargo test --release --lib knowledge::hex_patterns::tests::learned_prior_cost -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn learned_prior_cost() {
        let mut rng = SmallRng::seed_from_u64(5);
        let start = Hex::new(&HexConfig::default());
        let positions: Vec<Hex> = (0..1000).map(|i| random_running_position(&start, &mut rng, i % 60)).collect();
        let (mut moves, mut priors) = (Vec::new(), Vec::new());
        for (name, learned) in [("hand-set", false), ("learned", true)] {
            let started = std::time::Instant::now();
            for position in &positions {
                moves.clear();
                position.legal_moves(&mut moves);
                priors.clear();
                priors.resize(moves.len(), Prior::NONE);
                if learned {
                    move_priors(position, &moves, &mut priors);
                } else {
                    position.move_priors(&moves, &mut priors);
                }
            }
            let micros = started.elapsed().as_secs_f64() * 1e6 / positions.len() as f64;
            println!("{name} priors on 11x11 (0 to 59 stones): {micros:.1} us per call");
        }
    }
}
