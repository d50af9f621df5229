//! `ponder train --game reversi`: fits the pattern evaluation to self-play shards, stage by stage
//! from the end of the game backwards (Buro's method, as Logistello was trained).
//!
//! 1. Each position's target is its exact score where the shard has one; otherwise the value of
//!    a small alpha-beta search from it down to the last empties of the stage before, whose
//!    leaves the already fitted later stages evaluate ([`backed_up_value`]). Fitting stage 0
//!    first, then 1, and so on, every leaf lies in a stage fitted before.
//! 2. A stage's weights minimise the squared error plus a ridge penalty (`ridge` times the
//!    squared weights, in discs), solved by conjugate gradients with a diagonal
//!    preconditioner, a fixed number of iterations, all in one thread in a fixed order: the
//!    same shards give the same bytes.
//! 3. Weights are rounded to 1/[`WEIGHT_UNIT`] disc, the file's unit; the searches that label
//!    earlier stages already use the rounded weights, as play will.

use std::path::{Path, PathBuf};

use super::reversi_selfplay::{Sample, parse_sample};
use crate::games::reversi::{flipped_discs, legal_move_mask};
use crate::knowledge::reversi_eval::{Evaluator, PATTERN_WEIGHTS_PER_STAGE, WEIGHT_UNIT, weight_slot};
use crate::knowledge::reversi_patterns::{
    INSTANCES, NUMERIC_FEATURES, STAGES, instance_indices, numeric_features, stage_empties, stage_of,
};
use crate::knowledge::weights_format::{self, FNV_OFFSET, fnv1a};
use crate::search::reversi_alphabeta::final_score;

/// How the weights are fitted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitOptions {
    /// The ridge penalty per weight, in squared discs (larger: smaller weights for rare
    /// configurations).
    pub ridge: f64,
    /// Conjugate-gradient iterations per stage.
    pub iterations: usize,
    /// A stage also learns from the positions of the stages this close to it (0: its own only).
    pub stage_window: usize,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions { ridge: 10.0, iterations: 60, stage_window: 0 }
    }
}

/// The samples of every shard in `dir` (files ending `.txt`, read in name order) and the
/// FNV-1a 64 hash of their bytes in that order.
///
/// # Errors
/// A message naming the file and line that could not be read.
pub fn load_shards(dir: &Path) -> Result<(Vec<Sample>, u64, usize), String> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(format!("{}: no shards (*.txt)", dir.display()));
    }
    let mut hash = FNV_OFFSET;
    let mut samples = Vec::new();
    for path in &paths {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        hash = fnv1a(hash, text.as_bytes());
        for (number, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            samples.push(parse_sample(line).map_err(|why| format!("{}:{}: {why}", path.display(), number + 1))?);
        }
    }
    Ok((samples, hash, paths.len()))
}

/// One stage's figures after its fit.
#[derive(Clone, Debug, PartialEq)]
pub struct StageFit {
    pub stage: usize,
    pub samples: usize,
    pub exact: usize,
    /// Mean absolute difference between the evaluation and the targets, in discs.
    pub training_error: f64,
}

/// Fits every stage to `samples`; returns the evaluation and per-stage figures.
pub fn fit(samples: &[Sample], options: &FitOptions) -> (Evaluator, Vec<StageFit>) {
    let mut evaluator = Evaluator::zero();
    let mut fits = Vec::new();
    let stages: Vec<usize> = samples.iter().map(|sample| stage_of(sample.empties())).collect();
    let mut targets: Vec<Option<f64>> = samples.iter().map(|sample| sample.score.map(f64::from)).collect();
    for stage in 0..STAGES {
        // 1. This stage's unsolved positions get the value searched into the stage before.
        let leaf_empties = stage_empties(stage).start() - 1;
        for (sample, target) in samples.iter().zip(&mut targets).filter(|(s, _)| stage_of(s.empties()) == stage) {
            if target.is_none() {
                let value = backed_up_value(&evaluator, sample.player, sample.opponent, leaf_empties, -INF, INF);
                *target = Some(f64::from(value) / f64::from(WEIGHT_UNIT));
            }
        }
        // 2. The stage is fitted to its own positions and to those of the stages within
        // `stage_window` of it whose targets are known by now (all solved ones, the unsolved
        // ones of earlier stages): neighbouring stages value configurations alike, and the
        // weights of rare configurations gain data.
        let window: Vec<usize> = (0..samples.len())
            .filter(|&index| stages[index].abs_diff(stage) <= options.stage_window && targets[index].is_some())
            .collect();
        let features: Vec<Features> =
            window.iter().map(|&index| Features::of(samples[index].player, samples[index].opponent)).collect();
        let window_targets: Vec<f64> = window.iter().map(|&index| targets[index].expect("filtered")).collect();
        let weights = solve_ridge(&features, &window_targets, options);
        let mut stage_weights = evaluator.stages()[stage].clone();
        for (slot, &weight) in stage_weights.patterns.iter_mut().zip(&weights[..PATTERN_WEIGHTS_PER_STAGE]) {
            *slot = quantize(weight);
        }
        for (slot, &weight) in stage_weights.numeric.iter_mut().zip(&weights[PATTERN_WEIGHTS_PER_STAGE..]) {
            *slot = quantize(weight);
        }
        evaluator.set_stage(stage, stage_weights);
        let own: Vec<usize> = (0..samples.len()).filter(|&index| stages[index] == stage).collect();
        let training_error = mean_absolute_error(own.iter().map(|&index| {
            let sample = &samples[index];
            (evaluator.evaluate(sample.player, sample.opponent), targets[index].expect("labelled above"))
        }));
        fits.push(StageFit {
            stage,
            samples: own.len(),
            exact: own.iter().filter(|&&index| samples[index].score.is_some()).count(),
            training_error,
        });
    }
    (evaluator, fits)
}

const INF: i32 = 30_000;

/// The negamax value of (`player`, `opponent`) searched down to positions with `leaf_empties`
/// empties (or finished games), which the evaluation scores; in evaluation units.
pub fn backed_up_value(
    evaluator: &Evaluator,
    player: u64,
    opponent: u64,
    leaf_empties: u32,
    mut alpha: i32,
    beta: i32,
) -> i32 {
    let moves = legal_move_mask(player, opponent);
    if moves == 0 {
        if legal_move_mask(opponent, player) == 0 {
            return final_score(player, opponent);
        }
        return -backed_up_value(evaluator, opponent, player, leaf_empties, -beta, -alpha);
    }
    if (!(player | opponent)).count_ones() <= leaf_empties {
        return evaluator.evaluate(player, opponent);
    }
    let mut best = -INF;
    let mut remaining = moves;
    while remaining != 0 {
        let square = remaining.trailing_zeros() as usize;
        remaining &= remaining - 1;
        let flipped = flipped_discs(player, opponent, square);
        let score = -backed_up_value(
            evaluator,
            opponent & !flipped,
            player | flipped | 1 << square,
            leaf_empties,
            -beta,
            -alpha,
        );
        if score > best {
            best = score;
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
    }
    best
}

fn quantize(weight: f64) -> i16 {
    (weight * f64::from(WEIGHT_UNIT)).round().clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i16
}

fn mean_absolute_error(pairs: impl Iterator<Item = (i32, f64)>) -> f64 {
    let (sum, count) = pairs.fold((0.0, 0usize), |(sum, count), (evaluation, target)| {
        (sum + (f64::from(evaluation) / f64::from(WEIGHT_UNIT) - target).abs(), count + 1)
    });
    if count == 0 { 0.0 } else { sum / count as f64 }
}

/// One position's features: the weight slot of every pattern instance and the numeric values.
struct Features {
    slots: [u32; INSTANCES],
    numeric: [f64; NUMERIC_FEATURES],
}

impl Features {
    fn of(player: u64, opponent: u64) -> Features {
        let indices = instance_indices(player, opponent);
        let mut slots = [0u32; INSTANCES];
        for (instance, &index) in indices.iter().enumerate() {
            slots[instance] = weight_slot(instance, index) as u32;
        }
        Features { slots, numeric: numeric_features(player, opponent) }
    }

    /// The prediction of weights `w` (pattern weights, then numeric ones).
    fn dot(&self, w: &[f64]) -> f64 {
        let patterns: f64 = self.slots.iter().map(|&slot| w[slot as usize]).sum();
        let numeric: f64 = self.numeric.iter().zip(&w[PATTERN_WEIGHTS_PER_STAGE..]).map(|(x, w)| x * w).sum();
        patterns + numeric
    }

    /// Adds `scale` times this feature vector to `out`.
    fn add_to(&self, out: &mut [f64], scale: f64) {
        for &slot in &self.slots {
            out[slot as usize] += scale;
        }
        for (x, out) in self.numeric.iter().zip(&mut out[PATTERN_WEIGHTS_PER_STAGE..]) {
            *out += scale * x;
        }
    }
}

/// The ridge solution of `features · w ≈ targets` by preconditioned conjugate gradients on the
/// normal equations (XᵀX + ridge·I) w = Xᵀy.
fn solve_ridge(features: &[Features], targets: &[f64], options: &FitOptions) -> Vec<f64> {
    let unknowns = PATTERN_WEIGHTS_PER_STAGE + NUMERIC_FEATURES;
    let mut weights = vec![0.0; unknowns];
    if features.is_empty() {
        return weights;
    }
    let apply = |vector: &[f64]| -> Vec<f64> {
        let mut out: Vec<f64> = vector.iter().map(|v| v * options.ridge).collect();
        for f in features {
            f.add_to(&mut out, f.dot(vector));
        }
        out
    };
    // The diagonal of XᵀX + ridge·I.
    let mut diagonal = vec![options.ridge.max(1e-9); unknowns];
    for f in features {
        for &slot in &f.slots {
            diagonal[slot as usize] += 1.0;
        }
        for (x, d) in f.numeric.iter().zip(&mut diagonal[PATTERN_WEIGHTS_PER_STAGE..]) {
            *d += x * x;
        }
    }
    let mut residual = vec![0.0; unknowns];
    for (f, &target) in features.iter().zip(targets) {
        f.add_to(&mut residual, target);
    }
    let precondition = |r: &[f64]| -> Vec<f64> { r.iter().zip(&diagonal).map(|(r, d)| r / d).collect() };
    let dot = |a: &[f64], b: &[f64]| -> f64 { a.iter().zip(b).map(|(a, b)| a * b).sum() };
    let mut z = precondition(&residual);
    let mut direction = z.clone();
    let mut rz = dot(&residual, &z);
    for _ in 0..options.iterations {
        let applied = apply(&direction);
        let curvature = dot(&direction, &applied);
        if curvature <= 0.0 || rz <= 0.0 {
            break;
        }
        let step = rz / curvature;
        for ((w, r), (d, a)) in weights.iter_mut().zip(&mut residual).zip(direction.iter().zip(&applied)) {
            *w += step * d;
            *r -= step * a;
        }
        z = precondition(&residual);
        let next_rz = dot(&residual, &z);
        let beta = next_rz / rz;
        rz = next_rz;
        for (d, z) in direction.iter_mut().zip(&z) {
            *d = z + beta * *d;
        }
    }
    weights
}

/// Trains on the shards of `data_dir` and writes the weights file `out`; returns the report
/// lines.
///
/// # Errors
/// A message when the shards cannot be read or the file cannot be written.
pub fn run_train(data_dir: &Path, out: &Path, options: &FitOptions) -> Result<Vec<String>, String> {
    let started = std::time::Instant::now();
    let (samples, data_hash, files) = load_shards(data_dir)?;
    let exact = samples.iter().filter(|s| s.score.is_some()).count();
    let (evaluator, fits) = fit(&samples, options);
    let description = format!(
        "ponder train --game reversi --ridge {} --iterations {} --stage-window {}; data: {files} shards, {} \
         positions, {exact} exactly solved, data hash {data_hash:016x}",
        options.ridge,
        options.iterations,
        options.stage_window,
        samples.len()
    );
    let bytes = weights_format::encode(&evaluator.to_file(data_hash, &description));
    std::fs::write(out, &bytes).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut lines = vec![description];
    lines.push("stage empties positions exact training_mae_discs".to_string());
    for fit in &fits {
        let empties = stage_empties(fit.stage);
        lines.push(format!(
            "{:>5} {:>2}-{:<2} {:>9} {:>5} {:>8.2}",
            fit.stage,
            empties.start(),
            empties.end(),
            fit.samples,
            fit.exact,
            fit.training_error
        ));
    }
    lines.push(format!("wrote {} ({} bytes) in {:.1}s", out.display(), bytes.len(), started.elapsed().as_secs_f64()));
    Ok(lines)
}

/// The evaluation's mean absolute error in discs against the exact scores of `samples`, per
/// stage: (stage, solved positions, error).
pub fn stage_errors(evaluator: &Evaluator, samples: &[Sample]) -> Vec<(usize, usize, f64)> {
    (0..STAGES)
        .map(|stage| {
            let solved: Vec<(i32, f64)> = samples
                .iter()
                .filter(|s| stage_of(s.empties()) == stage)
                .filter_map(|s| s.score.map(|score| (evaluator.evaluate(s.player, s.opponent), f64::from(score))))
                .collect();
            (stage, solved.len(), mean_absolute_error(solved.into_iter()))
        })
        .filter(|&(_, count, _)| count > 0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::reversi_selfplay::{Player, shard_text};

    fn write_tiny_data(dir: &Path) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("reversi-s1-0000.txt"), shard_text(1, 0..3, 8, Player::Heuristic)).unwrap();
        std::fs::write(dir.join("reversi-s1-0001.txt"), shard_text(1, 3..6, 8, Player::Heuristic)).unwrap();
    }

    fn temporary_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ponder-train-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn training_twice_on_the_same_data_writes_identical_bytes() {
        let dir = temporary_dir("twice");
        write_tiny_data(&dir.join("data"));
        let options = FitOptions { ridge: 3.0, iterations: 8, stage_window: 1 };
        let (first, second) = (dir.join("a.weights"), dir.join("b.weights"));
        run_train(&dir.join("data"), &first, &options).unwrap();
        run_train(&dir.join("data"), &second, &options).unwrap();
        let bytes = std::fs::read(&first).unwrap();
        assert_eq!(bytes, std::fs::read(&second).unwrap());
        let (evaluator, header) = Evaluator::from_bytes(&bytes).unwrap();
        assert!(evaluator.stages().iter().any(|stage| stage.patterns.iter().any(|&w| w != 0)));
        let (_, hash, _) = load_shards(&dir.join("data")).unwrap();
        assert_eq!(header.data_hash, hash);
        // Other data, other weights and another hash.
        std::fs::write(dir.join("data").join("reversi-s1-0001.txt"), shard_text(2, 3..6, 8, Player::Heuristic))
            .unwrap();
        run_train(&dir.join("data"), &second, &options).unwrap();
        let (_, other) = Evaluator::from_bytes(&std::fs::read(&second).unwrap()).unwrap();
        assert_ne!(other.data_hash, header.data_hash);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_fit_learns_the_solved_stages() {
        // On its own training positions the fitted evaluation is far closer to the exact
        // scores than the zero evaluation.
        let dir = temporary_dir("learns");
        write_tiny_data(&dir);
        let (samples, _, files) = load_shards(&dir).unwrap();
        assert_eq!(files, 2);
        let (evaluator, _) = fit(&samples, &FitOptions::default());
        for (stage, count, error) in stage_errors(&evaluator, &samples) {
            let (_, _, zero_error) =
                stage_errors(&Evaluator::zero(), &samples).into_iter().find(|&(s, _, _)| s == stage).unwrap();
            assert!(count > 0 && error < zero_error / 2.0, "stage {stage}: {error} vs {zero_error}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_backed_up_value_to_the_end_is_the_exact_score() {
        use crate::games::Game;
        use crate::games::reversi::{Reversi, ReversiConfig};
        use crate::solvers::reversi_endgame::{SolveOptions, solve_endgame};
        use rand::SeedableRng;
        let mut rng = rand::rngs::SmallRng::seed_from_u64(12);
        for _ in 0..5 {
            let position = crate::games::testing::random_running_position(&Reversi::new(&ReversiConfig), &mut rng, 53);
            let value =
                backed_up_value(&Evaluator::zero(), position.player_discs(), position.opponent_discs(), 0, -INF, INF);
            let solved = solve_endgame(&position, &SolveOptions::default()).unwrap();
            assert_eq!(value, solved.score * WEIGHT_UNIT);
        }
    }
}
