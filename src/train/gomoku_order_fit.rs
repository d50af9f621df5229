//! `ponder train --game gomoku --model order`: fits the move order of
//! [`crate::knowledge::gomoku_order`] to the moves players chose in quiet positions, as a
//! softmax over the candidates (multinomial logistic regression) with a ridge penalty, by
//! damped diagonal Newton steps. Deterministic: one thread, positions in file order.
//!
//! A choice counts where the alpha-beta search orders its moves by score and may leave some
//! out: freestyle, no five to make or to block, no open four for either side to make (those
//! nodes search forced moves, all of them), and the chosen move among the candidates (the
//! empty cells within two of a stone).

use std::path::Path;

use super::bradley_terry::share_within;
use super::game_selfplay::{GameRecord, RecordGame, held_out_samples, load_records};
use super::gomoku_fit::for_each_choice;
use crate::games::Game;
use crate::games::mnk::Mnk;
use crate::games::mnk::gomoku_threats::ThreatBoard;
use crate::knowledge::gomoku_eval::PatternEvaluation;
use crate::knowledge::gomoku_order::{
    GAME, ORDER_FEATURE_SET, ORDER_TABLE_SIZES, ORDER_UNIT, OrderFeatures, embedded_order, order_features,
};
use crate::knowledge::weights_format::{self, WeightsFile, WeightsHeader};
use crate::search::gomoku_alphabeta::hand_set_move_score;

/// Weights a candidate's score sums: four windows a colour, one combination a colour.
const TERMS: usize = 10;

/// Newton steps of a fit.
const NEWTON_STEPS: usize = 60;

/// Where each table starts in the flat weight vector.
const TABLE_STARTS: [usize; 4] = {
    let mut starts = [0; 4];
    let mut t = 1;
    while t < 4 {
        starts[t] = starts[t - 1] + ORDER_TABLE_SIZES[t - 1];
        t += 1;
    }
    starts
};

/// All weights.
const WEIGHT_COUNT: usize = TABLE_STARTS[3] + ORDER_TABLE_SIZES[3];

/// One choice: its candidates' weight indices and their hand-set scores, the chosen one's
/// index.
struct Choice {
    terms: Vec<[u16; TERMS]>,
    hand_set: Vec<i32>,
    chosen: usize,
}

fn terms_of(features: &OrderFeatures) -> [u16; TERMS] {
    let mut terms = [0u16; TERMS];
    for direction in 0..4 {
        terms[direction] = (TABLE_STARTS[0] + usize::from(features.windows[0][direction])) as u16;
        terms[4 + direction] = (TABLE_STARTS[1] + usize::from(features.windows[1][direction])) as u16;
    }
    terms[8] = (TABLE_STARTS[2] + usize::from(features.combinations[0])) as u16;
    terms[9] = (TABLE_STARTS[3] + usize::from(features.combinations[1])) as u16;
    terms
}

/// Whether the search orders the moves of `board` with the side to move `side` by score: a
/// quiet position (see the module doc).
fn is_quiet(board: &ThreatBoard, position: &Mnk) -> bool {
    let (side, opponent) = (position.to_move(), position.to_move().opponent());
    board.five_points(side).is_empty()
        && board.five_points(opponent).is_empty()
        && board.winning_four_points(side).is_empty()
        && board.winning_four_points(opponent).is_empty()
}

/// The choices of `records` (see the module doc).
///
/// # Errors
/// A message naming the first move that does not parse or is illegal.
fn choices(records: &[GameRecord]) -> Result<Vec<Choice>, String> {
    let mut result = Vec::new();
    for record in records {
        for_each_choice(record, |position, candidates, chosen| {
            let Some(chosen) = chosen else { return };
            let board = ThreatBoard::new(position);
            // The first stone has no quiet node to order: the search plays the centre.
            if board.stone_count() == 0 || !is_quiet(&board, position) {
                return;
            }
            let evaluation = PatternEvaluation::new(&board);
            let to_move = position.to_move();
            result.push(Choice {
                terms: candidates
                    .iter()
                    .map(|&cell| terms_of(&order_features(&board, &evaluation, to_move, cell)))
                    .collect(),
                hand_set: candidates.iter().map(|&cell| hand_set_move_score(&evaluation, to_move, cell)).collect(),
                chosen,
            });
        })?;
    }
    Ok(result)
}

fn score(weights: &[f64], terms: &[u16; TERMS]) -> f64 {
    terms.iter().map(|&t| weights[usize::from(t)]).sum()
}

/// The mean negative log-likelihood of the chosen moves, in nats.
fn loss(weights: &[f64], data: &[Choice]) -> f64 {
    let total: f64 = data
        .iter()
        .map(|choice| {
            let scores: Vec<f64> = choice.terms.iter().map(|terms| score(weights, terms)).collect();
            let most = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let sum: f64 = scores.iter().map(|s| (s - most).exp()).sum();
            most + sum.ln() - scores[choice.chosen]
        })
        .sum();
    total / data.len().max(1) as f64
}

/// The penalised objective: the total negative log-likelihood plus `ridge` times the sum of
/// squared weights.
fn objective(weights: &[f64], data: &[Choice], ridge: f64) -> f64 {
    loss(weights, data) * data.len() as f64 + ridge * weights.iter().map(|w| w * w).sum::<f64>()
}

/// Fits the weights (in nats) by damped diagonal Newton steps: each step moves every weight
/// by its gradient over its curvature, halved until the objective falls.
fn fit(data: &[Choice], ridge: f64) -> Vec<f64> {
    let mut weights = vec![0.0; WEIGHT_COUNT];
    let mut current = objective(&weights, data, ridge);
    let mut step_size = 1.0;
    let (mut expected, mut touched) = (vec![0.0; WEIGHT_COUNT], Vec::new());
    for _ in 0..NEWTON_STEPS {
        let mut gradient: Vec<f64> = weights.iter().map(|w| -2.0 * ridge * w).collect();
        let mut curvature = vec![2.0 * ridge; WEIGHT_COUNT];
        for choice in data {
            let scores: Vec<f64> = choice.terms.iter().map(|terms| score(&weights, terms)).collect();
            let most = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let exps: Vec<f64> = scores.iter().map(|s| (s - most).exp()).collect();
            let sum: f64 = exps.iter().sum();
            for &term in &choice.terms[choice.chosen] {
                gradient[usize::from(term)] += 1.0;
            }
            // Per weight: the expected count under the softmax, and the expected square (a
            // count squared as the sum of the odd numbers up to it: 1 for a weight's first
            // occurrence in the candidate, 3 for its second, ...).
            for (terms, e) in choice.terms.iter().zip(&exps) {
                let p = e / sum;
                for (index, &term) in terms.iter().enumerate() {
                    let t = usize::from(term);
                    if expected[t] == 0.0 {
                        touched.push(t);
                    }
                    expected[t] += p;
                    let earlier = terms[..index].iter().filter(|&&other| other == term).count() as f64;
                    curvature[t] += p * (2.0 * earlier + 1.0);
                }
            }
            for &t in &touched {
                gradient[t] -= expected[t];
                curvature[t] -= expected[t] * expected[t];
                expected[t] = 0.0;
            }
            touched.clear();
        }
        loop {
            let trial: Vec<f64> = weights
                .iter()
                .zip(gradient.iter().zip(&curvature))
                .map(|(w, (g, c))| w + step_size * g / c.max(1e-9))
                .collect();
            let value = objective(&trial, data, ridge);
            if value <= current {
                weights = trial;
                current = value;
                step_size = (step_size * 2.0).min(1.0);
                break;
            }
            step_size /= 2.0;
            if step_size < 1e-6 {
                return weights;
            }
        }
    }
    weights
}

/// The weights file of fitted `weights` (nats, rounded to [`ORDER_UNIT`]s).
fn weights_file(weights: &[f64], data_hash: u64, description: String) -> WeightsFile {
    let tables = (0..4)
        .map(|t| {
            weights[TABLE_STARTS[t]..TABLE_STARTS[t] + ORDER_TABLE_SIZES[t]]
                .iter()
                .map(|w| (w * ORDER_UNIT).round().clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i16)
                .collect()
        })
        .collect();
    WeightsFile {
        header: WeightsHeader { game: GAME.into(), feature_set: ORDER_FEATURE_SET.into(), data_hash, description },
        tables,
    }
}

/// How often the chosen move is among a ranking's first 1, 5, 12 and 20 (ties split evenly).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Ranks {
    pub positions: usize,
    pub within: [f64; 4],
}

/// The ranks [`Ranks`] counts.
const RANKS: [usize; 4] = [1, 5, 12, 20];

impl Ranks {
    fn add(&mut self, scores: &[f64], chosen: usize) {
        self.positions += 1;
        for (within, k) in self.within.iter_mut().zip(RANKS) {
            *within += share_within(scores, chosen, k);
        }
    }

    fn describe(&self, name: &str) -> String {
        let n = self.positions.max(1) as f64;
        let shares: Vec<String> =
            self.within.iter().zip(RANKS).map(|(w, k)| format!("top-{k} {:.1}%", 100.0 * w / n)).collect();
        format!("{name}: {}", shares.join(", "))
    }
}

/// The ranks of `weights` (nats) and of the hand-set order on `data`.
fn ranks(weights: &[f64], data: &[Choice]) -> (Ranks, Ranks) {
    let (mut learned, mut hand_set) = (Ranks::default(), Ranks::default());
    for choice in data {
        let scores: Vec<f64> = choice.terms.iter().map(|terms| score(weights, terms)).collect();
        learned.add(&scores, choice.chosen);
        let hand: Vec<f64> = choice.hand_set.iter().map(|&s| f64::from(s)).collect();
        hand_set.add(&hand, choice.chosen);
    }
    (learned, hand_set)
}

/// The weights (nats) a file holds.
fn file_weights(file: &WeightsFile) -> Vec<f64> {
    file.tables.iter().flatten().map(|&w| f64::from(w) / ORDER_UNIT).collect()
}

fn embedded_weights() -> Option<Vec<f64>> {
    embedded_order().ok().map(|weights| weights.tables.iter().flatten().map(|&w| f64::from(w) / ORDER_UNIT).collect())
}

/// Fits the order to the choices of the player named `learn_from` (all moves when `None`) in
/// the records of `data` with `ridge`, writes the weights file `out`, and with `test` reports
/// the ranks on those held-out records. Returns the report lines.
///
/// # Errors
/// A message when the records cannot be read, hold no choice, or the file cannot be written.
pub fn run_train(
    data: &Path,
    out: &Path,
    ridge: f64,
    learn_from: Option<&str>,
    test: Option<&Path>,
) -> Result<Vec<String>, String> {
    let (records, hash, files) = load_records(RecordGame::Gomoku, data, learn_from)?;
    let training = choices(&records)?;
    if training.is_empty() {
        return Err(format!("{}: no quiet position with a chosen candidate", data.display()));
    }
    let weights = fit(&training, ridge);
    let description = format!(
        "ponder train --game gomoku --model order --ridge {ridge}{}: {} games in {files} files, {} choices, {NEWTON_STEPS} \
         Newton steps",
        learn_from.map(|name| format!(" --learn-from {name}")).unwrap_or_default(),
        records.len(),
        training.len(),
    );
    let file = weights_file(&weights, hash, description.clone());
    std::fs::write(out, weights_format::encode(&file)).map_err(|e| format!("{}: {e}", out.display()))?;
    let stored = file_weights(&file);
    let (learned, hand_set) = ranks(&stored, &training);
    let mut lines = vec![
        format!("{}: {description}, data hash {hash:016x}", out.display()),
        format!("training: log-loss {:.4} nats a choice", loss(&stored, &training)),
        learned.describe("training, trained"),
        hand_set.describe("training, hand-set"),
    ];
    if let Some(test) = test {
        let (held_out, header) = held_out_samples(RecordGame::Gomoku, test, learn_from, "choices", choices)?;
        lines.push(header);
        lines.push(format!("held-out: log-loss {:.4} nats a choice", loss(&stored, &held_out)));
        let (learned, hand_set) = ranks(&stored, &held_out);
        lines.push(learned.describe("held-out, trained"));
        if let Some(embedded) = embedded_weights() {
            lines.push(ranks(&embedded, &held_out).0.describe("held-out, embedded (weights/gomoku.order)"));
        }
        lines.push(hand_set.describe("held-out, hand-set"));
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Color;
    use crate::games::mnk::Cell;
    use crate::games::mnk::gomoku_threats::LINE_DIRECTIONS;
    use crate::knowledge::gomoku_order::OrderWeights;
    use crate::knowledge::gomoku_patterns::is_candidate;
    use crate::knowledge::weights_format;
    use crate::train::game_selfplay::{scripted_gomoku_games, write_test_shard};
    use rand::Rng;

    /// Whether a `color` stone touches `cell` along a line.
    fn touches_own_stone(position: &Mnk, color: Color, cell: Cell) -> bool {
        let (width, height) = (position.width() as i32, position.height() as i32);
        let (x, y) = (i32::from(cell.0) % width, i32::from(cell.0) / width);
        LINE_DIRECTIONS.iter().flat_map(|&(dx, dy)| [(dx, dy), (-dx, -dy)]).any(|(dx, dy)| {
            let (nx, ny) = (x + dx, y + dy);
            (0..width).contains(&nx)
                && (0..height).contains(&ny)
                && position.stone_at(position.cell(nx as usize, ny as usize)) == Some(color)
        })
    }

    /// Games on 11x11 where each side plays next to one of its own stones when it can,
    /// elsewhere near the stones at random: a preference the windows show.
    fn touching_games(count: usize, seed: u64) -> Vec<GameRecord> {
        scripted_gomoku_games(count, seed, Some("F6"), 30, |position, legal, rng| {
            let candidates: Vec<Cell> =
                legal.iter().copied().filter(|&cell| is_candidate(position, cell, false)).collect();
            let side = position.to_move();
            let touching: Vec<Cell> =
                candidates.iter().copied().filter(|&cell| touches_own_stone(position, side, cell)).collect();
            let pool = if touching.is_empty() { &candidates } else { &touching };
            pool[rng.random_range(0..pool.len())]
        })
    }

    #[test]
    fn the_fit_finds_the_players_preference_and_lowers_the_loss() {
        let training = choices(&touching_games(60, 5)).unwrap();
        assert!(training.len() > 250, "{}", training.len());
        let weights = fit(&training, 1.0);
        let neutral = vec![0.0; WEIGHT_COUNT];
        assert!(loss(&weights, &training) < loss(&neutral, &training) - 0.3);
        // On other games of the same player the learned order ranks its move first far more
        // often than chance (every candidate tied).
        let held_out = choices(&touching_games(10, 6)).unwrap();
        let (learned, _) = ranks(&weights, &held_out);
        let (chance, _) = ranks(&neutral, &held_out);
        assert!(learned.within[0] > 2.0 * chance.within[0], "{learned:?} {chance:?}");
        assert!(loss(&weights, &held_out) < loss(&neutral, &held_out));
    }

    #[test]
    fn training_twice_writes_the_same_bytes_and_the_file_reads_back() {
        let dir = std::env::temp_dir().join(format!("ponder-gomoku-order-fit-{}", std::process::id()));
        let data = dir.join("data");
        write_test_shard(&data, RecordGame::Gomoku, 11, &touching_games(12, 7));
        let (first, second) = (dir.join("first.order"), dir.join("second.order"));
        let lines = run_train(&data, &first, 1.0, None, Some(&data)).unwrap();
        run_train(&data, &second, 1.0, None, None).unwrap();
        let (first_bytes, second_bytes) = (std::fs::read(&first).unwrap(), std::fs::read(&second).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(first_bytes, second_bytes);
        assert!(lines.iter().any(|line| line.starts_with("held-out, trained: top-1")), "{lines:?}");
        let weights = OrderWeights::decode(&first_bytes).unwrap();
        let file = weights_format::decode(&first_bytes, GAME, ORDER_FEATURE_SET, &ORDER_TABLE_SIZES).unwrap();
        assert_eq!(weights, OrderWeights::from_file(&file));
        assert!(weights.tables.iter().flatten().any(|&w| w != 0));
        // A file of another feature set is refused.
        let mut foreign = file.clone();
        foreign.header.feature_set = "gomoku-something-else".into();
        assert!(OrderWeights::decode(&weights_format::encode(&foreign)).is_err());
    }

    #[test]
    fn retraining_from_the_kept_games_writes_the_shipped_weights() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let data = root.join("weights/data/gomoku-rapfi-selfplay");
        let out = std::env::temp_dir().join(format!("ponder-gomoku-order-retrain-{}.order", std::process::id()));
        let lines = run_train(&data.join("train"), &out, 1.0, None, None).unwrap();
        let written = std::fs::read(&out).unwrap();
        std::fs::remove_file(&out).unwrap();
        assert!(lines[0].contains(": 840 games in 1 files, 13121 choices"), "{lines:?}");
        assert!(written == std::fs::read(root.join("weights/gomoku.order")).unwrap(), "retrained weights differ");
    }
}
