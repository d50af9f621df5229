//! `ponder train --game hex`: fits the move-pattern strengths of [`crate::knowledge::hex_patterns`]
//! to the moves the search chose in self-play games ([`super::game_selfplay`] shards), or to one
//! player's moves in match records (`--learn-from`: the shipped weights learn MoHex's).
//!
//! Every position after a game's random opening is one competition: the legal cells that are
//! not dead are the competitors, the cell the search played is the winner, and each competitor
//! is the team of its features. The gammas maximise the likelihood of the winners under the
//! generalised Bradley-Terry model, found by minorization-maximization (Coulom 2007): one
//! feature group at a time, each gamma becomes its wins over the sum, across competitions, of
//! its teams' strength without it divided by the competition's total strength. Each gamma also
//! plays one virtual win and one virtual loss against a gamma of 1 (Coulom's prior), which keeps
//! rare patterns near 1 and unseen ones at 1, or against the gammas of an earlier fit
//! (`--prior-weights`). Everything runs on one thread in a fixed order, so the same data give
//! the same bytes.

use std::path::Path;

use super::bradley_terry::{self, Accuracy, Comparison, MoveFitOptions, PriorModel, train_from_shards};
use super::game_selfplay::{GameRecord, RecordGame};
use crate::games::hex::knowledge::{CellFeatures, cell_features};
use crate::games::hex::{Hex, HexConfig, HexMove};
use crate::games::{Game, Prior};
use crate::knowledge::hex_patterns::{FEATURE_SET, GAME, LOG_GAMMA_UNIT, PatternWeights, TABLE_SIZES, embedded};

/// Feature groups: pattern, last move, edge.
const GROUPS: usize = 3;

/// The Hex move-prior model's file and groups.
pub const MODEL: PriorModel<GROUPS> =
    PriorModel { game: GAME, feature_set: FEATURE_SET, sizes: TABLE_SIZES, log_gamma_unit: LOG_GAMMA_UNIT };

/// The competitions of a set of Hex games.
pub type Competitions = bradley_terry::Competitions<GROUPS>;

/// The fitted gammas of the Hex features.
pub type Gammas = bradley_terry::Gammas<GROUPS>;

fn team(features: &CellFeatures) -> [u32; GROUPS] {
    [features.pattern, u32::from(features.last_move), u32::from(features.edge)]
}

/// Replays `record` and calls `visit` with each position whose move was a choice to learn
/// ([`GameRecord::is_choice`]) and that move. Stops at the first move that does not parse or is illegal.
fn for_each_choice(record: &GameRecord, mut visit: impl FnMut(&Hex, HexMove)) -> Result<(), String> {
    let config = HexConfig::with_size(record.size, record.size).map_err(|e| e.to_string())?;
    let mut position = Hex::new(&config);
    for (ply, text) in record.moves.iter().enumerate() {
        let mv = position.parse_move(text).map_err(|e| format!("game {} move {text}: {e}", record.number))?;
        if record.is_choice(ply, position.to_move()) {
            visit(&position, mv);
        }
        position.play(mv).map_err(|e| format!("game {} move {text}: {e}", record.number))?;
    }
    Ok(())
}

/// The competitions of `records`: positions whose chosen move is a live cell.
///
/// # Errors
/// A message naming a record with a move that does not parse or is illegal.
pub fn competitions(records: &[GameRecord]) -> Result<Competitions, String> {
    let mut result = Competitions::default();
    let (mut moves, mut features) = (Vec::new(), Vec::new());
    for record in records {
        let mut visit = |position: &Hex, chosen: HexMove| {
            moves.clear();
            position.legal_moves(&mut moves);
            cell_features(position, &moves, &mut features);
            let mut teams = Vec::new();
            let mut winner = None;
            for (&mv, feature) in moves.iter().zip(&features) {
                let Some(feature) = feature.filter(|feature| !feature.dead) else {
                    continue;
                };
                if mv == chosen {
                    winner = Some(teams.len());
                }
                teams.push(team(&feature));
            }
            if let Some(winner) = winner {
                result.push(teams, winner);
            }
        };
        for_each_choice(record, &mut visit)?;
    }
    Ok(result)
}

/// The accuracy of `weights` and of the hand-set priors ([`Game::move_priors`], ranked by
/// value, then pseudo-visits) on every searched move of `records`, swap moves aside.
///
/// # Errors
/// A message naming a record with a move that does not parse or is illegal.
pub fn accuracy(weights: &PatternWeights, records: &[GameRecord]) -> Result<(Accuracy, Accuracy), String> {
    let mut comparison = Comparison::default();
    let (mut moves, mut features, mut priors, mut learned_scores) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for record in records {
        for_each_choice(record, |position, chosen| {
            moves.clear();
            position.legal_moves(&mut moves);
            moves.retain(|mv| matches!(mv, HexMove::Cell(_)));
            let Some(chosen) = moves.iter().position(|&mv| mv == chosen) else {
                return;
            };
            cell_features(position, &moves, &mut features);
            learned_scores.clear();
            learned_scores.extend(features.iter().map(|feature| match feature {
                Some(feature) if !feature.dead => f64::from(weights.log_gamma(feature)),
                _ => f64::NEG_INFINITY,
            }));
            priors.clear();
            priors.resize(moves.len(), Prior::NONE);
            position.move_priors(&moves, &mut priors);
            comparison.add(&learned_scores, &priors, chosen);
        })?;
    }
    Ok((comparison.learned, comparison.hand_set))
}

/// Fits the gammas to the shards of `data` and writes the weights file `out`; returns the
/// report lines.
///
/// # Errors
/// A message when the shards cannot be read or the file cannot be written.
pub fn run_train(data: &Path, out: &Path, options: &MoveFitOptions) -> Result<Vec<String>, String> {
    train_from_shards(&MODEL, RecordGame::Hex, data, out, options, competitions, |file, records| match file {
        Some(file) => accuracy(&PatternWeights::from_file(file), records),
        None => accuracy(embedded().map_err(|e| format!("the shipped weights: {e}"))?, records),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Color;
    use crate::games::hex::knowledge::PATTERN_CODES;
    use crate::knowledge::weights_format::{self, WeightsFile, WeightsHeader};
    use crate::train::bradley_terry::GammaPrior;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// Games on 7x7 where every move after the first touches the opponent's last stone when it
    /// can, otherwise goes anywhere: a preference the fit must find.
    fn contact_games(count: usize) -> Vec<GameRecord> {
        let mut rng = SmallRng::seed_from_u64(17);
        let config = HexConfig::with_size(7, 7).unwrap();
        (0..count)
            .map(|number| {
                let mut position = Hex::new(&config);
                let mut moves = Vec::new();
                let mut legal = Vec::new();
                let mut last: Option<HexMove> = None;
                while position.outcome().is_none() && moves.len() < 30 {
                    legal.clear();
                    position.legal_moves(&mut legal);
                    let touching: Vec<HexMove> = legal
                        .iter()
                        .copied()
                        .filter(|&mv| match (mv, last) {
                            (HexMove::Cell(cell), Some(HexMove::Cell(previous))) => {
                                position.neighbours(previous).any(|n| n == cell)
                            }
                            _ => false,
                        })
                        .collect();
                    let pool = if touching.is_empty() { &legal } else { &touching };
                    let mv = pool[rng.random_range(0..pool.len())];
                    moves.push(position.format_move(mv));
                    position.play(mv).unwrap();
                    last = Some(mv);
                }
                GameRecord { size: 7, number, winner: position.winner(), random_moves: 1, moves, chooser: None }
            })
            .collect()
    }

    #[test]
    fn the_fit_finds_an_obvious_preference_and_is_deterministic() {
        let records = contact_games(60);
        let data = competitions(&records).unwrap();
        assert!(data.len() > 1000, "{}", data.len());
        let mut likelihoods = Vec::new();
        let gammas = MODEL.fit(&data, 8, |_, likelihood| likelihoods.push(likelihood));
        // Minorization-maximization never lowers the likelihood (the prior aside, which is small
        // against this many competitions).
        assert!(likelihoods.windows(2).all(|pair| pair[1] >= pair[0] - 1e-9), "{likelihoods:?}");
        let last_move = &gammas.groups[1];
        // Class 1 (touching the last stone) is the preference; class 2 and 3 and "far" lose.
        assert!(last_move[1] > 10.0 * last_move[2], "{last_move:?}");
        assert!(last_move[1] > 10.0 * last_move[0], "{last_move:?}");
        assert_eq!(gammas, MODEL.fit(&data, 8, |_, _| {}));
        // The learned ranking predicts these games far better than chance.
        let weights = PatternWeights {
            pattern: gammas.groups[0].iter().map(|g| g.ln() as f32).collect(),
            last_move: gammas.groups[1].iter().map(|g| g.ln() as f32).collect(),
            edge: gammas.groups[2].iter().map(|g| g.ln() as f32).collect(),
        };
        let (learned, _) = accuracy(&weights, &contact_games(10)).unwrap();
        assert!(learned.percent().1 > 60.0, "{learned:?}");
    }

    #[test]
    fn the_chooser_splits_the_moves_and_a_prior_from_a_file_holds_where_new_games_are_silent() {
        let base = MODEL.fit(&competitions(&contact_games(40)).unwrap(), 8, |_, _| {});
        let bytes = weights_format::encode(&MODEL.weights_file(&base, 0, "base".into()));
        // Two new games: each side's choices are part of both sides' choices.
        let chosen_by =
            |chooser| contact_games(2).into_iter().map(|record| GameRecord { chooser, ..record }).collect::<Vec<_>>();
        let both = competitions(&chosen_by(None)).unwrap().len();
        let black = competitions(&chosen_by(Some(Color::Black))).unwrap().len();
        let white = competitions(&chosen_by(Some(Color::White))).unwrap();
        assert!(black > 0 && !white.is_empty());
        assert_eq!(black + white.len(), both);
        // White's choices of the two games, fitted with three priors.
        let fit_with = |prior: &GammaPrior<GROUPS>| bradley_terry::fit(&white, prior, 8, |_, _| {});
        let held = fit_with(&MODEL.prior_from_file(&bytes, 1e6).unwrap());
        let adjusted = fit_with(&MODEL.prior_from_file(&bytes, 1.0).unwrap());
        let fresh = fit_with(&GammaPrior::neutral(TABLE_SIZES));
        let gap =
            |a: &Gammas, group: usize, value: usize| (a.groups[group][value] / base.groups[group][value]).ln().abs();
        for (group, &size) in TABLE_SIZES.iter().enumerate() {
            for value in 0..size {
                assert!(gap(&held, group, value) < 0.01, "a strong prior holds the file's gammas");
            }
        }
        // Most pattern values learned from the 40 games do not occur in White's moves of two
        // games: the adjusted fit keeps them (to the file's rounding), the fresh one has 1.
        let learned: Vec<usize> = (0..PATTERN_CODES).filter(|&code| base.groups[0][code].ln().abs() > 0.1).collect();
        let kept = learned.iter().filter(|&&code| gap(&adjusted, 0, code) < 1e-3).count();
        assert!(kept * 10 > learned.len() * 9, "{kept} of {}", learned.len());
        assert!(learned.iter().all(|&code| fresh.groups[0][code] != base.groups[0][code]));
        // Where the new games speak, the prior still pulls towards the file.
        assert!(gap(&adjusted, 1, 1) < gap(&fresh, 1, 1), "{} {}", gap(&adjusted, 1, 1), gap(&fresh, 1, 1));
    }

    #[test]
    fn weights_round_trip_through_the_file_format() {
        let mut gammas = Gammas::ones(TABLE_SIZES);
        gammas.groups[0][1234] = 3.5;
        gammas.groups[1][2] = 0.25;
        gammas.groups[2][7] = 1e-30;
        let file = WeightsFile {
            header: WeightsHeader {
                game: GAME.into(),
                feature_set: FEATURE_SET.into(),
                data_hash: 42,
                description: "test".into(),
            },
            tables: gammas.tables(LOG_GAMMA_UNIT),
        };
        let bytes = weights_format::encode(&file);
        let weights = PatternWeights::decode(&bytes).unwrap();
        assert!((weights.pattern[1234] - 3.5f32.ln()).abs() < 1e-3);
        assert!((weights.last_move[2] - 0.25f32.ln()).abs() < 1e-3);
        // Clamped to what an i16 holds, not wrapped.
        assert!((weights.edge[7] + 32767.0 / 1024.0).abs() < 1e-3);
        assert_eq!(weights.pattern.iter().filter(|&&v| v != 0.0).count(), 1);
        // Another game's or feature set's file is refused, and so is a damaged one.
        bradley_terry::assert_foreign_and_damaged_files_refused(&file, PatternWeights::decode);
    }

    /// The shipped weights are the fit `weights/README.md` gives, from the data it keeps: the
    /// 419 games against MoHex (two rounds) and the earlier self-play fit as the prior.
    #[test]
    fn retraining_from_the_kept_games_writes_the_shipped_weights() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let data = root.join("weights/data/hex-vs-mohex");
        let out = std::env::temp_dir().join(format!("ponder-hex-retrain-{}.patterns", std::process::id()));
        let options = MoveFitOptions {
            iterations: 30,
            test: None,
            learn_from: Some("mohex".to_string()),
            prior_weights: Some(data.join("selfplay-prior.patterns")),
            prior_strength: 1.0,
        };
        let lines = run_train(&data.join("train"), &out, &options).unwrap();
        let written = std::fs::read(&out).unwrap();
        std::fs::remove_file(&out).unwrap();
        assert!(lines[0].starts_with("419 games in 419 files"), "{lines:?}");
        assert!(written == std::fs::read(root.join("weights/hex.patterns")).unwrap(), "retrained weights differ");
    }

    #[test]
    fn the_embedded_weights_load_and_rank_a_bridge_save_first() {
        let weights = crate::knowledge::hex_patterns::embedded().unwrap();
        assert_eq!(weights.pattern.len(), PATTERN_CODES);
        // Black's b2 and c3 form a bridge; White intrudes at c2: b3 restores it.
        let mut position = crate::games::testing::hex_position(5, 5, &["b2", "c3", "e1"], &["a5"]);
        position.give_turn_to(Color::White).unwrap();
        position.play(position.parse_move("c2").unwrap()).unwrap();
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        let mut priors = vec![Prior::NONE; moves.len()];
        crate::knowledge::hex_patterns::priors_with(weights, &position, &moves, &mut priors);
        let best = moves.iter().zip(&priors).max_by(|a, b| a.1.value.total_cmp(&b.1.value)).unwrap();
        assert_eq!(position.format_move(*best.0), "b3");
    }
}
