//! Match statistics: the Elo difference with a 95% interval from wins, draws and losses, and the
//! sequential probability ratio test chess testing frameworks (fishtest, cutechess) use to stop
//! a match once it has decided between two Elo hypotheses.

use std::fmt;

/// Wins, draws and losses of the first engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

/// The logistic Elo difference of a mean score in (0, 1); infinite at 0 and 1.
pub fn elo_of_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The mean score of an Elo difference.
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

impl Tally {
    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The mean score per game (win 1, draw ½), or `None` before the first game.
    pub fn score(&self) -> Option<f64> {
        let games = self.games();
        (games > 0).then(|| (self.wins as f64 + 0.5 * self.draws as f64) / games as f64)
    }

    /// The variance of one game's score around the mean (trinomial), or `None` before the first
    /// game.
    pub fn score_variance(&self) -> Option<f64> {
        let score = self.score()?;
        let games = self.games() as f64;
        let spread = |count: u32, value: f64| count as f64 / games * (value - score).powi(2);
        Some(spread(self.wins, 1.0) + spread(self.draws, 0.5) + spread(self.losses, 0.0))
    }

    /// The Elo difference and its 95% interval `(elo, low, high)`: the normal approximation of
    /// the mean score, ±1.96 standard errors, mapped to Elo. Bounds are infinite when the score
    /// interval reaches 0 or 1.
    pub fn elo_interval(&self) -> Option<(f64, f64, f64)> {
        let score = self.score()?;
        let error = (self.score_variance()? / self.games() as f64).sqrt();
        let low = (score - 1.96 * error).clamp(0.0, 1.0);
        let high = (score + 1.96 * error).clamp(0.0, 1.0);
        Some((elo_of_score(score), elo_of_score(low), elo_of_score(high)))
    }
}

/// The hypotheses and error rates of a sequential probability ratio test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtSettings {
    /// Elo difference under H0.
    pub elo0: f64,
    /// Elo difference under H1.
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds.
    pub beta: f64,
}

/// Where a running test stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtDecision {
    Continue,
    AcceptH0,
    AcceptH1,
}

impl fmt::Display for SprtDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SprtDecision::Continue => "continue",
            SprtDecision::AcceptH0 => "H0 accepted",
            SprtDecision::AcceptH1 => "H1 accepted",
        })
    }
}

impl SprtSettings {
    /// Reads `elo0,elo1,alpha,beta`.
    ///
    /// # Errors
    /// A message unless there are four numbers with `elo0 < elo1` and error rates in (0, 0.5).
    pub fn parse(text: &str) -> Result<SprtSettings, String> {
        let numbers: Vec<f64> = text
            .split(',')
            .map(|part| part.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| format!("--sprt {text}: expected elo0,elo1,alpha,beta"))?;
        let &[elo0, elo1, alpha, beta] = numbers.as_slice() else {
            return Err(format!("--sprt {text}: expected four numbers elo0,elo1,alpha,beta"));
        };
        let rate = 0.0..0.5;
        if elo0.partial_cmp(&elo1) != Some(std::cmp::Ordering::Less)
            || !rate.contains(&alpha)
            || !rate.contains(&beta)
            || alpha == 0.0
            || beta == 0.0
        {
            return Err(format!("--sprt {text}: need elo0 < elo1 and 0 < alpha, beta < 0.5"));
        }
        Ok(SprtSettings { elo0, elo1, alpha, beta })
    }

    /// The stopping bounds `(lower, upper)` of the log-likelihood ratio (Wald).
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The generalized log-likelihood ratio of H1 against H0 for a tally, in the normal
    /// approximation fishtest uses: `n (s1 − s0) (2 s̄ − s0 − s1) / (2 σ²)` with `s̄` and `σ²`
    /// the observed mean and variance of a game's score. Zero while the variance is zero
    /// (every game the same result): such a tally does not yet tell the hypotheses apart.
    pub fn log_likelihood_ratio(&self, tally: &Tally) -> f64 {
        let (Some(score), Some(variance)) = (tally.score(), tally.score_variance()) else {
            return 0.0;
        };
        if variance <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (score_of_elo(self.elo0), score_of_elo(self.elo1));
        tally.games() as f64 * (s1 - s0) * (2.0 * score - s0 - s1) / (2.0 * variance)
    }

    /// Whether the test has decided.
    pub fn decision(&self, tally: &Tally) -> SprtDecision {
        let llr = self.log_likelihood_ratio(tally);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtDecision::AcceptH1
        } else if llr <= lower {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn elo_follows_the_logistic_curve() {
        assert!(close(elo_of_score(0.5), 0.0, 1e-12));
        // 76% is the textbook +200 Elo (1 / (1 + 10^-0.5) = 0.7597).
        assert!(close(elo_of_score(0.759_746_926_647_958), 200.0, 1e-6));
        assert!(close(score_of_elo(-200.0), 1.0 - 0.759_746_926_647_958, 1e-12));
        assert_eq!(elo_of_score(1.0), f64::INFINITY);
    }

    #[test]
    fn intervals_shrink_with_games_and_surround_the_estimate() {
        let small = Tally { wins: 6, draws: 2, losses: 2 };
        let large = Tally { wins: 600, draws: 200, losses: 200 };
        let (elo, low, high) = small.elo_interval().unwrap();
        assert!(close(elo, elo_of_score(0.7), 1e-9) && low < elo && elo < high);
        let (_, large_low, large_high) = large.elo_interval().unwrap();
        assert!(large_high - large_low < (high - low) / 5.0);
        // Hand computation: mean 0.7, variance 0.6*0.09+0.2*0.04+0.2*0.49 = 0.16, so the
        // standard error over 1000 games is 0.012649 and the interval 0.7 ± 0.024792.
        assert!(close(large_low, elo_of_score(0.7 - 0.024_792_3), 0.01));
        assert_eq!(Tally::default().elo_interval(), None);
        assert_eq!(Tally { wins: 3, draws: 0, losses: 0 }.elo_interval().unwrap().2, f64::INFINITY);
    }

    #[test]
    fn sprt_decides_clear_cases_and_waits_on_unclear_ones() {
        let sprt = SprtSettings::parse("0,10,0.05,0.05").unwrap();
        let (lower, upper) = sprt.bounds();
        assert!(close(upper, (0.95f64 / 0.05).ln(), 1e-12) && close(lower, -upper, 1e-12));
        assert_eq!(sprt.decision(&Tally { wins: 700, draws: 200, losses: 100 }), SprtDecision::AcceptH1);
        assert_eq!(sprt.decision(&Tally { wins: 100, draws: 200, losses: 700 }), SprtDecision::AcceptH0);
        assert_eq!(sprt.decision(&Tally { wins: 5, draws: 1, losses: 4 }), SprtDecision::Continue);
        assert_eq!(sprt.decision(&Tally { wins: 0, draws: 40, losses: 0 }), SprtDecision::Continue);
        for bad in ["0,10,0.05", "10,0,0.05,0.05", "0,10,0,0.05", "a,b,c,d", "NaN,10,0.05,0.05", "0,NaN,0.05,0.05"] {
            assert!(SprtSettings::parse(bad).is_err(), "{bad}");
        }
    }
}
