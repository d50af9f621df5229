//! Search settings (`param_search`) and the `ponder-stats` report.

use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};

use super::clock::TimePlan;
use super::game_setup::answer_param_request;
use super::{GtpError, Session};
use crate::games::{ConfigError, Param, parse_bool_param, parse_int_param};
use crate::protocol::command::ParamRequest;
use crate::search::{Limits, SearchParams};

/// The most search or solver threads any command or command-line option starts: more than any
/// machine ponder runs on has cores, few enough that a typo cannot exhaust the process.
pub const MAX_THREADS: usize = 256;

/// The search limits and parameters a user controls, plus the seed source.
pub struct SearchSettings {
    pub params: SearchParams,
    /// Playouts per move; 0 means no limit.
    pub max_visits: u64,
    /// Seconds per move; 0 means no limit. Under a clock only a value the user set caps a
    /// move (see [`SearchSettings::limits`]).
    pub max_time: f64,
    /// Whether `max_time` was set (`param_search max_time`, `--max-time`) rather than left at
    /// its default.
    pub max_time_set: bool,
    /// The seed last set, or the random one chosen at start.
    pub seed: u64,
    seeds: SmallRng,
    /// Search on the opponent's time after our move.
    pub ponder: bool,
    /// Playouts per ponder; 0 means until the next input line.
    pub ponder_max_visits: u64,
    /// Seconds per ponder; 0 means until the next input line.
    pub ponder_max_time: f64,
    /// Playing strength from 1 (a few dozen playouts a move) to 10 (no cap).
    pub level: u32,
}

/// Playouts per move at `level` 1 to 9 (10 has no cap): doubling from 32.
fn level_visits(level: u32) -> Option<u64> {
    (level < 10).then(|| 32u64 << (level.saturating_sub(1)))
}

impl Default for SearchSettings {
    fn default() -> Self {
        let seed = rand::rng().next_u64();
        SearchSettings {
            params: SearchParams::default(),
            max_visits: 0,
            max_time: 5.0,
            max_time_set: false,
            seed,
            seeds: SmallRng::seed_from_u64(seed),
            ponder: false,
            ponder_max_visits: 0,
            ponder_max_time: 0.0,
            level: 10,
        }
    }
}

impl SearchSettings {
    /// Restarts the seed sequence: the same seed and the same commands give the same moves.
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
        self.seeds = SmallRng::seed_from_u64(seed);
    }

    /// The seed of the next search.
    pub fn next_search_seed(&mut self) -> u64 {
        self.seeds.next_u64()
    }

    /// The limits of one `genmove`: the tighter of `max_visits` and the level's cap, the tighter
    /// of `max_time` and the clock plan's hard limit, and the plan's target unless `max_time`
    /// is below it. Under a clock the default `max_time` (5 s, for play without one) does not
    /// apply: a 5-minute game would otherwise think at most 5 s a move and leave half its
    /// clock; one the user set does.
    pub fn limits(&self, plan: Option<TimePlan>) -> Limits {
        let visits = [(self.max_visits > 0).then_some(self.max_visits), level_visits(self.level)];
        let caps = plan.is_none() || self.max_time_set;
        let max_time = (caps && self.max_time > 0.0).then(|| Duration::from_secs_f64(self.max_time));
        let time = [max_time, plan.map(|plan| plan.hard)];
        // The target is where a search may stop to save time for later moves. Where there is
        // no later use for it, the move runs to its hard limit instead of stopping where a next
        // iteration would not fit (the last iteration, cut short, still gives its first move's
        // full score and any move that beat it): a cap below the clock's target binds every
        // move alike (a Gomocup turn limit under a long or unlimited match clock), and a
        // period's leftover (byo-yomi, one stone a period: `ponder match --time`) is lost.
        let saves_for_later =
            |plan: &TimePlan| plan.saved_time_carries_over && max_time.is_none_or(|cap| cap > plan.target);
        Limits {
            max_visits: visits.into_iter().flatten().min(),
            max_time: time.into_iter().flatten().min(),
            target_time: plan.filter(saves_for_later).map(|plan| plan.target),
            // Without a clock, `max_time` is a cap and stopping early saves the user's time;
            // under a clock only time saved for later moves is worth saving.
            stop_when_decided: plan.is_none_or(|plan| plan.saved_time_carries_over),
            expected_value: None,
        }
    }

    /// The limits of pondering; none means until the next input line.
    pub fn ponder_limits(&self) -> Limits {
        Limits {
            max_visits: (self.ponder_max_visits > 0).then_some(self.ponder_max_visits),
            max_time: (self.ponder_max_time > 0.0).then(|| Duration::from_secs_f64(self.ponder_max_time)),
            ..Limits::default()
        }
    }

    fn as_params(&self) -> Vec<Param> {
        vec![
            Param::int("max_visits", self.max_visits),
            Param::string("max_time", format_seconds(self.max_time)),
            Param::int("threads", self.params.threads),
            Param::bool("force_threads", self.params.force_threads),
            Param::int("seed", self.seed),
            Param::string("exploration", self.params.exploration.to_string()),
            Param::int("max_memory_mb", self.params.max_memory_mb),
            Param::bool("ponder", self.ponder),
            Param::int("ponder_max_visits", self.ponder_max_visits),
            Param::string("ponder_max_time", format_seconds(self.ponder_max_time)),
            Param::int("level", self.level),
            Param::bool("rave", self.params.rave),
            Param::bool("priors", self.params.priors),
            Param::bool("pattern_priors", self.params.pattern_priors),
            Param::bool("solver", self.params.solver),
            Param::bool("resign", self.params.resign),
            Param::string("resign_threshold", self.params.resign_threshold.to_string()),
            Param::bool("alphabeta", self.params.alpha_beta),
            Param::int("max_depth", self.params.max_depth),
            Param::int("threat_visits", self.params.threat_visits),
            Param::int("threat_nodes", self.params.threat_nodes),
            Param::int("threat_nodes_per_playout", self.params.threat_nodes_per_playout),
            Param::int("knowledge_visits", self.params.knowledge_visits),
            Param::int("knowledge_nodes", self.params.knowledge_nodes),
            Param::int("knowledge_nodes_per_playout", self.params.knowledge_nodes_per_playout),
            Param::string("progressive_bias", self.params.progressive_bias.to_string()),
            Param::string("reply_bonus", self.params.reply_bonus.to_string()),
            Param::bool("playout_fill_in", self.params.playout_fill_in),
            Param::bool("pattern_playouts", self.params.pattern_playouts),
        ]
    }

    /// Sets one parameter by name.
    ///
    /// # Errors
    /// [`GtpError::UnknownParameter`] or [`GtpError::InvalidValue`]; nothing changes then.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), GtpError> {
        let invalid = invalid_value;
        match name {
            "max_visits" => self.max_visits = parse_u64(value)?,
            "max_time" => {
                self.max_time = parse_seconds(value)?;
                self.max_time_set = true;
            }
            "threads" => self.params.threads = parse_int_param(value, 1..=MAX_THREADS).map_err(invalid)?,
            "force_threads" => self.params.force_threads = crate::games::parse_bool_param(value).map_err(invalid)?,
            "seed" => self.set_seed(parse_u64(value)?),
            "exploration" => self.params.exploration = parse_non_negative(value)?,
            "max_memory_mb" => {
                self.params.max_memory_mb = parse_int_param(value, 16..=1 << 20).map_err(invalid)?;
            }
            "ponder" => self.ponder = crate::games::parse_bool_param(value).map_err(invalid)?,
            "ponder_max_visits" => self.ponder_max_visits = parse_u64(value)?,
            "ponder_max_time" => self.ponder_max_time = parse_seconds(value)?,
            "level" => self.level = parse_int_param(value, 1..=10).map_err(invalid)? as u32,
            "rave" => self.params.rave = crate::games::parse_bool_param(value).map_err(invalid)?,
            "priors" => self.params.priors = crate::games::parse_bool_param(value).map_err(invalid)?,
            "pattern_priors" => {
                self.params.pattern_priors = crate::games::parse_bool_param(value).map_err(invalid)?;
            }
            "solver" => self.params.solver = crate::games::parse_bool_param(value).map_err(invalid)?,
            "resign" => self.params.resign = crate::games::parse_bool_param(value).map_err(invalid)?,
            "alphabeta" => self.params.alpha_beta = crate::games::parse_bool_param(value).map_err(invalid)?,
            "max_depth" => self.params.max_depth = parse_int_param(value, 0..=60).map_err(invalid)? as u32,
            "threat_visits" => {
                self.params.threat_visits = parse_int_param(value, 0..=u32::MAX as usize).map_err(invalid)? as u32;
            }
            "threat_nodes" => self.params.threat_nodes = parse_u64(value)?,
            "threat_nodes_per_playout" => self.params.threat_nodes_per_playout = parse_u64(value)?,
            "knowledge_visits" => {
                self.params.knowledge_visits = parse_int_param(value, 0..=u32::MAX as usize).map_err(invalid)? as u32;
            }
            "knowledge_nodes" => self.params.knowledge_nodes = parse_u64(value)?,
            "knowledge_nodes_per_playout" => self.params.knowledge_nodes_per_playout = parse_u64(value)?,
            "progressive_bias" => self.params.progressive_bias = parse_non_negative(value)?,
            "reply_bonus" => self.params.reply_bonus = parse_non_negative(value)?,
            "playout_fill_in" => {
                self.params.playout_fill_in = crate::games::parse_bool_param(value).map_err(invalid)?;
            }
            "pattern_playouts" => {
                self.params.pattern_playouts = crate::games::parse_bool_param(value).map_err(invalid)?;
            }
            "resign_threshold" => {
                self.params.resign_threshold = value
                    .parse::<f64>()
                    .ok()
                    .filter(|rate| (0.0..1.0).contains(rate))
                    .ok_or_else(|| GtpError::InvalidValue("expected a win rate from 0 to below 1".to_string()))?;
            }
            _ => return Err(GtpError::UnknownParameter),
        }
        Ok(())
    }
}

fn parse_u64(value: &str) -> Result<u64, GtpError> {
    value.parse::<u64>().map_err(|_| GtpError::InvalidValue("expected a non-negative integer".to_string()))
}

/// A finite number of at least 0 (the search's constants).
fn parse_non_negative(value: &str) -> Result<f64, GtpError> {
    value
        .parse::<f64>()
        .ok()
        .filter(|c| c.is_finite() && *c >= 0.0)
        .ok_or_else(|| GtpError::InvalidValue("expected a non-negative number".to_string()))
}

fn parse_seconds(value: &str) -> Result<f64, GtpError> {
    value
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0 && *s < 1e9)
        .ok_or_else(|| GtpError::InvalidValue("expected seconds, 0 for no limit".to_string()))
}

fn format_seconds(seconds: f64) -> String {
    format!("{seconds}")
}

impl Session {
    /// `param_search`: lists, reads or sets a search parameter.
    pub(super) fn param_search(&mut self, request: ParamRequest) -> Result<String, GtpError> {
        answer_param_request(&self.settings.as_params(), request, |name, value| {
            self.settings.set(name, value)?;
            self.game.set_search_params(&self.settings.params);
            Ok(())
        })
    }

    /// `param_dfpn`: HexGui sends `param_dfpn use_guifx 1` before `dfpn-solve-state`, asking
    /// MoHex to draw its proof search as it runs. ponder's solver draws nothing while it runs;
    /// the setting is kept only so that it reads back, and it is the one parameter here.
    pub(super) fn param_dfpn(&mut self, request: ParamRequest) -> Result<String, GtpError> {
        if !self.game.has_vc_views() {
            return Err(GtpError::UnknownCommand);
        }
        let params = [Param::bool("use_guifx", self.dfpn_use_guifx)];
        answer_param_request(&params, request, |name, value| {
            if name != "use_guifx" {
                return Err(GtpError::UnknownParameter);
            }
            self.dfpn_use_guifx = parse_bool_param(value).map_err(invalid_value)?;
            Ok(())
        })
    }

    /// `ponder-stats`: the kept tree's size, reuse and memory, one `key value` a line.
    pub(super) fn stats(&self) -> String {
        let stats = self.game.tree_stats();
        format!(
            "nodes {}\nroot_visits {}\nreused_visits {}\nmemory_bytes {}\ncapacity_nodes {}",
            stats.nodes, stats.root_visits, stats.reused_visits, stats.memory_bytes, stats.capacity_nodes
        )
    }
}

/// A refused setting as the session's error.
fn invalid_value(error: ConfigError) -> GtpError {
    match error {
        ConfigError::InvalidValue(why) => GtpError::InvalidValue(why),
        _ => GtpError::InvalidValue(String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(target: f64, hard: f64) -> TimePlan {
        TimePlan {
            target: Duration::from_secs_f64(target),
            hard: Duration::from_secs_f64(hard),
            saved_time_carries_over: true,
        }
    }

    /// The knowledge parameters of this session set what they name, and a bad value is
    /// refused with its reason and changes nothing.
    #[test]
    fn reply_bonus_and_playout_fill_in_are_set_and_bad_values_refused() {
        let mut settings = SearchSettings::default();
        settings.set("reply_bonus", "2.5").unwrap();
        settings.set("playout_fill_in", "1").unwrap();
        assert_eq!((settings.params.reply_bonus, settings.params.playout_fill_in), (2.5, true));
        let before = settings.params.clone();
        for (name, value) in [("reply_bonus", "-1"), ("reply_bonus", "inf"), ("reply_bonus", "x")] {
            let error = settings.set(name, value).unwrap_err();
            assert_eq!(error, GtpError::InvalidValue("expected a non-negative number".to_string()), "{value}");
        }
        assert!(matches!(settings.set("playout_fill_in", "2"), Err(GtpError::InvalidValue(_))));
        assert_eq!(settings.params, before);
        settings.set("playout_fill_in", "0").unwrap();
        assert!(!settings.params.playout_fill_in);
    }

    #[test]
    fn a_cap_below_the_clocks_target_runs_to_the_cap() {
        let mut settings = SearchSettings::default();
        // The default cap (5 s, for play without a clock) leaves a clock's plan alone.
        let limits = settings.limits(Some(plan(100.0, 300.0)));
        assert_eq!(limits.target_time, Some(Duration::from_secs(100)));
        assert_eq!(limits.max_time, Some(Duration::from_secs(300)));
        assert_eq!(settings.limits(None).max_time, Some(Duration::from_secs(5)), "no clock: the default cap");
        settings.set("max_time", "4.9").unwrap();
        // A long match clock (target 100 s) under a 4.9 s cap: no target, the cap is the limit.
        let limits = settings.limits(Some(plan(100.0, 300.0)));
        assert_eq!(limits.target_time, None);
        assert_eq!(limits.max_time, Some(Duration::from_secs_f64(4.9)));
        // A short clock (target 2 s, hard 6 s): its target stands, the cap limits the hard end.
        let limits = settings.limits(Some(plan(2.0, 6.0)));
        assert_eq!(limits.target_time, Some(Duration::from_secs(2)));
        assert_eq!(limits.max_time, Some(Duration::from_secs_f64(4.9)));
        // No cap: the plan as it is.
        settings.set("max_time", "0").unwrap();
        let limits = settings.limits(Some(plan(100.0, 300.0)));
        assert_eq!(limits.target_time, Some(Duration::from_secs(100)));
        assert_eq!(limits.max_time, Some(Duration::from_secs(300)));
    }

    #[test]
    fn a_period_whose_leftover_is_lost_runs_to_its_hard_limit() {
        let settings = SearchSettings::default();
        // One stone a period (a per-move limit): no target, the move may use the whole period.
        let per_move = TimePlan { saved_time_carries_over: false, ..plan(0.9, 0.9) };
        let limits = settings.limits(Some(per_move));
        assert_eq!(limits.target_time, None);
        assert_eq!(limits.max_time, Some(Duration::from_secs_f64(0.9)));
        assert!(!limits.stop_when_decided);
        // Main time: the target stands, so the move may save time for the moves to come.
        let limits = settings.limits(Some(plan(0.9, 2.7)));
        assert_eq!(limits.target_time, Some(Duration::from_secs_f64(0.9)));
    }
}
