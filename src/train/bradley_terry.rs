//! Coulom's generalised Bradley-Terry model of move choice ("Computing Elo ratings of move
//! patterns", 2007), shared by the move-prior fits ([`super::hex_fit`], [`super::gomoku_fit`]).
//!
//! Every searched position is one competition: the candidate moves are the competitors, the
//! move the search played is the winner, and each competitor is the team of its feature values,
//! one per group. A team's strength is the product of its members' gammas. The gammas maximise
//! the likelihood of the winners, found by minorization-maximization: one feature group at a
//! time, each gamma becomes its wins over the sum, across competitions, of its teams' strength
//! without it divided by the competition's total strength. Each gamma also plays one virtual win
//! and one virtual loss against a gamma of 1 (Coulom's prior), which keeps rare feature values
//! near 1 and unseen ones at 1; or, with `--prior-weights`, a chosen number of each against the
//! gammas of an earlier fit ([`GammaPrior`]), which keeps what new games do not show.
//! Everything runs on one thread in a fixed order, so the same competitions give the same
//! gammas, bit for bit.

use std::path::Path;

use super::game_selfplay::{GameRecord, RecordGame, load_records};
use crate::knowledge::weights_format::{self, WeightsFile, WeightsHeader};

/// The competitions of a set of games: every competitor's feature value per group, and per
/// competition its competitors' range and the winner's offset in it.
#[derive(Clone, Debug, Default)]
pub struct Competitions<const GROUPS: usize> {
    teams: Vec<[u32; GROUPS]>,
    /// `(first competitor, end, winner's index)`.
    positions: Vec<(u32, u32, u32)>,
}

impl<const GROUPS: usize> Competitions<GROUPS> {
    /// Competitions (positions) in all.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Competitors in all.
    pub fn competitors(&self) -> usize {
        self.teams.len()
    }

    /// Adds one competition: `teams` are its competitors, `winner` the index of the chosen one.
    pub fn push(&mut self, teams: impl IntoIterator<Item = [u32; GROUPS]>, winner: usize) {
        let first = self.teams.len() as u32;
        self.teams.extend(teams);
        debug_assert!(first as usize + winner < self.teams.len());
        self.positions.push((first, self.teams.len() as u32, winner as u32));
    }
}

/// The fitted gammas, per group.
#[derive(Clone, Debug, PartialEq)]
pub struct Gammas<const GROUPS: usize> {
    pub groups: [Vec<f64>; GROUPS],
}

impl<const GROUPS: usize> Gammas<GROUPS> {
    /// Every gamma 1, for groups of `sizes` values.
    pub fn ones(sizes: [usize; GROUPS]) -> Gammas<GROUPS> {
        Gammas { groups: sizes.map(|size| vec![1.0; size]) }
    }

    fn strength(&self, team: &[u32; GROUPS]) -> f64 {
        let mut strength = 1.0;
        for (gammas, &value) in self.groups.iter().zip(team) {
            strength *= gammas[value as usize];
        }
        strength
    }

    /// Tables of `ln(gamma)` in 1/`unit`, within `i16` (a weights file's tables).
    pub fn tables(&self, unit: f64) -> Vec<Vec<i16>> {
        self.groups
            .iter()
            .map(|gammas| {
                gammas.iter().map(|gamma| (gamma.ln() * unit).round().clamp(-32767.0, 32767.0) as i16).collect()
            })
            .collect()
    }
}

/// What the gammas are drawn towards where the data says little: each feature value plays
/// `strength` virtual wins and as many virtual losses against a player of its `center` gamma.
/// Coulom's prior is one of each against a gamma of 1 ([`GammaPrior::neutral`]); a fitted
/// weights file as the centre lets new data (a stronger player's moves) adjust those weights
/// without forgetting what it does not cover.
#[derive(Clone, Debug, PartialEq)]
pub struct GammaPrior<const GROUPS: usize> {
    pub center: Gammas<GROUPS>,
    pub strength: f64,
}

impl<const GROUPS: usize> GammaPrior<GROUPS> {
    /// Coulom's prior: one virtual win and loss against a gamma of 1.
    pub fn neutral(sizes: [usize; GROUPS]) -> GammaPrior<GROUPS> {
        GammaPrior { center: Gammas::ones(sizes), strength: 1.0 }
    }
}

/// Mean log-likelihood of the winners, per competition.
pub fn log_likelihood<const GROUPS: usize>(gammas: &Gammas<GROUPS>, data: &Competitions<GROUPS>) -> f64 {
    let mut total = 0.0;
    for &(first, end, winner) in &data.positions {
        let teams = &data.teams[first as usize..end as usize];
        let sum: f64 = teams.iter().map(|team| gammas.strength(team)).sum();
        total += (gammas.strength(&teams[winner as usize]) / sum).ln();
    }
    total / data.len().max(1) as f64
}

/// Fits the gammas (of the prior's groups and sizes) with `iterations` rounds of
/// minorization-maximization over the groups, starting from the prior's centre; `report` hears
/// the training log-likelihood after each round.
pub fn fit<const GROUPS: usize>(
    data: &Competitions<GROUPS>,
    prior: &GammaPrior<GROUPS>,
    iterations: usize,
    mut report: impl FnMut(usize, f64),
) -> Gammas<GROUPS> {
    let sizes = prior.center.groups.each_ref().map(Vec::len);
    let mut gammas = prior.center.clone();
    // Wins of every feature value: the winners' teams.
    let mut wins = sizes.map(|size| vec![0.0f64; size]);
    for &(first, _, winner) in &data.positions {
        let team = &data.teams[(first + winner) as usize];
        for group in 0..GROUPS {
            wins[group][team[group] as usize] += 1.0;
        }
    }
    let mut denominators = sizes.map(|size| vec![0.0f64; size]);
    for iteration in 0..iterations {
        for group in 0..GROUPS {
            let denominator = &mut denominators[group];
            denominator.fill(0.0);
            // 1. Each competition adds, for every competitor, its strength without this group's
            //    gamma over the competition's total strength.
            for &(first, end, _) in &data.positions {
                let teams = &data.teams[first as usize..end as usize];
                let total: f64 = teams.iter().map(|team| gammas.strength(team)).sum();
                for team in teams {
                    let value = team[group] as usize;
                    denominator[value] += gammas.strength(team) / gammas.groups[group][value] / total;
                }
            }
            // 2. The update, with the prior's virtual wins and losses against its centre.
            let centers = &prior.center.groups[group];
            for (value, gamma) in gammas.groups[group].iter_mut().enumerate() {
                *gamma = (wins[group][value] + prior.strength)
                    / (denominator[value] + 2.0 * prior.strength / (*gamma + centers[value]));
            }
        }
        report(iteration + 1, log_likelihood(&gammas, data));
    }
    gammas
}

/// Move-prediction accuracy on held-out games: how often the search's move is the ranking's
/// first, and among its first five. Ties are split evenly (the expected accuracy when ties
/// are broken at random), so a ranking that cannot tell the cells apart earns no credit for
/// the move order of the legal moves.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Accuracy {
    pub positions: usize,
    pub top1: f64,
    pub top5: f64,
}

impl Accuracy {
    /// Counts one position: `scores` of the candidates, `chosen` the index of the searched move.
    pub fn add(&mut self, scores: &[f64], chosen: usize) {
        self.positions += 1;
        self.top1 += share_within(scores, chosen, 1);
        self.top5 += share_within(scores, chosen, 5);
    }

    /// Shares of the positions, in percent.
    pub fn percent(&self) -> (f64, f64) {
        let n = self.positions.max(1) as f64;
        (100.0 * self.top1 / n, 100.0 * self.top5 / n)
    }
}

/// The expected share of the time candidate `chosen` is among the first `k` when `scores` rank
/// the candidates and ties are broken at random: 1 or 0, or a fraction for a tie across the
/// `k`-th place.
pub fn share_within(scores: &[f64], chosen: usize, k: usize) -> f64 {
    let score = scores[chosen];
    let better = scores.iter().filter(|&&s| s > score).count() as f64;
    let equal = scores.iter().filter(|&&s| s == score).count() as f64;
    ((k as f64 - better) / equal).clamp(0.0, 1.0)
}

/// The learned ranking's and the hand-set priors' accuracy, side by side.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Comparison {
    pub learned: Accuracy,
    pub hand_set: Accuracy,
}

impl Comparison {
    /// Counts one position: the candidates' learned scores and hand-set priors, `chosen` the
    /// index of the searched move.
    pub fn add(&mut self, learned_scores: &[f64], hand_set: &[crate::games::Prior], chosen: usize) {
        let hand_scores: Vec<f64> = hand_set.iter().map(hand_set_score).collect();
        self.learned.add(learned_scores, chosen);
        self.hand_set.add(&hand_scores, chosen);
    }
}

/// A score that ranks hand-set priors ([`crate::games::Prior`]): by value, then pseudo-visits.
fn hand_set_score(prior: &crate::games::Prior) -> f64 {
    f64::from(prior.value) * 1000.0 + f64::from(prior.visits)
}

/// What a move-prior fit is: the weights file's game and feature set, the groups' sizes and the
/// unit of the stored `ln(gamma)`.
#[derive(Clone, Copy, Debug)]
pub struct PriorModel<const GROUPS: usize> {
    pub game: &'static str,
    pub feature_set: &'static str,
    pub sizes: [usize; GROUPS],
    pub log_gamma_unit: f64,
}

/// A fit's prior and how the weights file's header names it.
#[derive(Clone, Debug)]
pub struct FitPrior<const GROUPS: usize> {
    pub gammas: GammaPrior<GROUPS>,
    pub description: String,
}

impl<const GROUPS: usize> FitPrior<GROUPS> {
    /// `strength` virtual wins and losses against gamma 1; strength 1 is Coulom's prior
    /// ([`GammaPrior::neutral`]), described as the fits always described it.
    pub fn against_ones(sizes: [usize; GROUPS], strength: f64) -> FitPrior<GROUPS> {
        let description = if strength == 1.0 {
            "1 virtual win and loss against gamma 1 per feature value".to_string()
        } else {
            format!("prior strength {strength}: virtual wins and as many losses against gamma 1 per feature value")
        };
        FitPrior { gammas: GammaPrior { center: Gammas::ones(sizes), strength }, description }
    }
}

/// What `ponder train` is asked to do for a move-prior model (Hex, Gomoku).
#[derive(Clone, Debug, Default)]
pub struct MoveFitOptions {
    /// Minorization-maximization rounds.
    pub iterations: usize,
    /// Held-out games to report the accuracy on.
    pub test: Option<std::path::PathBuf>,
    /// The player of the match records whose moves are learned (see [`load_records`]).
    pub learn_from: Option<String>,
    /// A weights file of the model to centre the prior on, instead of gammas of 1.
    pub prior_weights: Option<std::path::PathBuf>,
    /// Virtual wins and losses per feature value against the prior's centre.
    pub prior_strength: f64,
}

/// The shards a fit learns from, as [`load_records`] read them.
#[derive(Clone, Debug)]
pub struct TrainingData {
    pub games: usize,
    pub files: usize,
    pub hash: u64,
    /// The match records' player whose moves were learned (`--learn-from`).
    pub learned_player: Option<String>,
}

impl<const GROUPS: usize> PriorModel<GROUPS> {
    /// Fits the model's gammas with `iterations` rounds of minorization-maximization ([`fit`]).
    pub fn fit(
        &self,
        data: &Competitions<GROUPS>,
        iterations: usize,
        report: impl FnMut(usize, f64),
    ) -> Gammas<GROUPS> {
        fit(data, &GammaPrior::neutral(self.sizes), iterations, report)
    }

    /// The prior centred on the gammas of a weights file of this model, `strength` virtual
    /// wins and losses each.
    ///
    /// # Errors
    /// A message when the file is not one of this model's.
    pub fn prior_from_file(&self, bytes: &[u8], strength: f64) -> Result<GammaPrior<GROUPS>, String> {
        let file =
            weights_format::decode(bytes, self.game, self.feature_set, &self.sizes).map_err(|e| e.to_string())?;
        let mut center = Gammas::ones(self.sizes);
        for (gammas, table) in center.groups.iter_mut().zip(&file.tables) {
            for (gamma, &stored) in gammas.iter_mut().zip(table) {
                *gamma = (f64::from(stored) / self.log_gamma_unit).exp();
            }
        }
        Ok(GammaPrior { center, strength })
    }

    /// The weights file of fitted `gammas`.
    pub fn weights_file(&self, gammas: &Gammas<GROUPS>, data_hash: u64, description: String) -> WeightsFile {
        WeightsFile {
            header: WeightsHeader {
                game: self.game.to_string(),
                feature_set: self.feature_set.to_string(),
                data_hash,
                description,
            },
            tables: gammas.tables(self.log_gamma_unit),
        }
    }

    /// Fits the gammas to `competitions` with `iterations` rounds and writes the weights file
    /// `out`; returns the file and the report lines (data, likelihood every 5 rounds, file).
    ///
    /// # Errors
    /// A message when there is nothing to learn from or the file cannot be written.
    pub fn fit_and_write(
        &self,
        competitions: &Competitions<GROUPS>,
        data: &TrainingData,
        prior: &FitPrior<GROUPS>,
        iterations: usize,
        out: &Path,
    ) -> Result<(WeightsFile, Vec<String>), String> {
        if competitions.is_empty() {
            return Err("no searched moves to learn from".to_string());
        }
        let mut lines = vec![format!(
            "{} games in {} files (data hash {:016x}): {} positions, {} candidate cells",
            data.games,
            data.files,
            data.hash,
            competitions.len(),
            competitions.competitors()
        )];
        let gammas = fit(competitions, &prior.gammas, iterations, |iteration, likelihood| {
            if iteration % 5 == 0 || iteration == iterations {
                lines.push(format!("iteration {iteration}: mean log-likelihood {likelihood:.4}"));
            }
        });
        let description = format!(
            "ponder train --game {} --iterations {iterations}: minorization-maximization of a generalised \
             Bradley-Terry model ({}) on {}, {} positions",
            self.game,
            prior.description,
            match data.learned_player.as_deref() {
                None => format!("{} self-play games", data.games),
                Some(player) => format!("{} games (the moves of {player})", data.games),
            },
            competitions.len()
        );
        let file = self.weights_file(&gammas, data.hash, description);
        let bytes = weights_format::encode(&file);
        std::fs::write(out, &bytes).map_err(|e| format!("{}: {e}", out.display()))?;
        let stored = file.tables.iter().map(|table| table.iter().filter(|&&v| v != 0).count()).sum::<usize>();
        lines.push(format!("{}: {} bytes, {stored} non-neutral gammas", out.display(), bytes.len()));
        Ok((file, lines))
    }
}

/// `ponder train` for a move-prior model: reads the `game` shards and match records of `data`
/// (see [`load_records`]), fits the options' rounds to their `competitions` under the options'
/// prior, writes the weights file `out` and, with a test directory, reports the `accuracy` of
/// the new weights, of the shipped ones (`accuracy` of `None`) and of the hand-set priors on
/// those held-out games. Returns the report lines.
///
/// # Errors
/// A message when the options are out of range, the prior file or the data cannot be read or
/// hold nothing to learn from, or the file cannot be written.
pub fn train_from_shards<const GROUPS: usize>(
    model: &PriorModel<GROUPS>,
    game: RecordGame,
    data: &Path,
    out: &Path,
    options: &MoveFitOptions,
    competitions: impl Fn(&[GameRecord]) -> Result<Competitions<GROUPS>, String>,
    accuracy: impl Fn(Option<&WeightsFile>, &[GameRecord]) -> Result<(Accuracy, Accuracy), String>,
) -> Result<Vec<String>, String> {
    let learn_from = options.learn_from.as_deref();
    if !(options.prior_strength.is_finite() && options.prior_strength > 0.0) {
        return Err(format!("--prior-strength {}: expected a positive number", options.prior_strength));
    }
    let prior = match &options.prior_weights {
        None => FitPrior::against_ones(model.sizes, options.prior_strength),
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let gammas = model
                .prior_from_file(&bytes, options.prior_strength)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            let hash = weights_format::fnv1a(weights_format::FNV_OFFSET, &bytes);
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            FitPrior {
                gammas,
                description: format!(
                    "prior strength {}: virtual wins and as many losses per feature value against the gammas \
                     of {name} (FNV-1a {hash:016x})",
                    options.prior_strength
                ),
            }
        }
    };
    let (records, hash, files) = load_records(game, data, learn_from)?;
    let training = TrainingData { games: records.len(), files, hash, learned_player: options.learn_from.clone() };
    let (file, mut lines) = model
        .fit_and_write(&competitions(&records)?, &training, &prior, options.iterations, out)
        .map_err(|e| format!("{}: {e}", data.display()))?;
    if let Some(test) = &options.test {
        let (test_records, hash, _) = load_records(game, test, learn_from)?;
        let (learned, hand_set) = accuracy(Some(&file), &test_records)?;
        let (shipped, _) = accuracy(None, &test_records)?;
        let (learned1, learned5) = learned.percent();
        let (shipped1, shipped5) = shipped.percent();
        let (hand1, hand5) = hand_set.percent();
        lines.push(format!(
            "held-out {} ({} games, hash {hash:016x}), {} positions: learned top-1 {learned1:.1}% top-5 \
             {learned5:.1}%, shipped top-1 {shipped1:.1}% top-5 {shipped5:.1}%, hand-set top-1 {hand1:.1}% \
             top-5 {hand5:.1}%",
            test.display(),
            test_records.len(),
            learned.positions
        ));
    }
    Ok(lines)
}

/// Checks that a model's decoder refuses `file` under another feature set and game, and any
/// damaged or cut copy of it.
#[cfg(test)]
pub fn assert_foreign_and_damaged_files_refused<T: std::fmt::Debug>(
    file: &WeightsFile,
    decode: impl Fn(&[u8]) -> Result<T, weights_format::WeightsError>,
) {
    let mut other = file.clone();
    other.header.feature_set = "other".into();
    let error = decode(&weights_format::encode(&other)).unwrap_err();
    assert!(error.to_string().contains("other"), "{error}");
    other.header = WeightsHeader { game: "another game".into(), ..file.header.clone() };
    assert!(decode(&weights_format::encode(&other)).is_err());
    let bytes = weights_format::encode(file);
    let mut damaged = bytes.clone();
    damaged[bytes.len() / 2] ^= 1;
    assert!(decode(&damaged).is_err());
    assert!(decode(&bytes[..bytes.len() - 1]).is_err());
}
