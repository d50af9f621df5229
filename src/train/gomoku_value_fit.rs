//! `ponder train --game gomoku --model value`: fits the position value of
//! [`crate::knowledge::gomoku_eval`] to the outcomes of self-play games
//! ([`super::game_selfplay`] shards) by logistic regression.
//!
//! # Samples
//! Every position of a decided game from the end of its random opening on where the evaluation
//! stands in for a search: no five for either side to complete and no open four for the side to
//! move to make (the search's forced-move rules decide those, and its quiescence takes the
//! value only in such positions). Its features are the counts of each combination (the
//! multiset of four line shapes) among the side to move's empty cells and among the
//! opponent's, a constant, the threat steps each side reaches (one feature per step, 1 when
//! the side has at least that many cells of the step's kind), and the counts of each crossing
//! among the empty cells; its label whether the side to move went on to win. The games
//! end when a side resigns a proven loss, so the label of a late position is a threat search's
//! proof.
//!
//! # The fit
//! The weights start from the hand-set value ([`ValueWeights::hand_set`]) scaled by the one
//! factor that fits the samples best, and are then fitted by Newton's method on the
//! log-likelihood with a ridge penalty `ridge * (w - prior)^2` per weight, so a combination
//! the data rarely shows keeps its hand-set value. Every sum runs in sample order on one
//! thread, so the same shards give the same bytes.

use std::path::Path;

use super::game_selfplay::{GameRecord, RecordGame, held_out_samples, load_records};
use crate::games::mnk::gomoku_threats::ThreatBoard;
use crate::games::mnk::{Mnk, MnkConfig};
use crate::games::{Color, Game, GameConfig};
use crate::knowledge::gomoku_eval::{
    COMBINATIONS, CROSSINGS, GAME, PatternEvaluation, THREAT_STEPS, UNITS_PER_LOGIT, VALUE_FEATURE_SET, ValueWeights,
};
use crate::knowledge::weights_format::{self, WeightsFile, WeightsHeader};

/// Weights: the side to move's combinations, the opponent's, the constant, the side to move's
/// threat steps, the opponent's, and the crossings.
pub(super) const PARAMETERS: usize = 2 * COMBINATIONS + 1 + 2 * THREAT_STEPS.len() + CROSSINGS;
const CONSTANT: usize = 2 * COMBINATIONS;
const MOVER_THREATS: usize = CONSTANT + 1;
const OPPONENT_THREATS: usize = MOVER_THREATS + THREAT_STEPS.len();
const CROSSING_WEIGHTS: usize = OPPONENT_THREATS + THREAT_STEPS.len();

/// Newton steps of the fit (the log-likelihood is concave; a handful converge).
const NEWTON_STEPS: usize = 8;

/// One position: its features as (weight index, count) and the side to move's winning chance
/// to fit: 1 or 0 by the game's outcome, or a teacher's estimate ([`Labels`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub features: Vec<(usize, f64)>,
    pub target: f64,
}

/// Winning chances of the side to move given by a teacher (a stronger engine's evaluation) for
/// positions of the training games, keyed by (game number, ply): the position before the move
/// at `ply` (0 for the empty board). With labels, the samples are the labelled positions, each
/// with its teacher's chance instead of its game's outcome: the teacher also chooses which
/// positions teach a static value (say, not those its search proved won, which are the threat
/// searches' work).
pub type Labels = rustc_hash::FxHashMap<(usize, usize), f64>;

/// Reads a labels file: one position a line, `GAME PLY CHANCE` (the game's number in its
/// record, the moves played before the position, the side to move's winning chance in [0, 1]);
/// blank lines and lines from `#` on are skipped.
///
/// # Errors
/// A message naming the file and the first line that does not read.
pub fn read_labels(path: &Path) -> Result<Labels, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_labels(&text, path)
}

/// The labels of a labels file's `text` (see [`read_labels`]); `path` names the file in errors.
fn parse_labels(text: &str, path: &Path) -> Result<Labels, String> {
    let mut labels = Labels::default();
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let bad = || format!("{} line {}: expected GAME PLY CHANCE, got '{line}'", path.display(), number + 1);
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [game, ply, chance] = fields[..] else {
            return Err(bad());
        };
        let (Ok(game), Ok(ply), Ok(chance)) = (game.parse(), ply.parse(), chance.parse::<f64>()) else {
            return Err(bad());
        };
        if !(0.0..=1.0).contains(&chance) {
            return Err(bad());
        }
        labels.insert((game, ply), chance);
    }
    Ok(labels)
}

/// Whether the evaluation stands in for a search in `board` with `side` to move (see the module
/// doc).
pub(super) fn is_evaluated(board: &ThreatBoard, side: Color) -> bool {
    board.five_points(side).is_empty()
        && board.five_points(side.opponent()).is_empty()
        && board.winning_four_points(side).is_empty()
}

/// The features of the position `board` with `side` to move.
fn features(board: &ThreatBoard, side: Color) -> Vec<(usize, f64)> {
    features_of(&PatternEvaluation::new(board), side)
}

/// The features of the position `evaluation` describes, with `side` to move.
pub(super) fn features_of(evaluation: &PatternEvaluation, side: Color) -> Vec<(usize, f64)> {
    let mut counts = vec![0u32; PARAMETERS];
    for combination in evaluation.combinations(side) {
        counts[combination] += 1;
    }
    for combination in evaluation.combinations(side.opponent()) {
        counts[COMBINATIONS + combination] += 1;
    }
    counts[CONSTANT] = 1;
    for (start, color) in [(MOVER_THREATS, side), (OPPONENT_THREATS, side.opponent())] {
        let threat_counts = evaluation.threat_counts(color);
        for (step, &(kind, least)) in THREAT_STEPS.iter().enumerate() {
            counts[start + step] = u32::from(threat_counts[kind as usize] >= least);
        }
    }
    for crossing in evaluation.crossings(side) {
        counts[CROSSING_WEIGHTS + crossing] += 1;
    }
    counts
        .iter()
        .enumerate()
        .filter(|(_, count)| **count > 0)
        .map(|(index, &count)| (index, f64::from(count)))
        .collect()
}

/// The samples of `records` (freestyle Gomoku on each record's size; drawn games give none),
/// labelled by their games' outcomes.
///
/// # Errors
/// A message naming the first move that does not parse or is illegal.
pub fn samples(records: &[GameRecord]) -> Result<Vec<Sample>, String> {
    labelled_samples(records, None)
}

/// The samples of `records`: with `labels`, the positions they label, with their chances (see
/// [`Labels`]); without, every position with its game's outcome.
///
/// # Errors
/// As [`samples`].
pub fn labelled_samples(records: &[GameRecord], labels: Option<&Labels>) -> Result<Vec<Sample>, String> {
    let mut result = Vec::new();
    for record in records {
        let Some(winner) = record.winner else {
            continue;
        };
        let mut config = MnkConfig::gomoku();
        config.set_size(record.size, record.size).map_err(|e| e.to_string())?;
        let mut position = Mnk::new(&config);
        for (ply, text) in record.moves.iter().enumerate() {
            if ply >= record.random_moves {
                let board = ThreatBoard::new(&position);
                let side = position.to_move();
                if is_evaluated(&board, side) {
                    let outcome = if side == winner { 1.0 } else { 0.0 };
                    let target = labels.and_then(|labels| labels.get(&(record.number, ply)).copied());
                    // A teacher picks the positions as well as their labels.
                    if labels.is_none() || target.is_some() {
                        result.push(Sample { features: features(&board, side), target: target.unwrap_or(outcome) });
                    }
                }
            }
            let mv = position.parse_move(text).map_err(|e| format!("game {} move {text}: {e}", record.number))?;
            position.play(mv).map_err(|e| format!("game {} move {text}: {e}", record.number))?;
        }
    }
    Ok(result)
}

/// The hand-set value as weights in logits, in the fit's order.
fn hand_set_logits() -> Vec<f64> {
    logits_of(&ValueWeights::hand_set())
}

/// Value weights in logits, in the fit's order.
pub(super) fn logits_of(value: &ValueWeights) -> Vec<f64> {
    let mut weights: Vec<f64> = value.mover.iter().chain(&value.opponent).map(|&w| f64::from(w)).collect();
    weights.push(f64::from(value.constant));
    weights.extend(
        value.mover_threats.iter().chain(&value.opponent_threats).chain(&value.crossings).map(|&w| f64::from(w)),
    );
    weights.iter().map(|w| w / UNITS_PER_LOGIT).collect()
}

fn margin(weights: &[f64], sample: &Sample) -> f64 {
    sample.features.iter().map(|&(index, count)| weights[index] * count).sum()
}

pub(super) fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// How well `weights` (in logits) predict the samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fitness {
    /// Mean negative log-likelihood per sample (nats).
    pub log_loss: f64,
    /// The share of samples whose likelier winner the value's sign predicts (a value of 0, or a
    /// target of one half, counts half).
    pub accuracy: f64,
}

pub fn fitness(weights: &[f64], samples: &[Sample]) -> Fitness {
    let (mut loss, mut right) = (0.0, 0.0);
    for sample in samples {
        let x = margin(weights, sample);
        let p = sigmoid(x).clamp(1e-12, 1.0 - 1e-12);
        let t = sample.target;
        loss -= t * p.ln() + (1.0 - t) * (1.0 - p).ln();
        right += if x == 0.0 || t == 0.5 {
            0.5
        } else if (x > 0.0) == (t > 0.5) {
            1.0
        } else {
            0.0
        };
    }
    let count = samples.len().max(1) as f64;
    Fitness { log_loss: loss / count, accuracy: right / count }
}

/// The factor of `direction` that fits the samples best (Newton's method in one variable).
fn best_scale(direction: &[f64], samples: &[Sample]) -> f64 {
    let mut scale = 1.0;
    for _ in 0..30 {
        let (mut gradient, mut curvature) = (0.0, 1e-9);
        for sample in samples {
            let x = margin(direction, sample);
            let p = sigmoid(scale * x);
            gradient += (p - sample.target) * x;
            curvature += p * (1.0 - p) * x * x;
        }
        scale -= gradient / curvature;
    }
    scale
}

/// Solves `matrix * x = vector` for a symmetric positive definite `matrix` (row-major,
/// `n` x `n`) by Cholesky's factorisation.
pub(super) fn solve_positive_definite(mut matrix: Vec<f64>, mut vector: Vec<f64>, n: usize) -> Vec<f64> {
    for j in 0..n {
        let mut diagonal = matrix[j * n + j];
        for k in 0..j {
            diagonal -= matrix[j * n + k] * matrix[j * n + k];
        }
        let diagonal = diagonal.max(1e-12).sqrt();
        matrix[j * n + j] = diagonal;
        for i in j + 1..n {
            let mut value = matrix[i * n + j];
            for k in 0..j {
                value -= matrix[i * n + k] * matrix[j * n + k];
            }
            matrix[i * n + j] = value / diagonal;
        }
    }
    for i in 0..n {
        for k in 0..i {
            vector[i] -= matrix[i * n + k] * vector[k];
        }
        vector[i] /= matrix[i * n + i];
    }
    for i in (0..n).rev() {
        for k in i + 1..n {
            vector[i] -= matrix[k * n + i] * vector[k];
        }
        vector[i] /= matrix[i * n + i];
    }
    vector
}

/// The fitted weights (logits) and the prior they started from.
pub struct ValueFit {
    pub weights: Vec<f64>,
    pub prior: Vec<f64>,
}

/// Fits the weights to `samples` with `ridge` per weight around the scaled hand-set value.
pub fn fit(samples: &[Sample], ridge: f64) -> ValueFit {
    let hand_set = hand_set_logits();
    let scale = best_scale(&hand_set, samples);
    let prior: Vec<f64> = hand_set.iter().map(|w| w * scale).collect();
    let mut weights = prior.clone();
    for _ in 0..NEWTON_STEPS {
        let mut gradient: Vec<f64> = weights.iter().zip(&prior).map(|(w, p)| 2.0 * ridge * (w - p)).collect();
        let mut hessian = vec![0.0; PARAMETERS * PARAMETERS];
        for i in 0..PARAMETERS {
            hessian[i * PARAMETERS + i] = 2.0 * ridge;
        }
        for sample in samples {
            let p = sigmoid(margin(&weights, sample));
            let error = p - sample.target;
            let curvature = p * (1.0 - p);
            for &(i, xi) in &sample.features {
                gradient[i] += error * xi;
                for &(j, xj) in &sample.features {
                    hessian[i * PARAMETERS + j] += curvature * xi * xj;
                }
            }
        }
        let step = solve_positive_definite(hessian, gradient, PARAMETERS);
        weights = newton_step(weights, &step, |trial| objective(trial, &prior, samples, ridge));
    }
    ValueFit { weights, prior }
}

/// `weights` less a full Newton `step`, the step halved (up to 20 times) while it does not
/// lower `objective`; the weights as they were when no step does.
pub(super) fn newton_step(weights: Vec<f64>, step: &[f64], objective: impl Fn(&[f64]) -> f64) -> Vec<f64> {
    let before = objective(&weights);
    let mut fraction = 1.0;
    for _ in 0..20 {
        let trial: Vec<f64> = weights.iter().zip(step).map(|(w, d)| w - fraction * d).collect();
        if objective(&trial) <= before {
            return trial;
        }
        fraction /= 2.0;
    }
    weights
}

/// The penalised negative log-likelihood the fit minimises.
fn objective(weights: &[f64], prior: &[f64], samples: &[Sample], ridge: f64) -> f64 {
    let penalty: f64 = weights.iter().zip(prior).map(|(w, p)| ridge * (w - p) * (w - p)).sum();
    fitness(weights, samples).log_loss * samples.len() as f64 + penalty
}

/// The weights file of `weights` (logits), in [`UNITS_PER_LOGIT`] units.
pub fn weights_file(weights: &[f64], data_hash: u64, description: String) -> WeightsFile {
    let units = |w: &f64| (w * UNITS_PER_LOGIT).round().clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i16;
    WeightsFile {
        header: WeightsHeader {
            game: GAME.to_string(),
            feature_set: VALUE_FEATURE_SET.to_string(),
            data_hash,
            description,
        },
        tables: vec![
            weights[..COMBINATIONS].iter().map(units).collect(),
            weights[COMBINATIONS..CONSTANT].iter().map(units).collect(),
            vec![units(&weights[CONSTANT])],
            weights[MOVER_THREATS..OPPONENT_THREATS].iter().map(units).collect(),
            weights[OPPONENT_THREATS..CROSSING_WEIGHTS].iter().map(units).collect(),
            weights[CROSSING_WEIGHTS..].iter().map(units).collect(),
        ],
    }
}

/// The weights of a file, in logits, in the fit's order.
pub(super) fn file_logits(file: &WeightsFile) -> Vec<f64> {
    file.tables.iter().flatten().map(|&w| f64::from(w) / UNITS_PER_LOGIT).collect()
}

fn describe(name: &str, fitness: Fitness) -> String {
    format!("{name}: log-loss {:.4}, winner predicted {:.1}%", fitness.log_loss, 100.0 * fitness.accuracy)
}

/// What `ponder train --game gomoku --model value` is asked.
#[derive(Clone, Copy, Debug)]
pub struct ValueFitOptions<'a> {
    /// Penalty per weight, in squared logits, around the scaled hand-set value.
    pub ridge: f64,
    /// Held-out games to report the prediction of their outcomes on.
    pub test: Option<&'a Path>,
    /// A teacher's winning chances for positions of the training games ([`read_labels`]): the
    /// positions it labels are the samples, fitted to its chances instead of the outcomes.
    pub labels: Option<&'a Path>,
    /// The teacher's winning chances for positions of the held-out games, to report how
    /// closely each value follows the teacher there too.
    pub test_labels: Option<&'a Path>,
}

/// Fits the value to the shards of `data` with `options.ridge` (with `options.labels`, to the
/// teacher's chances of the positions it labels; else to the outcomes) and writes the weights
/// file `out`; with `options.test`, reports how the trained, the embedded and the hand-set value
/// predict those held-out games (and, with `options.test_labels`, their teacher's chances).
/// Returns the report lines.
///
/// # Errors
/// A message when the shards or a labels file cannot be read, they give no sample or the file
/// cannot be written.
pub fn run_train(data: &Path, out: &Path, options: &ValueFitOptions) -> Result<Vec<String>, String> {
    let ValueFitOptions { ridge, test, labels, test_labels } = *options;
    let (records, mut hash, files) = load_records(RecordGame::Gomoku, data, None)?;
    let labels = match labels {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            // The labels are part of the data: the weights file's data hash covers them, as it
            // covers the records' files.
            hash = weights_format::fnv1a(hash, text.as_bytes());
            Some(parse_labels(&text, path)?)
        }
        None => None,
    };
    let training = labelled_samples(&records, labels.as_ref())?;
    if training.is_empty() {
        return Err(match options.labels {
            Some(path) => {
                format!("{}: labels no evaluated position of the games in {}", path.display(), data.display())
            }
            None => format!("{}: no decided game with an evaluated position", data.display()),
        });
    }
    let fitted = fit(&training, ridge);
    let teacher = if labels.is_some() { " labelled by a teacher" } else { "" };
    let description = format!(
        "ponder train --game gomoku --model value --ridge {ridge}: {} games in {files} shards, {} \
         positions{teacher}, {} Newton steps from the hand-set value scaled by {:.3}",
        records.len(),
        training.len(),
        NEWTON_STEPS,
        fitted.prior[0..COMBINATIONS]
            .iter()
            .zip(hand_set_logits())
            .find(|(_, h)| *h != 0.0)
            .map_or(1.0, |(p, h)| p / h),
    );
    let file = weights_file(&fitted.weights, hash, description.clone());
    std::fs::write(out, weights_format::encode(&file)).map_err(|e| format!("{}: {e}", out.display()))?;
    let stored = file_logits(&file);
    let mut lines = vec![
        format!("{}: {description}, data hash {hash:016x}", out.display()),
        describe("training, trained", fitness(&stored, &training)),
        describe("training, hand-set (scaled)", fitness(&fitted.prior, &training)),
        describe("training, hand-set (as the search used it)", fitness(&hand_set_logits(), &training)),
    ];
    if let Some(test) = test {
        let (held_out, header) = held_out_samples(RecordGame::Gomoku, test, None, "positions", samples)?;
        lines.push(header);
        lines.push(describe("held-out, trained", fitness(&stored, &held_out)));
        // The value the engine plays with now, so a new fit can be judged against it.
        if let Ok(embedded) = crate::knowledge::gomoku_eval::embedded_value() {
            lines.push(describe("held-out, embedded (weights/gomoku.value)", fitness(&logits_of(embedded), &held_out)));
        }
        lines.push(describe("held-out, hand-set (scaled)", fitness(&fitted.prior, &held_out)));
        lines.push(describe("held-out, hand-set (as the search used it)", fitness(&hand_set_logits(), &held_out)));
        if let Some(test_labels) = test_labels {
            let test_labels = read_labels(test_labels)?;
            let (taught, header) = held_out_samples(RecordGame::Gomoku, test, None, "positions labelled", |records| {
                labelled_samples(records, Some(&test_labels))
            })?;
            lines.push(format!("against the teacher, {header}"));
            lines.push(describe("held-out against the teacher, trained", fitness(&stored, &taught)));
            if let Ok(embedded) = crate::knowledge::gomoku_eval::embedded_value() {
                lines.push(describe("held-out against the teacher, embedded", fitness(&logits_of(embedded), &taught)));
            }
        }
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::mnk::Cell;
    use crate::train::bradley_terry::assert_foreign_and_damaged_files_refused;
    use crate::train::game_selfplay::{scripted_gomoku_games, write_test_shard};
    use rand::Rng;

    /// Games on 11x11 where Black extends its lines greedily (the cell with the best hand-set
    /// score for itself) and White plays next to a stone at random, until a five or 60 moves:
    /// Black wins most, and the side with the better shapes is the one that wins.
    fn lopsided_games(count: usize, seed: u64) -> Vec<GameRecord> {
        scripted_gomoku_games(count, seed, None, 60, |position, legal, rng| {
            let evaluation = PatternEvaluation::new(&ThreatBoard::new(position));
            let near: Vec<Cell> = legal
                .iter()
                .copied()
                .filter(|&cell| {
                    evaluation.cell_score(Color::Black, cell) + evaluation.cell_score(Color::White, cell) > 0
                })
                .collect();
            let pool = if near.is_empty() { legal } else { &near };
            let side = position.to_move();
            if side == Color::Black && rng.random_range(0..4) > 0 {
                *pool.iter().max_by_key(|&&cell| (evaluation.cell_score(side, cell), cell.0)).unwrap()
            } else {
                pool[rng.random_range(0..pool.len())]
            }
        })
    }

    #[test]
    fn samples_are_the_evaluated_positions_of_decided_games() {
        let records = lopsided_games(30, 1);
        let decided = records.iter().filter(|record| record.winner.is_some()).count();
        assert!(decided >= 20, "{decided}");
        let samples = samples(&records).unwrap();
        assert!(samples.len() > 100, "{}", samples.len());
        // Every sample has the constant and counts of both colours' combinations.
        for sample in &samples {
            assert!(sample.features.contains(&(CONSTANT, 1.0)));
            assert!(sample.features.iter().all(|&(index, count)| index < PARAMETERS && count >= 1.0));
        }
        // A five on the board ends the game, a four to block is never evaluated: the last
        // position of a won game is not a sample, so there are fewer samples than moves.
        let moves: usize = records.iter().filter(|r| r.winner.is_some()).map(|r| r.moves.len() - 1).sum();
        assert!(samples.len() < moves);
    }

    #[test]
    fn a_teachers_labels_choose_the_positions_and_replace_their_outcomes() {
        let records = lopsided_games(6, 4);
        let plain = samples(&records).unwrap();
        assert!(plain.iter().all(|sample| sample.target == 0.0 || sample.target == 1.0));
        // Label every other ply of the first decided game at 0.25, by its number and ply.
        let game = records.iter().find(|record| record.winner.is_some()).unwrap();
        let labels: Labels = (0..game.moves.len()).step_by(2).map(|ply| ((game.number, ply), 0.25)).collect();
        let taught = labelled_samples(&records, Some(&labels)).unwrap();
        assert!(!taught.is_empty() && taught.len() <= labels.len());
        assert!(taught.iter().all(|sample| sample.target == 0.25));
        // They are the game's evaluated positions at even plies, features unchanged.
        let mut expected = Vec::new();
        let mut config = MnkConfig::gomoku();
        config.set_size(game.size, game.size).unwrap();
        let mut position = Mnk::new(&config);
        for (ply, text) in game.moves.iter().enumerate() {
            let board = ThreatBoard::new(&position);
            if ply >= game.random_moves && ply % 2 == 0 && is_evaluated(&board, position.to_move()) {
                expected.push(features(&board, position.to_move()));
            }
            position.play(position.parse_move(text).unwrap()).unwrap();
        }
        assert_eq!(taught.into_iter().map(|sample| sample.features).collect::<Vec<_>>(), expected);
    }

    #[test]
    fn labels_files_read_and_bad_lines_are_named() {
        let dir = std::env::temp_dir().join(format!("ponder-gomoku-labels-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("labels.txt");
        let read = |text: &str| {
            std::fs::write(&path, text).unwrap();
            read_labels(&path)
        };
        let good = read("# game ply chance\n3 7 0.9591 # eval 789\n\n4 2 0.5\n");
        let short = read("3 7\n");
        let out_of_range = read("3 7 0.5\n3 8 1.5\n");
        let not_a_number = read("3 x 0.5\n");
        std::fs::remove_dir_all(&dir).unwrap();
        let good = good.unwrap();
        assert_eq!((good.len(), good[&(3, 7)], good[&(4, 2)]), (2, 0.9591, 0.5));
        let shown = path.display();
        assert_eq!(short.unwrap_err(), format!("{shown} line 1: expected GAME PLY CHANCE, got '3 7'"));
        assert_eq!(out_of_range.unwrap_err(), format!("{shown} line 2: expected GAME PLY CHANCE, got '3 8 1.5'"));
        assert_eq!(not_a_number.unwrap_err(), format!("{shown} line 1: expected GAME PLY CHANCE, got '3 x 0.5'"));
    }

    #[test]
    fn the_fit_predicts_better_than_its_prior_on_held_out_games_and_is_deterministic() {
        let training = samples(&lopsided_games(60, 2)).unwrap();
        let held_out = samples(&lopsided_games(30, 3)).unwrap();
        let fitted = fit(&training, 1.0);
        let (trained, prior) = (fitness(&fitted.weights, &held_out), fitness(&fitted.prior, &held_out));
        assert!(trained.log_loss < prior.log_loss, "{trained:?} {prior:?}");
        assert!(fitness(&fitted.weights, &training).log_loss < fitness(&fitted.prior, &training).log_loss);
        assert_eq!(fit(&training, 1.0).weights, fitted.weights);
        // A huge ridge keeps the prior.
        let pinned = fit(&training, 1e9);
        assert!(pinned.weights.iter().zip(&pinned.prior).all(|(w, p)| (w - p).abs() < 1e-4));
    }

    #[test]
    fn value_files_round_trip_and_bad_files_are_refused() {
        let mut weights = vec![0.0; PARAMETERS];
        weights[5] = 1.5;
        weights[COMBINATIONS + 7] = -2.0;
        weights[CONSTANT] = 0.25;
        weights[MOVER_THREATS + 2] = 0.5;
        weights[OPPONENT_THREATS + 11] = -1.0;
        weights[CROSSING_WEIGHTS + 8 * 4 + 6] = 0.75;
        let file = weights_file(&weights, 9, "test".into());
        let decoded = ValueWeights::decode(&weights_format::encode(&file)).unwrap();
        assert_eq!(decoded.mover[5], (1.5 * UNITS_PER_LOGIT) as i32);
        assert_eq!(decoded.opponent[7], (-2.0 * UNITS_PER_LOGIT) as i32);
        assert_eq!(decoded.constant, (0.25 * UNITS_PER_LOGIT) as i32);
        assert_eq!(decoded.mover_threats[2], (0.5 * UNITS_PER_LOGIT) as i32);
        assert_eq!(decoded.opponent_threats[11], -UNITS_PER_LOGIT as i32);
        assert_eq!(decoded.crossings[8 * 4 + 6], (0.75 * UNITS_PER_LOGIT) as i32);
        assert_eq!(decoded.mover_threats.iter().chain(&decoded.opponent_threats).filter(|&&w| w != 0).count(), 2);
        // The features and the stored weights are in the same order.
        assert_eq!(logits_of(&decoded), weights);
        assert_eq!(file_logits(&file).len(), PARAMETERS);
        assert_foreign_and_damaged_files_refused(&file, ValueWeights::decode);
    }

    #[test]
    fn training_twice_from_the_same_shards_writes_the_same_bytes() {
        let dir = std::env::temp_dir().join(format!("ponder-gomoku-value-fit-{}", std::process::id()));
        let data = dir.join("data");
        write_test_shard(&data, RecordGame::Gomoku, 11, &lopsided_games(20, 5));
        let (first, second) = (dir.join("first.value"), dir.join("second.value"));
        let lines = run_train(
            &data,
            &first,
            &ValueFitOptions { ridge: 2.0, test: Some(&data), labels: None, test_labels: None },
        )
        .unwrap();
        run_train(&data, &second, &ValueFitOptions { ridge: 2.0, test: None, labels: None, test_labels: None })
            .unwrap();
        let (first, second) = (std::fs::read(first).unwrap(), std::fs::read(second).unwrap());
        let refused = run_train(
            &dir.join("missing"),
            &dir.join("third.value"),
            &ValueFitOptions { ridge: 2.0, test: None, labels: None, test_labels: None },
        );
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(first, second);
        assert!(ValueWeights::decode(&first).is_ok());
        assert!(lines.last().unwrap().starts_with("held-out, hand-set"), "{lines:?}");
        assert!(lines.iter().any(|line| line.starts_with("held-out, embedded")), "{lines:?}");
        assert!(refused.is_err());
    }
}
