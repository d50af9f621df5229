//! The current game as an SGF record and back, for `savesgf`/`loadsgf` and the match referee,
//! built on the [`GameRecord`](super::record_view::GameRecord) view every game has.

use super::active_game::ActiveGame;
use super::games::{GameEntry, find_game};
use crate::search::SearchParams;
use crate::sgf::{Record, SgfMove, game_numbers};

/// The SGF game number ponder writes for a registry game (see `protocol-specs/sgf.md`).
pub fn sgf_game_number(game: &str) -> u32 {
    match game {
        "tictactoe" | "gomoku" => game_numbers::GOMOKU,
        "reversi" => game_numbers::OTHELLO,
        "hex" => game_numbers::HEX,
        _ => game_numbers::GO,
    }
}

/// GoGui's game id for a registry game: a capital letter, then lower-case letters (GoGui
/// compares ids between a program and a ruler).
pub fn gogui_game_id(game: &str) -> String {
    let name = match game {
        "reversi" => "othello",
        other => other,
    };
    let mut id = String::new();
    for (index, c) in name.chars().enumerate() {
        id.push(if index == 0 { c.to_ascii_uppercase() } else { c.to_ascii_lowercase() });
    }
    id
}

/// A move text as an SGF move: a point when it names a cell, a pass, or the text itself.
pub fn sgf_move(game: &dyn ActiveGame, text: &str) -> SgfMove {
    let (width, height) = game.size();
    if text.eq_ignore_ascii_case("pass") {
        SgfMove::Pass
    } else if let Some((column, row)) = game.cell_names().point_of(text, width, height) {
        SgfMove::Point { column, row }
    } else {
        SgfMove::Text(text.to_string())
    }
}

/// An SGF move as a move text of `game`.
///
/// # Errors
/// A message when the point has no cell name in this game.
pub fn move_text(game: &dyn ActiveGame, mv: &SgfMove) -> Result<String, String> {
    match mv {
        SgfMove::Pass => Ok("pass".to_string()),
        SgfMove::Text(text) => Ok(text.clone()),
        SgfMove::Point { column, row } => game
            .cell_names()
            .name_of(*column, *row, game.size().1)
            .ok_or_else(|| format!("point {} has no cell name", crate::sgf::format_point(*column, *row))),
    }
}

/// The current game as an SGF record: game number, rules (`RU[name key=value …]`), size,
/// set-up, moves, and the result when the game is over.
pub fn record_of(game: &dyn ActiveGame) -> Record {
    let mut record = Record::new(sgf_game_number(game.name()), game.size());
    let mut rules = game.name().to_string();
    for param in game.params() {
        rules.push_str(&format!(" {}={}", param.name, param.value));
    }
    record.rules = Some(rules);
    let (setup, to_move) = game.start_setup();
    if !setup.is_empty() {
        record.setup = setup;
        record.to_play = Some(to_move);
    }
    record.moves = game.moves_with_colors().into_iter().map(|(color, text)| (color, sgf_move(game, &text))).collect();
    if game.is_over() {
        record.result = game.final_score().ok();
    }
    record
}

/// The registry game a record is for: the first word of `RU` when it names one, else the game
/// ponder plays with that `GM` number, else (a file with neither, as GoGui writes them for
/// every game) `current`, the game being played.
///
/// # Errors
/// A message when no game of the registry fits.
pub fn game_of_record(record: &Record, current: &str) -> Result<&'static GameEntry, String> {
    if let Some(entry) = record.rules.as_deref().and_then(|rules| rules.split_whitespace().next()).and_then(find_game) {
        return Ok(entry);
    }
    let Some(game_number) = record.game_number else {
        return find_game(current).ok_or_else(|| format!("no game named {current}"));
    };
    let name = match game_number {
        game_numbers::GOMOKU if record.size.0.max(record.size.1) < 5 => "tictactoe",
        game_numbers::GOMOKU => "gomoku",
        game_numbers::OTHELLO => "reversi",
        game_numbers::HEX => "hex",
        game_numbers::GO => "nogo",
        _ => "",
    };
    find_game(name).ok_or_else(|| format!("no game for GM[{game_number}]"))
}

/// A new game holding the record's position before move `move_number` (1-based; all moves when
/// `None`), with the size and variant parameters the record names; a record that names no game
/// is one of `current` (see [`game_of_record`]).
///
/// # Errors
/// A message saying which size, parameter, set-up stone or move the game refused.
pub fn load_record(
    record: &Record,
    move_number: Option<usize>,
    current: &str,
    params: &SearchParams,
) -> Result<Box<dyn ActiveGame>, String> {
    let entry = game_of_record(record, current)?;
    let mut game = (entry.create)(params);
    let (width, height) = record.size;
    game.set_size(width, height).map_err(|error| format!("SZ[{width}:{height}]: {error}"))?;
    let variant = record.rules.as_deref().unwrap_or_default().split_whitespace().filter_map(|w| w.split_once('='));
    for (name, value) in variant {
        game.set_param(name, value).map_err(|error| format!("RU parameter {name}={value}: {error}"))?;
    }
    if !record.setup.is_empty() {
        let mut stones = Vec::new();
        for (color, (column, row)) in &record.setup {
            stones.push((*color, move_text(game.as_ref(), &SgfMove::Point { column: *column, row: *row })?));
        }
        game.set_position(&stones).map_err(|error| format!("set-up: {error}"))?;
        if let Some(color) = record.to_play {
            game.set_setup_to_move(color).map_err(|error| format!("PL[{}]: {error}", color.letter()))?;
        }
    }
    let count = move_number.map_or(record.moves.len(), |n| n.saturating_sub(1));
    for (index, (color, mv)) in record.moves.iter().take(count).enumerate() {
        let text = move_text(game.as_ref(), mv)?;
        game.play(*color, &text).map_err(|error| format!("move {} ({color} {text}): {error}", index + 1))?;
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Color;

    fn game(name: &str) -> Box<dyn ActiveGame> {
        (find_game(name).unwrap().create)(&SearchParams::default())
    }

    #[test]
    fn records_list_the_moves_played_even_out_of_turn() {
        let mut ttt = game("tictactoe");
        for (color, mv) in [(Color::Black, "B2"), (Color::White, "A3"), (Color::White, "C1"), (Color::Black, "A1")] {
            ttt.play(color, mv).unwrap();
        }
        let record = record_of(ttt.as_ref());
        assert_eq!(record.game_number, Some(4));
        assert_eq!(record.rules.as_deref(), Some("tictactoe k=3 misere=0"));
        assert_eq!(
            record.moves,
            [
                (Color::Black, SgfMove::Point { column: 1, row: 1 }),
                (Color::White, SgfMove::Point { column: 0, row: 0 }),
                (Color::White, SgfMove::Point { column: 2, row: 2 }),
                (Color::Black, SgfMove::Point { column: 0, row: 2 }),
            ]
        );
        let text = record.to_sgf();
        assert!(text.contains(";B[bb];W[aa];W[cc];B[ac]"), "{text}");
        let loaded = load_record(&Record::from_sgf(&text).unwrap(), None, "nogo", &SearchParams::default()).unwrap();
        assert_eq!(loaded.stone_rows(), ttt.stone_rows());
        assert_eq!(loaded.board_text(), ttt.board_text());
        let before_third = load_record(&record, Some(3), "nogo", &SearchParams::default()).unwrap();
        assert_eq!(before_third.moves_played(), 2);
    }

    #[test]
    fn finished_games_carry_their_result_and_setups_their_stones() {
        let mut ttt = game("tictactoe");
        ttt.set_position(&[(Color::Black, "A1".into()), (Color::White, "C3".into())]).unwrap();
        for (color, mv) in [(Color::Black, "A2"), (Color::White, "B3"), (Color::Black, "A3")] {
            ttt.play(color, mv).unwrap();
        }
        let record = record_of(ttt.as_ref());
        assert_eq!(record.result.as_deref(), Some("B+"));
        assert_eq!(record.setup, [(Color::White, (2, 0)), (Color::Black, (0, 2))]);
        let loaded = load_record(&record, None, "nogo", &SearchParams::default()).unwrap();
        assert!(loaded.is_over());
        assert_eq!(loaded.board_text(), ttt.board_text());
    }

    #[test]
    fn records_pick_the_game_and_refuse_what_it_cannot_play() {
        let gomoku = Record::from_sgf("(;GM[4]SZ[9];B[ee];W[ff])").unwrap();
        assert_eq!(game_of_record(&gomoku, "nogo").unwrap().name, "gomoku");
        let loaded = load_record(&gomoku, None, "nogo", &SearchParams::default()).unwrap();
        assert_eq!((loaded.name(), loaded.size(), loaded.moves_played()), ("gomoku", (9, 9), 2));
        let misere = Record::from_sgf("(;GM[4]SZ[3]RU[tictactoe misere=1])").unwrap();
        let loaded = load_record(&misere, None, "nogo", &SearchParams::default()).unwrap();
        assert!(loaded.params().iter().any(|p| p.name == "misere" && p.value == "1"));
        for bad in ["(;GM[4]SZ[3];B[aa];W[aa])", "(;GM[4]SZ[40])", "(;GM[4]SZ[3]RU[tictactoe k=9])", "(;GM[99])"] {
            let record = Record::from_sgf(bad).unwrap();
            assert!(load_record(&record, None, "nogo", &SearchParams::default()).is_err(), "{bad} loaded");
        }
    }

    #[test]
    fn gogui_ids_are_capitalised() {
        assert_eq!(gogui_game_id("tictactoe"), "Tictactoe");
        assert_eq!(gogui_game_id("reversi"), "Othello");
        assert_eq!(gogui_game_id("connect4"), "Connect4");
    }
}
