//! `ponder train --game gomoku --model value-from-moves`: fits the position value of
//! [`crate::knowledge::gomoku_eval`] to the moves a player chose, by comparison training
//! (Tesauro's comparison paradigm, and the method of Hoki's Bonanza in computer shogi): the
//! value should rank the position after the chosen move above the positions after the moves
//! the player passed over.
//!
//! Outcome labels ([`super::gomoku_value_fit`]) say only who won a game; between players of
//! unequal strength that mostly names the stronger player, and in self-play it rewards whatever
//! decides ponder's own games. A move of a stronger player says, at every turn, which of some
//! fifty positions that player judged best.
//!
//! # Samples
//! Every choice (past the record's opening, by the player learned from: see
//! [`super::game_selfplay::load_records`]) in a position where the value stands in for a search
//! (no five for either side to make, no open four for the side to move to make). Its
//! alternatives are the other empty cells within two cells of a stone. Each move is scored, for
//! the side that made it, by the value of the position after it, with the opponent to move; a
//! move that makes a four is scored after the opponent's forced block, with the mover to move
//! again. The value is linear in the features, so each alternative is stored as its features
//! less the chosen move's.
//!
//! # The fit
//! The chosen move's probability is a softmax of the scores (in logits of the winning chance, the
//! value's own unit); the weights maximise the log-likelihood of the choices with a ridge
//! penalty `ridge * (w - prior)^2` per weight towards a prior file's weights (the embedded
//! `weights/gomoku.value` unless `--prior-weights` names another), by Newton's method. Samples
//! are read in parallel but kept in record order, and every sum runs in that order on one
//! thread, so the same data gives the same bytes.

use std::path::Path;

use rayon::prelude::*;

use super::game_selfplay::{GameRecord, RecordGame, held_out_samples, load_records};
use super::gomoku_value_fit::{
    features_of, file_logits, is_evaluated, logits_of, newton_step, solve_positive_definite, weights_file,
};
use crate::games::mnk::gomoku_threats::ThreatBoard;
use crate::games::mnk::{Cell, Mnk, MnkConfig};
use crate::games::{Color, Game, GameConfig};
use crate::knowledge::gomoku_eval::{PatternEvaluation, ValueWeights, embedded_value};
use crate::knowledge::weights_format;

/// Newton steps of the fit (the log-likelihood is concave in the weights).
const NEWTON_STEPS: usize = 8;

/// How far (in cells, in any direction) an alternative may lie from the nearest stone.
const ALTERNATIVE_REACH: usize = 2;

/// One choice: for each alternative move, its features less the chosen move's (sparse, as
/// weight index and difference), so that its score less the chosen move's is the dot product
/// with the weights.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub alternatives: Vec<Vec<(u16, f32)>>,
}

/// The features that score `cell` for `mover` (see the module doc): the value of the position
/// after it as the mover sees it. `None` for a move that makes five or a double four (no
/// evaluation stands in for those).
fn move_features(
    board: &mut ThreatBoard,
    evaluation: &mut PatternEvaluation,
    mover: Color,
    cell: Cell,
) -> Option<Vec<(usize, f64)>> {
    board.play(mover, cell);
    evaluation.play(board, cell);
    let fives: Vec<Cell> = board.five_points(mover).iter().collect();
    let features = match fives.as_slice() {
        // The opponent to move: its value, negated.
        [] => {
            Some(features_of(evaluation, mover.opponent()).into_iter().map(|(index, count)| (index, -count)).collect())
        }
        // A four: the opponent blocks, and the mover is to move again.
        &[block] => {
            board.play(mover.opponent(), block);
            evaluation.play(board, block);
            let features = features_of(evaluation, mover);
            evaluation.undo();
            board.undo();
            Some(features)
        }
        _ => None,
    };
    evaluation.undo();
    board.undo();
    features
}

/// `minuend - subtrahend` of two sparse feature lists sorted by index, zeros dropped.
fn difference(minuend: &[(usize, f64)], subtrahend: &[(usize, f64)]) -> Vec<(u16, f32)> {
    let mut result = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < minuend.len() || j < subtrahend.len() {
        let (index, value) = match (minuend.get(i), subtrahend.get(j)) {
            (Some(&(a, x)), Some(&(b, y))) if a == b => {
                i += 1;
                j += 1;
                (a, x - y)
            }
            (Some(&(a, x)), Some(&(b, _))) if a < b => {
                i += 1;
                (a, x)
            }
            (Some(&(a, x)), None) => {
                i += 1;
                (a, x)
            }
            (_, Some(&(b, y))) => {
                j += 1;
                (b, -y)
            }
            (None, None) => unreachable!("the loop runs while either list has entries"),
        };
        if value != 0.0 {
            result.push((index as u16, value as f32));
        }
    }
    result
}

/// The empty cells of `board` within [`ALTERNATIVE_REACH`] of a stone, in cell order.
fn alternatives(board: &ThreatBoard) -> Vec<Cell> {
    let (width, height) = (board.width(), board.height());
    let near = |column: usize, row: usize| {
        let columns = column.saturating_sub(ALTERNATIVE_REACH)..=(column + ALTERNATIVE_REACH).min(width - 1);
        columns.into_iter().any(|c| {
            let rows = row.saturating_sub(ALTERNATIVE_REACH)..=(row + ALTERNATIVE_REACH).min(height - 1);
            rows.into_iter().any(|r| board.stone_at(board.cell(c, r)).is_some())
        })
    };
    (0..height)
        .flat_map(|row| (0..width).map(move |column| (column, row)))
        .filter(|&(column, row)| board.is_empty(board.cell(column, row)) && near(column, row))
        .map(|(column, row)| board.cell(column, row))
        .collect()
}

/// The choices of one record (see the module doc).
///
/// # Errors
/// A message naming the first move that does not parse or is illegal.
fn record_choices(record: &GameRecord) -> Result<Vec<Choice>, String> {
    let mut config = MnkConfig::gomoku();
    config.set_size(record.size, record.size).map_err(|e| e.to_string())?;
    let mut position = Mnk::new(&config);
    let mut result = Vec::new();
    for (ply, text) in record.moves.iter().enumerate() {
        let mv = position.parse_move(text).map_err(|e| format!("game {} move {text}: {e}", record.number))?;
        let mover = position.to_move();
        if record.is_choice(ply, mover) {
            let mut board = ThreatBoard::new(&position);
            if is_evaluated(&board, mover) {
                let mut evaluation = PatternEvaluation::new(&board);
                if let Some(chosen) = move_features(&mut board, &mut evaluation, mover, mv) {
                    let alternatives: Vec<Vec<(u16, f32)>> = alternatives(&board)
                        .into_iter()
                        .filter(|&cell| cell != mv)
                        .filter_map(|cell| move_features(&mut board, &mut evaluation, mover, cell))
                        .map(|features| difference(&features, &chosen))
                        .collect();
                    if !alternatives.is_empty() {
                        result.push(Choice { alternatives });
                    }
                }
            }
        }
        position.play(mv).map_err(|e| format!("game {} move {text}: {e}", record.number))?;
    }
    Ok(result)
}

/// The choices of `records`, in record order.
///
/// # Errors
/// A message naming the first move that does not parse or is illegal.
pub fn choices(records: &[GameRecord]) -> Result<Vec<Choice>, String> {
    let per_record: Vec<Result<Vec<Choice>, String>> = records.par_iter().map(record_choices).collect();
    let mut result = Vec::new();
    for choices in per_record {
        result.extend(choices?);
    }
    Ok(result)
}

/// Each alternative's score less the chosen move's.
fn score_differences(weights: &[f64], choice: &Choice) -> Vec<f64> {
    choice
        .alternatives
        .iter()
        .map(|difference| difference.iter().map(|&(index, value)| weights[usize::from(index)] * f64::from(value)).sum())
        .collect()
}

/// The softmax probabilities of the alternatives (the chosen move's is what is left), from
/// their score differences.
fn probabilities(differences: &[f64]) -> Vec<f64> {
    let top = differences.iter().copied().fold(0.0, f64::max);
    let exponentials: Vec<f64> = differences.iter().map(|d| (d - top).exp()).collect();
    let total = (-top).exp() + exponentials.iter().sum::<f64>();
    exponentials.iter().map(|e| e / total).collect()
}

/// The negative log-likelihood of one choice.
fn choice_loss(differences: &[f64]) -> f64 {
    let top = differences.iter().copied().fold(0.0, f64::max);
    top + ((-top).exp() + differences.iter().map(|d| (d - top).exp()).sum::<f64>()).ln()
}

/// How well weights (in logits) predict the choices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChoiceFitness {
    /// Mean negative log-likelihood per choice (nats).
    pub log_loss: f64,
    /// The share of choices whose move scores above every alternative (a tie shares the
    /// credit).
    pub top_one: f64,
    /// The mean number of alternatives per choice.
    pub alternatives: f64,
}

pub fn fitness(weights: &[f64], choices: &[Choice]) -> ChoiceFitness {
    let (mut loss, mut top, mut alternatives) = (0.0, 0.0, 0.0);
    for choice in choices {
        let differences = score_differences(weights, choice);
        loss += choice_loss(&differences);
        if differences.iter().all(|&d| d <= 0.0) {
            top += 1.0 / (1.0 + differences.iter().filter(|&&d| d == 0.0).count() as f64);
        }
        alternatives += choice.alternatives.len() as f64;
    }
    let count = choices.len().max(1) as f64;
    ChoiceFitness { log_loss: loss / count, top_one: top / count, alternatives: alternatives / count }
}

/// The penalised negative log-likelihood the fit minimises.
fn objective(weights: &[f64], prior: &[f64], choices: &[Choice], ridge: f64) -> f64 {
    let penalty: f64 = weights.iter().zip(prior).map(|(w, p)| ridge * (w - p) * (w - p)).sum();
    choices.iter().map(|choice| choice_loss(&score_differences(weights, choice))).sum::<f64>() + penalty
}

/// Fits the weights (logits) to `choices` from `prior` with `ridge` per weight towards it.
pub fn fit(choices: &[Choice], prior: &[f64], ridge: f64) -> Vec<f64> {
    let n = prior.len();
    let mut weights = prior.to_vec();
    let mut mean = vec![0.0; n];
    let mut touched: Vec<usize> = Vec::new();
    for _ in 0..NEWTON_STEPS {
        let mut gradient: Vec<f64> = weights.iter().zip(prior).map(|(w, p)| 2.0 * ridge * (w - p)).collect();
        let mut hessian = vec![0.0; n * n];
        for i in 0..n {
            hessian[i * n + i] = 2.0 * ridge;
        }
        for choice in choices {
            let probabilities = probabilities(&score_differences(&weights, choice));
            // The gradient of log(1 + sum exp(w.d)) is the expected difference; its Hessian
            // the differences' covariance: E[d d'] - E[d] E[d]'.
            for (difference, &p) in choice.alternatives.iter().zip(&probabilities) {
                for &(i, xi) in difference {
                    let i = usize::from(i);
                    if mean[i] == 0.0 {
                        touched.push(i);
                    }
                    mean[i] += p * f64::from(xi);
                    for &(j, xj) in difference {
                        hessian[i * n + usize::from(j)] += p * f64::from(xi) * f64::from(xj);
                    }
                }
            }
            touched.sort_unstable();
            touched.dedup();
            for &i in &touched {
                gradient[i] += mean[i];
                for &j in &touched {
                    hessian[i * n + j] -= mean[i] * mean[j];
                }
            }
            for &i in &touched {
                mean[i] = 0.0;
            }
            touched.clear();
        }
        let step = solve_positive_definite(hessian, gradient, n);
        weights = newton_step(weights, &step, |trial| objective(trial, prior, choices, ridge));
    }
    weights
}

fn describe(name: &str, fitness: ChoiceFitness) -> String {
    format!(
        "{name}: log-loss {:.4}, chosen move scored best {:.1}% (of {:.1} moves on average)",
        fitness.log_loss,
        100.0 * fitness.top_one,
        fitness.alternatives + 1.0
    )
}

/// What `run_train` is asked to do beyond its data and output.
pub struct MoveValueOptions<'a> {
    pub ridge: f64,
    /// Learn only this player's moves (see [`load_records`]).
    pub learn_from: Option<&'a str>,
    /// The weights to start from and draw towards (the embedded value when `None`).
    pub prior_weights: Option<&'a Path>,
    /// Held-out records to report on.
    pub test: Option<&'a Path>,
}

/// Fits the value to the choices of the records of `data` and writes the weights file `out`.
/// Returns the report lines.
///
/// # Errors
/// A message when the records or the prior cannot be read, they hold no choice, or the file
/// cannot be written.
pub fn run_train(data: &Path, out: &Path, options: &MoveValueOptions) -> Result<Vec<String>, String> {
    let prior = match options.prior_weights {
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            logits_of(&ValueWeights::decode(&bytes).map_err(|e| format!("{}: {e}", path.display()))?)
        }
        None => logits_of(embedded_value().map_err(|e| format!("the embedded value: {e}"))?),
    };
    let (records, hash, files) = load_records(RecordGame::Gomoku, data, options.learn_from)?;
    let training = choices(&records)?;
    if training.is_empty() {
        return Err(format!("{}: no choice in a position the value stands in for", data.display()));
    }
    let weights = fit(&training, &prior, options.ridge);
    let description = format!(
        "ponder train --game gomoku --model value-from-moves --ridge {}{}: {} games in {files} files, {} choices, \
         {NEWTON_STEPS} Newton steps from {}",
        options.ridge,
        options.learn_from.map(|name| format!(" --learn-from {name}")).unwrap_or_default(),
        records.len(),
        training.len(),
        options.prior_weights.map_or("the embedded value".to_string(), |path| path.display().to_string()),
    );
    let file = weights_file(&weights, hash, description.clone());
    std::fs::write(out, weights_format::encode(&file)).map_err(|e| format!("{}: {e}", out.display()))?;
    let stored = file_logits(&file);
    let mut lines = vec![
        format!("{}: {description}, data hash {hash:016x}", out.display()),
        describe("training, trained", fitness(&stored, &training)),
        describe("training, prior", fitness(&prior, &training)),
    ];
    if let Some(test) = options.test {
        let (held_out, header) = held_out_samples(RecordGame::Gomoku, test, options.learn_from, "choices", choices)?;
        lines.push(header);
        lines.push(describe("held-out, trained", fitness(&stored, &held_out)));
        lines.push(describe("held-out, prior", fitness(&prior, &held_out)));
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::game_selfplay::scripted_gomoku_games;
    use crate::train::gomoku_value_fit::PARAMETERS;
    use rand::Rng;

    /// Games on 11x11 where Black, the player learned from, plays the cell best for its own
    /// lines and half as good for White's (the hand-set cell scores), and White plays next to a
    /// stone at random, until a five or 50 moves.
    fn greedy_black_games(count: usize, seed: u64) -> Vec<GameRecord> {
        let games = scripted_gomoku_games(count, seed, None, 50, |position, legal, rng| {
            let board = ThreatBoard::new(position);
            let evaluation = PatternEvaluation::new(&board);
            let near = alternatives(&board);
            let pool = if near.is_empty() { legal } else { &near };
            let worth =
                |cell: Cell| 2 * evaluation.cell_score(Color::Black, cell) + evaluation.cell_score(Color::White, cell);
            if position.to_move() == Color::Black {
                *pool.iter().max_by_key(|&&cell| (worth(cell), cell.0)).unwrap()
            } else {
                pool[rng.random_range(0..pool.len())]
            }
        });
        games.into_iter().map(|game| GameRecord { chooser: Some(Color::Black), ..game }).collect()
    }

    fn gomoku(moves: &[&str]) -> Mnk {
        let mut position = Mnk::new(&MnkConfig::gomoku());
        for text in moves {
            let mv = position.parse_move(text).unwrap();
            position.play(mv).unwrap();
        }
        position
    }

    #[test]
    fn a_four_is_scored_after_the_forced_block_and_a_quiet_move_by_the_opponents_value() {
        // Black has three in a row on row 8 (G8 H8 J8) with K8 and F8 open; White is scattered.
        let position = gomoku(&["G8", "C3", "H8", "C13", "J8", "N3"]);
        let mut board = ThreatBoard::new(&position);
        let mut evaluation = PatternEvaluation::new(&board);
        let cell = |text: &str| position.parse_move(text).unwrap();
        // K8 makes an open four: no evaluation stands in for it.
        assert_eq!(move_features(&mut board, &mut evaluation, Color::Black, cell("K8")), None);
        // L8 makes a four whose only five is K8: White blocks there, Black is to move again.
        let four = move_features(&mut board, &mut evaluation, Color::Black, cell("L8")).unwrap();
        let after_block = gomoku(&["G8", "C3", "H8", "C13", "J8", "N3", "L8", "K8"]);
        let expected = features_of(&PatternEvaluation::new(&ThreatBoard::new(&after_block)), Color::Black);
        assert_eq!(four, expected);
        // A quiet move: the value of the position for White, negated.
        let quiet = move_features(&mut board, &mut evaluation, Color::Black, cell("H10")).unwrap();
        let after = gomoku(&["G8", "C3", "H8", "C13", "J8", "N3", "H10"]);
        let white: Vec<(usize, f64)> = features_of(&PatternEvaluation::new(&ThreatBoard::new(&after)), Color::White)
            .into_iter()
            .map(|(index, count)| (index, -count))
            .collect();
        assert_eq!(quiet, white);
        // The trials left the board and the evaluation as they were.
        assert_eq!(features_of(&evaluation, Color::Black), features_of(&PatternEvaluation::new(&board), Color::Black));
        assert_eq!(board.stone_count(), 6);
    }

    #[test]
    fn differences_subtract_sparse_lists_and_drop_zeros() {
        let minuend = [(1, 2.0), (4, 1.0), (7, 3.0)];
        let subtrahend = [(0, 1.0), (4, 1.0), (7, 1.0), (9, -2.0)];
        assert_eq!(difference(&minuend, &subtrahend), [(0, -1.0), (1, 2.0), (7, 2.0), (9, 2.0)]);
    }

    #[test]
    fn the_fit_learns_a_players_choices_and_predicts_held_out_ones() {
        let training = choices(&greedy_black_games(80, 1)).unwrap();
        let held_out = choices(&greedy_black_games(40, 2)).unwrap();
        assert!(training.len() > 150, "{}", training.len());
        // Only Black's moves are choices, each with its alternatives near the stones.
        let black_moves: usize = greedy_black_games(80, 1).iter().map(|r| (r.moves.len() - 1).div_ceil(2)).sum();
        assert!(training.len() <= black_moves);
        // From a value of zero (every move alike) the fit learns what Black prefers.
        let zero = vec![0.0; PARAMETERS];
        let weights = fit(&training, &zero, 1.0);
        let (trained, prior) = (fitness(&weights, &held_out), fitness(&zero, &held_out));
        assert!(trained.log_loss < prior.log_loss - 1.0, "{trained:?} {prior:?}");
        assert!(trained.top_one > 0.3 && trained.top_one > 5.0 * prior.top_one, "{trained:?} {prior:?}");
        assert_eq!(fit(&training, &zero, 1.0), weights, "the same data gives the same weights");
        // A huge ridge keeps the prior.
        let pinned = fit(&training, &zero, 1e9);
        assert!(pinned.iter().all(|w| w.abs() < 1e-4));
    }

    #[test]
    fn training_twice_from_the_same_records_writes_the_same_bytes() {
        use super::super::game_selfplay::write_test_shard;
        let dir = std::env::temp_dir().join(format!("ponder-gomoku-move-value-fit-{}", std::process::id()));
        let data = dir.join("data");
        write_test_shard(&data, RecordGame::Gomoku, 11, &greedy_black_games(10, 5));
        let options = MoveValueOptions { ridge: 5.0, learn_from: None, prior_weights: None, test: Some(&data) };
        let (first, second) = (dir.join("first.value"), dir.join("second.value"));
        let lines = run_train(&data, &first, &options).unwrap();
        run_train(&data, &second, &MoveValueOptions { test: None, ..options }).unwrap();
        // The first file as the prior of another fit; a file that is not a value is refused.
        let from_file = MoveValueOptions { prior_weights: Some(&first), test: None, ..options };
        let refit = run_train(&data, &dir.join("third.value"), &from_file);
        let not_a_value = MoveValueOptions { prior_weights: Some(&data), test: None, ..options };
        let refused_prior = run_train(&data, &dir.join("fourth.value"), &not_a_value);
        let refused_data = run_train(&dir.join("missing"), &dir.join("fifth.value"), &options);
        let (first, second) = (std::fs::read(first).unwrap(), std::fs::read(second).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(first, second);
        assert!(ValueWeights::decode(&first).is_ok());
        assert!(refit.is_ok(), "{refit:?}");
        assert!(refused_prior.is_err() && refused_data.is_err());
        assert!(lines.last().unwrap().starts_with("held-out, prior"), "{lines:?}");
    }
}
