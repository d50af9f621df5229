//! Read access to the current game as a record: its stones, legal moves and the moves played,
//! for SGF files, GoGui's rules commands and the match referee. Everything here is generic over
//! [`Game`], so a new game gets SGF and GoGui support from its `CELL_NAMES` and
//! `stone_at_point` alone. The session's games implement the view next to their state
//! (`active_game`), so this module depends on the rules only.

use crate::games::{CellNames, Color, Game};

/// The stones of a set-up start position (each with its board point, column and row) and the
/// side to move there.
pub type StartSetup = (Vec<(Color, (usize, usize))>, Color);

/// Read access to the current game as a record. Every [`ActiveGame`](super::ActiveGame) is one.
pub trait GameRecord {
    /// The legal moves of the side to move, in the game's notation; empty once the game is over.
    fn legal_move_names(&self) -> Vec<String>;
    /// The stones of the current position, row by row from the top, each row from the left.
    fn stone_rows(&self) -> Vec<Vec<Option<Color>>>;
    /// How the game's cell names map to board points.
    fn cell_names(&self) -> CellNames;
    /// The stones of the start position when it is a set-up (empty for the game's usual start),
    /// and the side to move there.
    fn start_setup(&self) -> StartSetup;
    /// The moves played since the start or set-up position, with the colour that played each.
    fn moves_with_colors(&self) -> Vec<(Color, String)>;
}

pub(super) fn stones_of<G: Game>(position: &G, (width, height): (usize, usize)) -> Vec<Vec<Option<Color>>> {
    (0..height).map(|row| (0..width).map(|column| position.stone_at_point(column, row)).collect()).collect()
}

/// The colour and move that lead from `before` to `after`, if one does.
pub(super) fn move_between<G: Game>(before: &G, after: &G) -> Option<(Color, String)> {
    let mut moves = Vec::new();
    for color in [before.to_move(), before.to_move().opponent()] {
        let mut position = before.clone();
        if position.give_turn_to(color).is_err() {
            continue;
        }
        moves.clear();
        position.legal_moves(&mut moves);
        for &mv in &moves {
            let mut next = position.clone();
            next.play_unchecked(mv);
            if next.hash() == after.hash() && next.to_move() == after.to_move() {
                return Some((color, position.format_move(mv)));
            }
        }
    }
    None
}
