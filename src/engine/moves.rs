//! Handlers that change or read the game's moves: `play`, `genmove`, `reg_genmove`, `undo`.

use std::fmt;
use std::time::{Duration, Instant};

use super::active_game::{GenMove, ProgressCallback, SearchRequest, SearchSummary};
use super::{GtpError, Session};
use crate::games::Color;

impl fmt::Display for GenMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenMove::Move(mv, _) => f.write_str(mv),
            GenMove::Resign => f.write_str("resign"),
            GenMove::Pass => f.write_str("pass"),
        }
    }
}

impl Session {
    /// `play`. A `pass` in a finished game is accepted and changes nothing: our own `genmove`
    /// answers `pass` there, and controllers such as gogui-twogtp hand that answer on to the
    /// other engine.
    pub(super) fn play(&mut self, color: Color, mv: &str) -> Result<String, GtpError> {
        if self.game.is_over() && mv.eq_ignore_ascii_case("pass") {
            return Ok(String::new());
        }
        self.game.play(color, mv)?;
        Ok(String::new())
    }

    pub(super) fn undo(&mut self) -> Result<String, GtpError> {
        self.game.undo()?;
        Ok(String::new())
    }

    /// `genmove` (plays the move) and `reg_genmove` (does not).
    pub(super) fn genmove(&mut self, color: Color, commit: bool) -> Result<String, GtpError> {
        self.genmove_with(color, commit, None).map(|answer| answer.to_string())
    }

    /// Searches and answers a move for `color`. A finished game answers `resign` for its loser
    /// and `pass` otherwise. The time is the tighter of the search limits and the clock's plan; the
    /// time used is charged to our own clock (controllers that send `time_left` correct it).
    /// An interrupt that arrived for an earlier command is discarded; a search without any
    /// limit ends at the end of input. Blocks for the search.
    pub(super) fn genmove_with(
        &mut self,
        color: Color,
        commit: bool,
        progress: Option<(Duration, ProgressCallback)>,
    ) -> Result<GenMove, GtpError> {
        let started = Instant::now();
        let plan = self.clocks.plan(color, self.game.moves_left_estimate(), self.move_overhead.seconds());
        let mut limits = self.settings.limits(plan);
        let moves_played = self.game.moves_played();
        limits.expected_value = self.last_values[color.index()]
            .and_then(|(played_then, value)| (played_then + 2 == moves_played).then_some(value));
        let unlimited = limits.max_visits.is_none() && limits.max_time.is_none();
        self.signals.begin_search(unlimited, false);
        let request =
            SearchRequest { limits, seed: self.settings.next_search_seed(), stop: self.signals.stop_flag(), progress };
        let answer = self.game.genmove(color, request, commit);
        self.signals.end_search();
        let answer = answer?;
        self.last_search = None;
        if let GenMove::Move(_, Some(summary)) = &answer {
            log_summary(color, summary);
            self.last_values[color.index()] = Some((moves_played, summary.value));
            self.last_search = Some(summary.clone());
        }
        if let Some(plan) = plan {
            self.move_overhead.record(started.elapsed().as_secs_f64(), plan.hard.as_secs_f64());
            log::info!(
                "{color} clock: {:.3}s used, target {:.3}s, limit {:.3}s",
                started.elapsed().as_secs_f64(),
                plan.target.as_secs_f64(),
                plan.hard.as_secs_f64()
            );
        }
        if commit {
            self.clocks.charge(color, started.elapsed().as_secs_f64());
            self.engine_color = Some(color);
        }
        Ok(answer)
    }
}

/// The one-line search summary on stderr.
fn log_summary(color: Color, summary: &SearchSummary) {
    let seconds = summary.elapsed.as_secs_f64();
    let proof = summary.proof.summary_note();
    let unit = summary.work_unit();
    let depth = summary.depth_note();
    log::info!(
        "{color} {}: {} {unit} ({} reused) in {seconds:.2}s, {:.0} {unit}/s{depth}, win rate {:.1}%{proof}, pv {}",
        summary.mv,
        summary.playouts,
        summary.reused_visits,
        summary.playouts as f64 / seconds.max(1e-9),
        summary.value * 100.0,
        summary.pv.join(" ")
    );
}
