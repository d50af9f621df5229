//! `ponder train --game gomoku`: fits the line-pattern strengths of
//! [`crate::knowledge::gomoku_patterns`] to the moves the search chose in self-play games
//! ([`super::game_selfplay`] shards), by Coulom's minorization-maximization
//! ([`super::bradley_terry`]).
//!
//! A competition is every searched position (after the random opening) where the learned priors
//! apply (freestyle, no five to complete or block: those moves the rules force) and the searched
//! move is a candidate ([`is_candidate`]); the candidates are its competitors.

use std::path::Path;

use super::bradley_terry::{Accuracy, Comparison, Competitions, MoveFitOptions, PriorModel, train_from_shards};
use super::game_selfplay::{GameRecord, RecordGame};
use crate::games::mnk::{Cell, Mnk, MnkConfig};
use crate::games::{Game, GameConfig, Prior};
use crate::knowledge::gomoku_patterns::{
    CellFeatures, FEATURE_SET, GAME, LOG_GAMMA_UNIT, PatternWeights, TABLE_SIZES, applies, cell_features, embedded,
    has_five_point, is_candidate,
};

/// Feature groups: own combination, opponent's combination, neighbourhood.
const GROUPS: usize = 3;

/// The Gomoku move-prior model's file and groups.
pub const MODEL: PriorModel<GROUPS> =
    PriorModel { game: GAME, feature_set: FEATURE_SET, sizes: TABLE_SIZES, log_gamma_unit: LOG_GAMMA_UNIT };

fn team(features: &CellFeatures) -> [u32; GROUPS] {
    [u32::from(features.own), u32::from(features.opponent), u32::from(features.neighbourhood)]
}

/// Replays `record` (freestyle Gomoku on its size) and calls `visit` with each position whose
/// move was a choice to learn ([`GameRecord::is_choice`]) where the learned priors apply, its
/// candidates and the index of the chosen move among them (`None` when it is not a candidate).
///
/// # Errors
/// A message naming the first move that does not parse or is illegal.
pub(super) fn for_each_choice(
    record: &GameRecord,
    mut visit: impl FnMut(&Mnk, &[Cell], Option<usize>),
) -> Result<(), String> {
    let mut config = MnkConfig::gomoku();
    config.set_size(record.size, record.size).map_err(|e| e.to_string())?;
    let mut position = Mnk::new(&config);
    let (mut legal, mut candidates) = (Vec::new(), Vec::new());
    for (ply, text) in record.moves.iter().enumerate() {
        let mv = position.parse_move(text).map_err(|e| format!("game {} move {text}: {e}", record.number))?;
        if record.is_choice(ply, position.to_move()) && applies(&position) && !has_five_point(&position) {
            legal.clear();
            position.legal_moves(&mut legal);
            candidates.clear();
            candidates.extend(legal.iter().copied().filter(|&cell| is_candidate(&position, cell, ply == 0)));
            visit(&position, &candidates, candidates.iter().position(|&cell| cell == mv));
        }
        position.play(mv).map_err(|e| format!("game {} move {text}: {e}", record.number))?;
    }
    Ok(())
}

/// The competitions of `records`.
///
/// # Errors
/// A message naming a record with a move that does not parse or is illegal.
pub fn competitions(records: &[GameRecord]) -> Result<Competitions<GROUPS>, String> {
    let mut result = Competitions::default();
    for record in records {
        for_each_choice(record, |position, candidates, chosen| {
            if let Some(chosen) = chosen {
                result.push(candidates.iter().map(|&cell| team(&cell_features(position, cell))), chosen);
            }
        })?;
    }
    Ok(result)
}

/// The accuracy of `weights` and of the hand-set priors ([`Game::move_priors`], ranked by value,
/// then pseudo-visits) on the searched moves of `records` that [`competitions`] would count.
///
/// # Errors
/// A message naming a record with a move that does not parse or is illegal.
pub fn accuracy(weights: &PatternWeights, records: &[GameRecord]) -> Result<(Accuracy, Accuracy), String> {
    let mut comparison = Comparison::default();
    let (mut priors, mut learned_scores) = (Vec::new(), Vec::new());
    for record in records {
        for_each_choice(record, |position, candidates, chosen| {
            let Some(chosen) = chosen else {
                return;
            };
            learned_scores.clear();
            learned_scores
                .extend(candidates.iter().map(|&cell| f64::from(weights.log_gamma(&cell_features(position, cell)))));
            priors.clear();
            priors.resize(candidates.len(), Prior::NONE);
            position.move_priors(candidates, &mut priors);
            comparison.add(&learned_scores, &priors, chosen);
        })?;
    }
    Ok((comparison.learned, comparison.hand_set))
}

/// Fits the gammas to the shards of `data` with `iterations` rounds and writes the weights file
/// `out`; with `test`, reports the accuracy on those held-out shards. Returns the report lines.
///
/// # Errors
/// A message when the shards cannot be read or the file cannot be written.
pub fn run_train(data: &Path, out: &Path, options: &MoveFitOptions) -> Result<Vec<String>, String> {
    train_from_shards(&MODEL, RecordGame::Gomoku, data, out, options, competitions, |file, records| match file {
        Some(file) => accuracy(&PatternWeights::from_file(file), records),
        None => accuracy(embedded().map_err(|e| format!("the shipped weights: {e}"))?, records),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::mnk::gomoku_threats::ThreatBoard;
    use crate::knowledge::weights_format;
    use crate::train::bradley_terry::{Gammas, assert_foreign_and_damaged_files_refused};
    use crate::train::game_selfplay::scripted_gomoku_games;
    use crate::train::game_selfplay::write_test_shard;
    use rand::Rng;

    /// Games on 11x11 where each side extends its own lines when it can (a cell making an open
    /// three or better), otherwise plays next to any stone at random: a preference the fit must
    /// find.
    fn line_building_games(count: usize, seed: u64) -> Vec<GameRecord> {
        scripted_gomoku_games(count, seed, Some("F6"), 40, |position, legal, rng| {
            let candidates: Vec<Cell> =
                legal.iter().copied().filter(|&cell| is_candidate(position, cell, false)).collect();
            let board = ThreatBoard::new(position);
            let side = position.to_move();
            let strong: Vec<Cell> = candidates
                .iter()
                .copied()
                .filter(|&cell| board.open_three_points(side).contains(cell) || board.four_points(side).contains(cell))
                .collect();
            let pool = if strong.is_empty() { &candidates } else { &strong };
            pool[rng.random_range(0..pool.len())]
        })
    }

    #[test]
    fn the_fit_finds_an_obvious_preference_and_is_deterministic() {
        let records = line_building_games(40, 3);
        let data = competitions(&records).unwrap();
        assert!(data.len() > 200, "{}", data.len());
        let mut likelihoods = Vec::new();
        let gammas = MODEL.fit(&data, 6, |_, likelihood| likelihoods.push(likelihood));
        assert!(likelihoods.windows(2).all(|pair| pair[1] >= pair[0] - 1e-9), "{likelihoods:?}");
        // The same data, the same bytes.
        let bytes = |gammas: &Gammas<GROUPS>| weights_format::encode(&MODEL.weights_file(gammas, 7, "test".into()));
        assert_eq!(bytes(&gammas), bytes(&MODEL.fit(&data, 6, |_, _| {})));
        // Held-out games of the same kind: the learned ranking finds the line-building moves
        // far more often than neutral weights (every candidate tied: chance).
        let held_out = line_building_games(10, 4);
        let weights = PatternWeights::from_file(&MODEL.weights_file(&gammas, 7, "test".into()));
        let (learned, _) = accuracy(&weights, &held_out).unwrap();
        let neutral = PatternWeights::from_file(&MODEL.weights_file(&Gammas::ones(TABLE_SIZES), 7, "test".into()));
        let (chance, _) = accuracy(&neutral, &held_out).unwrap();
        assert!(learned.percent().0 > 3.0 * chance.percent().0, "{learned:?} {chance:?}");
        assert!(learned.percent().1 > 3.0 * chance.percent().1, "{learned:?} {chance:?}");
    }

    #[test]
    fn weights_round_trip_and_bad_files_are_refused() {
        let mut gammas = Gammas::ones(TABLE_SIZES);
        gammas.groups[0][123] = 3.5;
        gammas.groups[2][7] = 0.25;
        let file = MODEL.weights_file(&gammas, 42, "test".into());
        let bytes = weights_format::encode(&file);
        let weights = PatternWeights::decode(&bytes).unwrap();
        assert!((weights.own[123] - 3.5f32.ln()).abs() < 1e-3);
        assert!((weights.neighbourhood[7] - 0.25f32.ln()).abs() < 1e-3);
        assert_eq!(weights.opponent.iter().filter(|&&v| v != 0.0).count(), 0);
        assert_foreign_and_damaged_files_refused(&file, PatternWeights::decode);
    }

    #[test]
    fn training_twice_from_the_same_shards_writes_the_same_bytes() {
        let dir = std::env::temp_dir().join(format!("ponder-gomoku-fit-{}", std::process::id()));
        let data = dir.join("data");
        write_test_shard(&data, RecordGame::Gomoku, 11, &line_building_games(20, 5));
        let (first, second) = (dir.join("first.patterns"), dir.join("second.patterns"));
        let options = MoveFitOptions { iterations: 4, prior_strength: 1.0, ..MoveFitOptions::default() };
        let lines = run_train(&data, &first, &MoveFitOptions { test: Some(data.clone()), ..options.clone() }).unwrap();
        run_train(&data, &second, &options).unwrap();
        let (first, second) = (std::fs::read(first).unwrap(), std::fs::read(second).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(first, second);
        assert!(lines.last().unwrap().contains("learned top-1"), "{lines:?}");
    }
}
