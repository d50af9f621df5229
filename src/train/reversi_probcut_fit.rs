//! `ponder probcut-fit --game reversi`: measures how well a shallow search predicts a deep one
//! and writes ProbCut's table ([`crate::search::reversi_probcut`] documents the format).
//!
//! Positions are taken at an even stride from the self-play shards (those with at least
//! [`FIRST_EMPTIES`] empties), each searched to every depth up to the deepest asked for by the
//! midgame search itself (full window, no ProbCut, the embedded evaluation). For every group of
//! [`GROUP_EMPTIES`] empties and every depth, a least-squares line predicts the deep score from
//! the shallow one ([`shallow_depth`]); the spread of its errors is the cut's sigma. Everything
//! runs on one thread in a fixed order, so the same shards give the same bytes.

use std::path::Path;

use crate::knowledge::reversi_eval::{Evaluator, WEIGHT_UNIT};
use crate::search::reversi_alphabeta::scores_by_depth;
use crate::search::reversi_probcut::{CutFit, MAX_CUT_DEPTH, MIN_CUT_DEPTH, ProbCut, TABLE_HEADER, shallow_depth};
use crate::train::reversi_fit::load_shards;
use crate::train::reversi_selfplay::Sample;

/// Positions with fewer empties are left to the endgame solver in play.
pub const FIRST_EMPTIES: u32 = 13;

/// Empties per group of fits: the prediction's error grows as the board fills less.
pub const GROUP_EMPTIES: u32 = 8;

/// A fit needs at least this many positions.
const MIN_POSITIONS: usize = 30;

/// What `ponder probcut-fit` is asked to do.
#[derive(Clone, Debug)]
pub struct ProbCutFitOptions {
    /// About this many positions are searched.
    pub positions: usize,
    /// The deepest search fitted.
    pub max_depth: u32,
}

/// The (first, last) empties of the group holding `empties`.
fn group_of(empties: u32) -> (u32, u32) {
    let first = FIRST_EMPTIES + (empties - FIRST_EMPTIES) / GROUP_EMPTIES * GROUP_EMPTIES;
    (first, (first + GROUP_EMPTIES - 1).min(60))
}

/// Every `stride`-th sample with enough empties, about `count` in all, in the shards' order.
fn chosen_positions(samples: &[Sample], count: usize) -> Vec<Sample> {
    let eligible: Vec<&Sample> = samples.iter().filter(|sample| sample.empties() >= FIRST_EMPTIES).collect();
    let stride = (eligible.len() / count.max(1)).max(1);
    eligible.into_iter().step_by(stride).take(count).copied().collect()
}

/// The least-squares line y ≈ slope · x + intercept through `pairs` and the standard deviation
/// of its errors: (slope, intercept, sigma). A constant `x` gives slope 1.
pub fn fit_line(pairs: &[(f64, f64)]) -> (f64, f64, f64) {
    let n = pairs.len() as f64;
    let mean_x = pairs.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = pairs.iter().map(|p| p.1).sum::<f64>() / n;
    let covariance: f64 = pairs.iter().map(|(x, y)| (x - mean_x) * (y - mean_y)).sum();
    let variance: f64 = pairs.iter().map(|(x, _)| (x - mean_x) * (x - mean_x)).sum();
    let slope = if variance > 0.0 { covariance / variance } else { 1.0 };
    let intercept = mean_y - slope * mean_x;
    let squared_errors: f64 = pairs.iter().map(|(x, y)| (y - slope * x - intercept).powi(2)).sum();
    (slope, intercept, (squared_errors / n).sqrt())
}

/// The fits from each position's empties and its scores by depth (index = depth, evaluation
/// units), one per group and depth with enough positions, in group then depth order.
pub fn fit_cuts(measured: &[(u32, Vec<i32>)], max_depth: u32) -> Vec<CutFit> {
    let mut groups: Vec<(u32, u32)> = measured.iter().map(|(empties, _)| group_of(*empties)).collect();
    groups.sort_unstable();
    groups.dedup();
    let unit = f64::from(WEIGHT_UNIT);
    let mut fits = Vec::new();
    for (first, last) in groups {
        for depth in MIN_CUT_DEPTH..=max_depth {
            let shallow = shallow_depth(depth);
            // Only searches that stop short of the end: ProbCut is never tried beyond it.
            let pairs: Vec<(f64, f64)> = measured
                .iter()
                .filter(|(empties, scores)| {
                    group_of(*empties) == (first, last) && depth < *empties && scores.len() > depth as usize
                })
                .map(|(_, scores)| {
                    (f64::from(scores[shallow as usize]) / unit, f64::from(scores[depth as usize]) / unit)
                })
                .collect();
            if pairs.len() < MIN_POSITIONS {
                continue;
            }
            let (slope, intercept, sigma) = fit_line(&pairs);
            if slope <= 0.0 {
                continue;
            }
            let positions = pairs.len();
            fits.push(CutFit {
                first_empties: first,
                last_empties: last,
                depth,
                shallow,
                slope,
                intercept,
                sigma,
                positions,
            });
        }
    }
    fits
}

/// The table file's text for `fits`, its first line saying how it was made.
pub fn table_text(description: &str, fits: &[CutFit]) -> String {
    let mut text = format!("{TABLE_HEADER}: {description}\n");
    text.push_str("# first_empties last_empties depth shallow slope intercept_discs sigma_discs positions\n");
    for fit in fits {
        text.push_str(&fit.to_line());
        text.push('\n');
    }
    text
}

/// Measures and fits from the shards of `data_dir` with `evaluator` and writes the table
/// `out`; returns the report lines.
///
/// # Errors
/// A message when the options are out of range, the shards cannot be read or the table cannot
/// be written.
pub fn run_probcut_fit(
    data_dir: &Path,
    out: &Path,
    evaluator: &Evaluator,
    options: &ProbCutFitOptions,
) -> Result<Vec<String>, String> {
    if !(MIN_CUT_DEPTH..=MAX_CUT_DEPTH).contains(&options.max_depth) {
        return Err(format!("--max-depth {}: expected {MIN_CUT_DEPTH} to {MAX_CUT_DEPTH}", options.max_depth));
    }
    let started = std::time::Instant::now();
    let (samples, data_hash, files) = load_shards(data_dir)?;
    let chosen = chosen_positions(&samples, options.positions);
    let measured: Vec<(u32, Vec<i32>)> = chosen
        .iter()
        .map(|sample| (sample.empties(), scores_by_depth(sample.player, sample.opponent, evaluator, options.max_depth)))
        .collect();
    let fits = fit_cuts(&measured, options.max_depth);
    let description = format!(
        "ponder probcut-fit --game reversi --positions {} --max-depth {}; data: {files} shards, data hash \
         {data_hash:016x}, {} positions searched",
        options.positions,
        options.max_depth,
        measured.len()
    );
    let text = table_text(&description, &fits);
    // The table must read back as written.
    ProbCut::parse(&text)?;
    std::fs::write(out, &text).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines.push(format!("wrote {} ({} fits) in {:.1}s", out.display(), fits.len(), started.elapsed().as_secs_f64()));
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_through_exact_points_has_no_error() {
        let pairs: Vec<(f64, f64)> = (0..10).map(|x| (f64::from(x), 0.5 * f64::from(x) + 3.0)).collect();
        let (slope, intercept, sigma) = fit_line(&pairs);
        assert!((slope - 0.5).abs() < 1e-12 && (intercept - 3.0).abs() < 1e-12 && sigma < 1e-12);
        // Errors of +-1 around the line: sigma 1.
        let noisy: Vec<(f64, f64)> = pairs.iter().enumerate().map(|(i, &(x, y))| (x, y + [1.0, -1.0][i % 2])).collect();
        let (_, _, sigma) = fit_line(&noisy);
        assert!((sigma - 1.0).abs() < 0.05, "{sigma}");
    }

    #[test]
    fn groups_cover_the_midgame_in_steps() {
        assert_eq!(group_of(13), (13, 20));
        assert_eq!(group_of(20), (13, 20));
        assert_eq!(group_of(21), (21, 28));
        assert_eq!(group_of(60), (53, 60));
    }

    #[test]
    fn the_table_reads_back_with_one_fit_per_group_and_depth() {
        // Deep scores that are the shallow ones plus a depth-dependent shift: slope 1, no error.
        let measured: Vec<(u32, Vec<i32>)> = (0..80)
            .map(|i| {
                let empties = 22 + (i % 6);
                (empties, (0..=5).map(|depth| 64 * (i as i32 % 9) + 10 * depth).collect())
            })
            .collect();
        let fits = fit_cuts(&measured, 5);
        assert_eq!(fits.iter().map(|fit| fit.depth).collect::<Vec<_>>(), vec![3, 4, 5]);
        for fit in &fits {
            assert_eq!((fit.first_empties, fit.last_empties, fit.positions), (21, 28, 80));
            assert!((fit.slope - 1.0).abs() < 1e-9 && fit.sigma < 1e-9);
            let expected_shift = 10.0 * f64::from(fit.depth - fit.shallow) / 64.0;
            assert!((fit.intercept - expected_shift).abs() < 1e-9);
        }
        let text = table_text("test", &fits);
        let table = ProbCut::parse(&text).unwrap();
        assert_eq!(table.fits().len(), 3);
        assert!(table.cut(25, 4).is_some() && table.cut(30, 4).is_none());
    }
}
