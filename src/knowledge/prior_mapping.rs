//! How learned move strengths (`ln(gamma)` of Coulom's model, [`super::hex_patterns`],
//! [`super::gomoku_patterns`]) become the tree search's priors, which are pseudo-visits at a
//! value ([`Prior`]): every candidate gets [`PRIOR_VISITS`] pseudo-visits, more for a move the
//! model is sure of, at a value that grows with its `ln(gamma)` above the candidates' mean.
//! These constants are first guesses, not tuned. The model's probability of the move comes
//! with the prior too ([`Prior::policy`]), for the search's progressive bias.

use super::weights_format::WeightsFile;
use crate::games::Prior;

/// Pseudo-visits of a learned prior.
const PRIOR_VISITS: u32 = 10;
/// Further pseudo-visits for a move the model gives all the probability (in proportion).
const CONFIDENT_VISITS: f32 = 20.0;
/// A prior's value moves this much per unit of `ln(gamma)` away from the candidates' mean.
const VALUE_PER_LOG_GAMMA: f32 = 0.05;
/// The range of a learned prior's value.
const LOWEST_VALUE: f32 = 0.2;
const HIGHEST_VALUE: f32 = 0.9;

/// The candidates' strengths in summary: what a candidate's prior is measured against.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CandidateStrengths {
    mean: f32,
    best: f32,
    /// Sum of `exp(ln(gamma) - best)`: the model's normaliser.
    total: f32,
}

impl CandidateStrengths {
    /// The summary of the candidates' `ln(gamma)`s; `None` without candidates.
    pub fn of(log_gammas: impl Iterator<Item = f32> + Clone) -> Option<CandidateStrengths> {
        let (mut sum, mut count, mut best) = (0.0f32, 0usize, f32::NEG_INFINITY);
        for value in log_gammas.clone() {
            sum += value;
            count += 1;
            best = best.max(value);
        }
        if count == 0 {
            return None;
        }
        let total = log_gammas.map(|value| (value - best).exp()).sum();
        Some(CandidateStrengths { mean: sum / count as f32, best, total })
    }

    /// The prior of a candidate of strength `log_gamma`.
    pub fn prior(&self, log_gamma: f32) -> Prior {
        let probability = (log_gamma - self.best).exp() / self.total;
        let value = (0.5 + VALUE_PER_LOG_GAMMA * (log_gamma - self.mean)).clamp(LOWEST_VALUE, HIGHEST_VALUE);
        Prior::new(PRIOR_VISITS + (CONFIDENT_VISITS * probability).round() as u32, value).with_policy(probability)
    }
}

/// The tables of a decoded weights file as `ln(gamma)`s: the file stores them in
/// 1/`log_gamma_unit`.
pub fn log_gamma_tables(file: &WeightsFile, log_gamma_unit: f64) -> Vec<Vec<f32>> {
    file.tables
        .iter()
        .map(|table| table.iter().map(|&value| (f64::from(value) / log_gamma_unit) as f32).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stronger_candidates_get_more_and_better_pseudo_visits() {
        assert_eq!(CandidateStrengths::of(std::iter::empty()), None);
        let strengths = CandidateStrengths::of([0.0, 1.0, 4.0].into_iter()).unwrap();
        let (weak, strong) = (strengths.prior(0.0), strengths.prior(4.0));
        assert!(strong.value > weak.value && strong.visits > weak.visits, "{weak:?} {strong:?}");
        assert!(strengths.prior(-100.0).value >= LOWEST_VALUE && strengths.prior(100.0).value <= HIGHEST_VALUE);
        // The policy is the model's probability: gamma over the candidates' sum of gammas.
        let total = 1.0 + 1f32.exp() + 4f32.exp();
        for log_gamma in [0.0, 1.0, 4.0] {
            let policy = strengths.prior(log_gamma).policy;
            assert!((policy - log_gamma.exp() / total).abs() < 1e-6, "{log_gamma}: {policy}");
        }
    }
}
