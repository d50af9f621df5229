//! Live analysis (`lz-analyze`, `kata-analyze` and their `genmove_analyze` forms), the GoGui and
//! HexGui analyze-command lists, and the views of the last search (`ponder-pv`,
//! `ponder-move_values`).

use super::active_game::{AnalysisMove, SearchRequest};
use super::{GtpError, Session};
use crate::protocol::command::{AnalysisFormat, AnalysisView, AnalyzeCommandsFor, AnalyzeRequest};
use crate::search::Limits;

/// The `gogui-analyze_commands` / `hexgui-analyze_commands` reply: `type/label/command` lines,
/// with the virtual-connection views when the game has them (Hex). `%m` is the side to move in
/// both GUIs.
///
/// GoGui also gets "Save Game with Result" (`savesgf %w`, GoGui asks for the file) when the file
/// commands are on: GoGui 1.6 puts a result into its own game record only after a resignation,
/// a loss on time or its Go scoring, so a game that ends on the board has no `RE` in GoGui's
/// file, while ponder's has it.
pub(super) fn analyze_commands(gui: AnalyzeCommandsFor, vc_views: bool, file_commands: bool) -> String {
    let mut entries = vec!["param/Game Parameters/param_game", "param/Search Parameters/param_search"];
    // HexGui's `var` wants bare cells and its `gfx` only INFLUENCE and TEXT, so it gets the
    // principal variation as cells and the move values as `pspairs` (cell, text).
    entries.extend(match gui {
        AnalyzeCommandsFor::GoGui => ["var/Principal Variation/ponder-pv", "gfx/Move Values/ponder-move_values"],
        AnalyzeCommandsFor::HexGui => {
            ["var/Principal Variation/ponder-pv cells", "pspairs/Move Values/ponder-move_values pairs"]
        }
    });
    entries.push("string/Search Statistics/ponder-stats");
    if gui == AnalyzeCommandsFor::GoGui && file_commands {
        entries.push("none/Save Game with Result/savesgf %w");
    }
    if vc_views {
        entries.extend([
            "gfx/VC Status/ponder-vc_status %m",
            "gfx/VC Carrier/ponder-vc_carrier %m",
            "gfx/VC Mustplay/ponder-vc_mustplay %m",
        ]);
    }
    entries.join("\n")
}

/// One info line in Leela Zero's or KataGo's format: every reported move, best first.
pub fn format_info_line(format: AnalysisFormat, moves: &[AnalysisMove], max_moves: Option<usize>) -> String {
    let count = max_moves.unwrap_or(usize::MAX).min(moves.len()).max(1).min(moves.len());
    moves[..count]
        .iter()
        .enumerate()
        .map(|(order, analysis)| {
            let pv = analysis.pv.join(" ");
            match format {
                AnalysisFormat::Lz => format!(
                    "info move {} visits {} winrate {} prior {} lcb {} order {order} pv {pv}",
                    analysis.mv,
                    analysis.visits,
                    per_ten_thousand(analysis.winrate),
                    per_ten_thousand(analysis.prior),
                    per_ten_thousand(analysis.lcb),
                ),
                // KataGo's `scoreLead` where the search estimates the score (Reversi's discs).
                AnalysisFormat::Kata => format!(
                    "info move {} visits {} utility {:.6} winrate {:.6}{} prior {:.6} lcb {:.6} order {order} pv {pv}",
                    analysis.mv,
                    analysis.visits,
                    2.0 * analysis.winrate - 1.0,
                    analysis.winrate,
                    analysis.score_lead.map(|lead| format!(" scoreLead {lead:.2}")).unwrap_or_default(),
                    analysis.prior,
                    analysis.lcb,
                ),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a move text names a cell (`e6`), not `swap-pieces` or `pass`: HexGui has no board
/// field for those and fails on them.
fn is_cell_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && !chars.as_str().is_empty()
        && chars.all(|c| c.is_ascii_digit())
}

fn per_ten_thousand(value: f64) -> u32 {
    (value.clamp(0.0, 1.0) * 10_000.0).round() as u32
}

impl Session {
    /// `lz-analyze` / `kata-analyze`: searches the position for the requested side until the
    /// next input line (or until the position is solved), handing an info line to `emit` about
    /// every interval and once more at the end, so a running game always gets one. Lines only
    /// come while this call runs, so none can belong to another position. Blocks.
    ///
    /// # Errors
    /// `illegal move` when the requested side cannot be handed the turn; nothing was emitted.
    ///
    /// With `until_input` false (a caller without an input stream, such as [`Session::execute`])
    /// the analysis instead stops at the `genmove` limits, since no line can ever end it.
    pub fn run_analysis(
        &mut self,
        request: &AnalyzeRequest,
        until_input: bool,
        emit: &mut dyn FnMut(&str),
    ) -> Result<(), GtpError> {
        let color = request.color.unwrap_or_else(|| self.game.to_move());
        let mut report = |moves: &[AnalysisMove]| {
            if !moves.is_empty() {
                emit(&format_info_line(request.format, moves, request.max_moves));
            }
        };
        let limits = if until_input {
            Limits::default()
        } else {
            Limits { stop_when_decided: false, ..self.settings.limits(None) }
        };
        self.signals.begin_search(until_input, until_input);
        let search = SearchRequest {
            limits,
            seed: self.settings.next_search_seed(),
            stop: self.signals.stop_flag(),
            progress: Some((request.interval, &mut report)),
        };
        let result = self.game.analyze(color, search);
        self.signals.end_search();
        result.map(drop)
    }

    /// `lz-genmove_analyze` / `kata-genmove_analyze`: a `genmove` (within the move limits, not
    /// ended by input) that emits info lines as it searches; returns the final `play MOVE` line.
    ///
    /// # Errors
    /// As `genmove`.
    pub fn run_genmove_analysis(
        &mut self,
        request: &AnalyzeRequest,
        emit: &mut dyn FnMut(&str),
    ) -> Result<String, GtpError> {
        let color = request.color.unwrap_or_else(|| self.game.to_move());
        let mut report = |moves: &[AnalysisMove]| {
            if !moves.is_empty() {
                emit(&format_info_line(request.format, moves, request.max_moves));
            }
        };
        let answer = self.genmove_with(color, true, Some((request.interval, &mut report)))?;
        Ok(format!("play {answer}"))
    }

    /// `ponder-pv`: the principal variation of the kept tree for the current position, as GoGui's
    /// `var` type wants it (`b A1 w B2 …`) or HexGui's (`a1 b2 …`, colours alternating from the
    /// side to move); empty when there is none.
    pub(super) fn principal_variation(&self, view: AnalysisView) -> String {
        let moves = self.game.last_analysis();
        let Some(best) = moves.first() else {
            return String::new();
        };
        if view == AnalysisView::HexGui {
            // HexGui alternates the colours itself and draws only cells: stop at a swap.
            let cells: Vec<&str> = best.pv.iter().map(String::as_str).take_while(|mv| is_cell_name(mv)).collect();
            return cells.join(" ");
        }
        let mut color = self.game.to_move();
        let mut parts = Vec::new();
        for mv in &best.pv {
            parts.push(format!("{} {mv}", color.letter().to_ascii_lowercase()));
            color = color.opponent();
        }
        parts.join(" ")
    }

    /// `ponder-move_values`: each searched move's win rate in percent, as GoGui `gfx` labels
    /// (`LABEL a1 55` lines) or as HexGui `pspairs` (`a1 55 b2 48`, on one line).
    pub(super) fn move_values(&self, view: AnalysisView) -> String {
        let values = self.game.last_analysis();
        let value = |winrate: f64| (winrate * 100.0).round();
        match view {
            AnalysisView::GoGui => {
                let labels: Vec<String> = values
                    .iter()
                    .map(|analysis| format!("LABEL {} {}", analysis.mv, value(analysis.winrate)))
                    .collect();
                labels.join("\n")
            }
            AnalysisView::HexGui => {
                let pairs: Vec<String> = values
                    .iter()
                    .filter(|analysis| is_cell_name(&analysis.mv))
                    .map(|analysis| format!("{} {}", analysis.mv, value(analysis.winrate)))
                    .collect();
                pairs.join(" ")
            }
        }
    }
}
