//! Multi-ProbCut for the Reversi midgame search (Buro's idea): a shallow search predicts the
//! score of a deep one, v_deep ≈ slope · v_shallow + intercept with error sigma, so a node whose
//! shallow score predicts a deep score beyond the window by [`CUT_SIGMAS`] sigmas is cut without
//! the deep search.
//!
//! The parameters come from our own measurement: `ponder probcut-fit --game reversi` searches
//! positions of the self-play shards to every depth with the embedded evaluation and fits each
//! (depth, shallow depth) pair per group of empties ([`crate::train::reversi_probcut_fit`]). The
//! shipped table, `weights/reversi.probcut`, is embedded in the binary.
//!
//! # Table format (text, version 1)
//!
//! Lines starting with `#` are comments (the first says how the table was made); every other line
//! is one fitted pair:
//!
//! ```text
//! <first empties> <last empties> <depth> <shallow depth> <slope> <intercept, discs> <sigma, discs> <positions>
//! ```

use std::sync::OnceLock;

use crate::knowledge::reversi_eval::WEIGHT_UNIT;

/// The shipped table, made by `ponder probcut-fit --game reversi` (see `weights/README.md`).
static EMBEDDED_TABLE: &str = include_str!("../../weights/reversi.probcut");

/// A node is cut when the predicted deep score lies this many sigmas beyond its window: about
/// a 7% chance per side that the deep search would have disagreed, if the errors are normal.
pub const CUT_SIGMAS: f64 = 1.5;

/// The shallowest depth that gets a ProbCut probe (its shallow search has depth 1).
pub const MIN_CUT_DEPTH: u32 = 3;

/// The deepest depth a table may hold: its shallow searches would cost too much to fit beyond.
pub const MAX_CUT_DEPTH: u32 = 16;

/// The first line of a table file.
pub const TABLE_HEADER: &str = "# ponder probcut-fit reversi format 1";

/// The depth of the shallow search that predicts a search of `depth`: about half of it, of the
/// same parity (odd and even depths end on different sides' evaluations, which differ
/// systematically), at least 1.
pub fn shallow_depth(depth: u32) -> u32 {
    let half = depth / 2;
    let same_parity = if half % 2 == depth % 2 { half } else { half.saturating_sub(1) };
    same_parity.max(1)
}

/// One fitted pair: the deep score of a search of `depth` predicted from the shallow search's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CutFit {
    pub first_empties: u32,
    pub last_empties: u32,
    pub depth: u32,
    pub shallow: u32,
    pub slope: f64,
    /// In discs.
    pub intercept: f64,
    /// The standard deviation of the prediction's error, in discs.
    pub sigma: f64,
    /// Positions the fit saw.
    pub positions: usize,
}

impl CutFit {
    /// The table line of this fit.
    pub fn to_line(&self) -> String {
        format!(
            "{} {} {} {} {:.4} {:.4} {:.4} {}",
            self.first_empties,
            self.last_empties,
            self.depth,
            self.shallow,
            self.slope,
            self.intercept,
            self.sigma,
            self.positions
        )
    }

    fn parse(line: &str) -> Result<CutFit, String> {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [first, last, depth, shallow, slope, intercept, sigma, positions] = fields[..] else {
            return Err(format!("expected 8 fields, found {}", fields.len()));
        };
        let integer = |text: &str| text.parse::<u32>().map_err(|_| format!("{text}: expected an integer"));
        let real = |text: &str| {
            text.parse::<f64>().ok().filter(|x| x.is_finite()).ok_or_else(|| format!("{text}: expected a number"))
        };
        let fit = CutFit {
            first_empties: integer(first)?,
            last_empties: integer(last)?,
            depth: integer(depth)?,
            shallow: integer(shallow)?,
            slope: real(slope)?,
            intercept: real(intercept)?,
            sigma: real(sigma)?,
            positions: integer(positions)? as usize,
        };
        if fit.first_empties > fit.last_empties || fit.last_empties > 60 {
            return Err(format!("empties {first}-{last}: expected a range within 0-60"));
        }
        if !(MIN_CUT_DEPTH..=MAX_CUT_DEPTH).contains(&fit.depth) || fit.shallow == 0 || fit.shallow >= fit.depth {
            return Err(format!(
                "depths {depth}/{shallow}: expected 1 <= shallow < depth, depth {MIN_CUT_DEPTH}-{MAX_CUT_DEPTH}"
            ));
        }
        if fit.slope <= 0.0 || fit.sigma < 0.0 {
            return Err("expected a positive slope and a sigma of at least 0".to_string());
        }
        Ok(fit)
    }
}

/// A cut's parameters in evaluation units, ready for the search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cut {
    pub shallow: u32,
    pub slope: f64,
    pub intercept: f64,
    /// [`CUT_SIGMAS`] sigmas.
    pub margin: f64,
}

impl Cut {
    /// The shallow score at or above which the deep score is predicted at or above `beta`
    /// by the margin.
    pub fn high_bound(&self, beta: i32) -> i32 {
        ((f64::from(beta) + self.margin - self.intercept) / self.slope).ceil() as i32
    }

    /// The shallow score at or below which the deep score is predicted at or below `alpha`
    /// by the margin.
    pub fn low_bound(&self, alpha: i32) -> i32 {
        ((f64::from(alpha) - self.margin - self.intercept) / self.slope).floor() as i32
    }
}

/// The cuts by empties and depth.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbCut {
    /// `cuts[empties][depth]`.
    cuts: Vec<[Option<Cut>; MAX_CUT_DEPTH as usize + 1]>,
    fits: Vec<CutFit>,
}

impl ProbCut {
    /// A table from its fits (a later fit for the same empties and depth replaces an earlier).
    pub fn from_fits(fits: Vec<CutFit>) -> ProbCut {
        let mut cuts = vec![[None; MAX_CUT_DEPTH as usize + 1]; 61];
        let unit = f64::from(WEIGHT_UNIT);
        for fit in &fits {
            let cut = Cut {
                shallow: fit.shallow,
                slope: fit.slope,
                intercept: fit.intercept * unit,
                margin: CUT_SIGMAS * fit.sigma * unit,
            };
            for empties in fit.first_empties..=fit.last_empties {
                cuts[empties as usize][fit.depth as usize] = Some(cut);
            }
        }
        for row in &mut cuts {
            extend_to_deeper_depths(row);
        }
        ProbCut { cuts, fits }
    }

    /// Reads a table file's text.
    ///
    /// # Errors
    /// A message naming the line that could not be read.
    pub fn parse(text: &str) -> Result<ProbCut, String> {
        if !text.starts_with(TABLE_HEADER) {
            return Err(format!("expected a first line starting `{TABLE_HEADER}`"));
        }
        let mut fits = Vec::new();
        for (number, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            fits.push(CutFit::parse(line).map_err(|why| format!("line {}: {why}", number + 1))?);
        }
        Ok(ProbCut::from_fits(fits))
    }

    /// The cut for a node with `empties` empty squares searched `depth` plies, if fitted.
    pub fn cut(&self, empties: u32, depth: u32) -> Option<&Cut> {
        self.cuts.get(empties as usize)?.get(depth as usize)?.as_ref()
    }

    /// The fits the table was made from.
    pub fn fits(&self) -> &[CutFit] {
        &self.fits
    }
}

/// Depths beyond the deepest fitted one take the fit two plies shallower (of the same parity),
/// with their own shallow depth: the searches that save most are the deep ones, and fitting
/// them costs too much (a full search of each position to that depth). In the shipped fits to
/// depth 10, the sigmas of the (9, 3) and (10, 4) pairs are 1.1-1.25 times those of (7, 3) and
/// (8, 4): the error grows slowly with the depth while the shallow depth grows with it.
fn extend_to_deeper_depths(row: &mut [Option<Cut>; MAX_CUT_DEPTH as usize + 1]) {
    for depth in MIN_CUT_DEPTH + 2..=MAX_CUT_DEPTH {
        let depth = depth as usize;
        if row[depth].is_none()
            && let Some(two_shallower) = row[depth - 2]
        {
            row[depth] = Some(Cut { shallow: shallow_depth(depth as u32), ..two_shallower });
        }
    }
}

/// The shipped table, read once.
///
/// # Errors
/// The reason the embedded table does not read (a damaged file in the build).
pub fn embedded() -> Result<&'static ProbCut, &'static String> {
    static EMBEDDED: OnceLock<Result<ProbCut, String>> = OnceLock::new();
    EMBEDDED.get_or_init(|| ProbCut::parse(EMBEDDED_TABLE)).as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shallow_depths_keep_the_parity_and_about_half_the_depth() {
        let expected = [(3, 1), (4, 2), (5, 1), (6, 2), (7, 3), (8, 4), (9, 3), (10, 4), (11, 5), (12, 6)];
        for (depth, shallow) in expected {
            assert_eq!(shallow_depth(depth), shallow, "depth {depth}");
        }
    }

    #[test]
    fn a_table_line_round_trips_and_bad_lines_are_refused() {
        let fit = CutFit {
            first_empties: 20,
            last_empties: 27,
            depth: 6,
            shallow: 2,
            slope: 0.95,
            intercept: -0.25,
            sigma: 3.5,
            positions: 400,
        };
        let text = format!("{TABLE_HEADER}: test\n{}\n", fit.to_line());
        let table = ProbCut::parse(&text).unwrap();
        assert_eq!(table.fits(), &[fit]);
        let cut = table.cut(23, 6).unwrap();
        assert_eq!(cut.shallow, 2);
        assert_eq!(cut.margin, CUT_SIGMAS * 3.5 * 64.0);
        assert!(table.cut(28, 6).is_none() && table.cut(23, 5).is_none());
        for bad in ["20 27 6 2 0.95 -0.25 3.5", "27 20 6 2 1 0 1 9", "20 27 6 6 1 0 1 9", "20 27 6 2 -1 0 1 9"] {
            assert!(ProbCut::parse(&format!("{TABLE_HEADER}\n{bad}\n")).is_err(), "{bad}");
        }
        assert!(ProbCut::parse("20 27 6 2 1 0 1 9\n").is_err(), "no header");
    }

    #[test]
    fn deeper_depths_take_the_deepest_fit_of_their_parity_with_their_own_shallow_depth() {
        let fit = |depth, sigma| CutFit {
            first_empties: 30,
            last_empties: 37,
            depth,
            shallow: shallow_depth(depth),
            slope: 1.02,
            intercept: 0.5,
            sigma,
            positions: 100,
        };
        let table = ProbCut::from_fits(vec![fit(3, 4.0), fit(4, 3.0)]);
        for depth in 5..=MAX_CUT_DEPTH {
            let cut = table.cut(33, depth).unwrap();
            let source = table.cut(33, 3 + (depth + 1) % 2).unwrap();
            assert_eq!(cut.shallow, shallow_depth(depth), "depth {depth}");
            assert_eq!((cut.slope, cut.intercept, cut.margin), (source.slope, source.intercept, source.margin));
        }
        assert_eq!(table.cut(33, 12).unwrap().margin, CUT_SIGMAS * 3.0 * 64.0);
        assert!(table.cut(29, 12).is_none(), "no fit for these empties, nothing to extend");
        assert_eq!(table.fits().len(), 2, "the fits stay as read");
    }

    #[test]
    fn the_bounds_invert_the_prediction() {
        let cut = Cut { shallow: 2, slope: 0.8, intercept: 32.0, margin: 100.0 };
        // A shallow score at the high bound predicts at least beta + margin, one below does not.
        let beta = 200;
        let high = cut.high_bound(beta);
        assert!(cut.slope * f64::from(high) + cut.intercept >= f64::from(beta) + cut.margin);
        assert!(cut.slope * f64::from(high - 1) + cut.intercept < f64::from(beta) + cut.margin);
        let alpha = -150;
        let low = cut.low_bound(alpha);
        assert!(cut.slope * f64::from(low) + cut.intercept <= f64::from(alpha) - cut.margin);
        assert!(cut.slope * f64::from(low + 1) + cut.intercept > f64::from(alpha) - cut.margin);
    }

    #[test]
    fn the_embedded_table_reads() {
        let table = embedded().unwrap();
        assert!(!table.fits().is_empty());
        for fit in table.fits() {
            assert_eq!(fit.shallow, shallow_depth(fit.depth));
        }
    }
}
