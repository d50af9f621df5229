//! Handlers that change or read the game's moves: `play`, `genmove`, `reg_genmove`, `undo`.

use super::active_game::{GenMove, SearchRequest};
use super::{GtpError, Session};
use crate::games::Color;

impl Session {
    pub(super) fn play(&mut self, color: Color, mv: &str) -> Result<String, GtpError> {
        self.game.play(color, mv)?;
        Ok(String::new())
    }

    pub(super) fn undo(&mut self) -> Result<String, GtpError> {
        self.game.undo()?;
        Ok(String::new())
    }

    /// `genmove` (plays the move) and `reg_genmove` (does not). A finished game answers
    /// `resign` for its loser and `pass` otherwise. An interrupt that arrived before the search
    /// started is discarded: it was meant for an earlier command. A search without any limit
    /// ends at the end of input.
    pub(super) fn genmove(&mut self, color: Color, commit: bool) -> Result<String, GtpError> {
        let limits = self.settings.limits();
        let unlimited = limits.max_visits.is_none() && limits.max_time.is_none();
        self.signals.begin_search(unlimited, false);
        let request = SearchRequest {
            limits,
            seed: self.settings.next_search_seed(),
            stop: self.signals.stop_flag(),
        };
        let answer = self.game.genmove(color, &request, commit);
        self.signals.end_search();
        let answer = answer?;
        Ok(match answer {
            GenMove::Move(mv, summary) => {
                if let Some(summary) = summary {
                    log::info!(
                        "{} {}: {} playouts ({} reused) in {:.2}s, {:.0} playouts/s, win rate {:.1}%{}, pv {}",
                        color,
                        summary.mv,
                        summary.playouts,
                        summary.reused_visits,
                        summary.elapsed.as_secs_f64(),
                        summary.playouts as f64 / summary.elapsed.as_secs_f64().max(1e-9),
                        summary.value * 100.0,
                        match summary.proof {
                            crate::search::RootProof::Unknown => "",
                            crate::search::RootProof::Win => " (proven win)",
                            crate::search::RootProof::Loss => " (proven loss)",
                            crate::search::RootProof::Draw => " (proven draw)",
                        },
                        summary.pv.join(" ")
                    );
                }
                mv
            }
            GenMove::Resign => "resign".to_string(),
            GenMove::Pass => "pass".to_string(),
        })
    }
}
