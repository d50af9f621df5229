//! GoGui's rules commands (`gogui-rules_*`): with them GoGui draws the board, checks moves and
//! ends the game from ponder's own rules, so ponder can be GoGui's ruler as well as its player.
//!
//! GoGui names every point as a Go vertex (`A1` bottom-left, no `I`), whatever the game calls
//! its cells, and sends its ruler and its player the same names. So once GoGui has asked
//! `gogui-rules_game_id` (it always does first), the session reads and writes moves as GoGui's
//! vertices; games named from the top-left (Hex, Reversi) are translated, the others already
//! agree. The exact replies are in `protocol-specs/gogui-rules.md`.

use super::game_record::gogui_game_id;
use super::{GtpError, Session};
use crate::games::{CellNames, Color};
use crate::protocol::command::RulesQuery;

impl Session {
    /// Answers one `gogui-rules_*` command.
    pub(super) fn rules_query(&self, query: RulesQuery) -> Result<String, GtpError> {
        let game = self.game();
        Ok(match query {
            RulesQuery::GameId => gogui_game_id(game.name()),
            RulesQuery::BoardSize => gogui_side(game.size()).to_string(),
            RulesQuery::Board => gogui_board(&game.stone_rows(), gogui_side(game.size())),
            RulesQuery::LegalMoves => {
                let (width, height) = game.size();
                let names = game.cell_names();
                game.legal_move_names()
                    .into_iter()
                    .map(|text| gogui_point_name(names, &text, width, height))
                    .collect::<Vec<_>>()
                    .join(" ")
            }
            RulesQuery::SideToMove => game.to_move().to_string(),
            RulesQuery::FinalResult => match game.final_score() {
                Ok(score) => result_sentence(&score),
                Err(_) => "unknown".to_string(),
            },
            RulesQuery::CapturedCount => "0 0".to_string(),
        })
    }
}

/// The side of the square board GoGui shows for a board of `size`. GoGui 1.6 draws square
/// boards only (a "W H" answer makes it fail on its own board), so a W×H board is shown as the
/// square of its longer side, the cells beyond the board marked removed and never legal.
fn gogui_side((width, height): (usize, usize)) -> usize {
    width.max(height)
}

/// The position as `gogui-rules_board` shows it on a square of `side`: rows from the top, `X`
/// Black, `O` White, `.` empty, and `?` (GoGui's removed point) for the cells a non-square
/// board lacks, above it and to its right, so that GoGui's vertices (row 1 at the bottom)
/// stay the game's.
fn gogui_board(stone_rows: &[Vec<Option<Color>>], side: usize) -> String {
    let missing_rows = side - stone_rows.len();
    let mut lines = vec![vec!["?"; side].join(" "); missing_rows];
    for row in stone_rows {
        let mut cells: Vec<&str> = row
            .iter()
            .map(|stone| match stone {
                Some(Color::Black) => "X",
                Some(Color::White) => "O",
                None => ".",
            })
            .collect();
        cells.resize(side, "?");
        lines.push(cells.join(" "));
    }
    lines.join("\n")
}

impl Session {
    /// Whether `boardsize WIDTH HEIGHT` is GoGui starting a new game on the square it shows
    /// for the current non-square board (it sends `boardsize N` with every new game): that keeps
    /// the board. To change such a board to N×N in GoGui, choose another size first.
    pub(super) fn gogui_shows_board_as(&self, width: usize, height: usize) -> bool {
        let size = self.game().size();
        self.gogui_rules_mode && width == height && size.0 != size.1 && gogui_side(size) == width
    }

    /// A move text from the controller in the game's own notation: in GoGui's rules mode a GoGui
    /// vertex becomes the game's cell name, and texts that name no point (`pass`,
    /// `swap-pieces`, or garbage the game will refuse) pass unchanged.
    ///
    /// # Errors
    /// `illegal move` in GoGui's rules mode for a cell name that is no GoGui vertex (column
    /// `I`, or off the board), which the game's own notation might otherwise accept.
    pub(super) fn move_from_controller(&self, text: &str) -> Result<String, GtpError> {
        let game = self.game();
        let names = game.cell_names();
        if !self.gogui_rules_mode || names == CellNames::GoVertex {
            return Ok(text.to_string());
        }
        let (width, height) = game.size();
        match CellNames::GoVertex.point_of(text, width, height) {
            Some((column, row)) => names.name_of(column, row, height).ok_or(GtpError::IllegalMove),
            None if names.point_of(text, width, height).is_some() => Err(GtpError::IllegalMove),
            None => Ok(text.to_string()),
        }
    }

    /// A move text of the game as the controller names it: a GoGui vertex in GoGui's rules mode.
    pub(super) fn move_to_controller(&self, text: &str) -> String {
        if !self.gogui_rules_mode {
            return text.to_string();
        }
        let (width, height) = self.game().size();
        gogui_point_name(self.game().cell_names(), text, width, height)
    }

    /// A view's text (a variation, move values, connections) with every cell name as the
    /// controller names it; the other words and the line breaks stay.
    pub(super) fn cells_to_controller(&self, text: &str) -> String {
        if !self.gogui_rules_mode || self.game().cell_names() == CellNames::GoVertex {
            return text.to_string();
        }
        let lines: Vec<String> = text
            .lines()
            .map(|line| line.split(' ').map(|word| self.move_to_controller(word)).collect::<Vec<_>>().join(" "))
            .collect();
        lines.join("\n")
    }
}

/// GoGui names points as Go vertices (`A1` bottom-left, no `I`) whatever the game calls them;
/// moves that are no point (`pass`, `swap-pieces`) keep their text.
fn gogui_point_name(names: CellNames, text: &str, width: usize, height: usize) -> String {
    if text.eq_ignore_ascii_case("pass") {
        return "pass".to_string();
    }
    names
        .point_of(text, width, height)
        .and_then(|(column, row)| CellNames::GoVertex.name_of(column, row, height))
        .unwrap_or_else(|| text.to_string())
}

/// The `final_score` text (`B+`, `W+12`, `0`) as the sentence GoGui shows at the end.
fn result_sentence(score: &str) -> String {
    let (winner, margin) = match score.split_once('+') {
        Some(("B", margin)) => ("Black", margin),
        Some(("W", margin)) => ("White", margin),
        _ => return "Draw.".to_string(),
    };
    if margin.is_empty() { format!("{winner} wins.") } else { format!("{winner} wins by {margin}.") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_read_as_sentences() {
        assert_eq!(result_sentence("B+"), "Black wins.");
        assert_eq!(result_sentence("W+12"), "White wins by 12.");
        assert_eq!(result_sentence("0"), "Draw.");
    }

    #[test]
    fn boards_that_are_not_square_fill_the_square_above_and_to_the_right() {
        let (x, o) = (Some(Color::Black), Some(Color::White));
        let wide = [vec![None, None, o], vec![x, None, None]];
        assert_eq!(gogui_side((3, 2)), 3);
        assert_eq!(gogui_board(&wide, 3), "? ? ?\n. . O\nX . .");
        let tall = [vec![o], vec![None], vec![x]];
        assert_eq!(gogui_side((1, 3)), 3);
        assert_eq!(gogui_board(&tall, 3), "O ? ?\n. ? ?\nX ? ?");
    }

    #[test]
    fn points_are_named_the_go_way() {
        assert_eq!(gogui_point_name(CellNames::GoVertex, "c3", 3, 3), "C3");
        assert_eq!(gogui_point_name(CellNames::LetterFromTop, "a1", 8, 8), "A8");
        assert_eq!(gogui_point_name(CellNames::LetterFromTop, "swap-pieces", 8, 8), "swap-pieces");
    }
}
