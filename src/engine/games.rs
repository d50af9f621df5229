//! The registry of games a session can switch to with `set_game`.

use super::active_game::{ActiveGame, GameState};
use crate::games::mnk::{Mnk, MnkConfig};
use crate::search::SearchParams;

/// One game of the registry: its `set_game` name, accepted aliases, and a constructor.
pub struct GameEntry {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub create: fn(&SearchParams) -> Box<dyn ActiveGame>,
}

/// Every game ponder plays, in `list_games` order.
pub const GAMES: &[GameEntry] = &[
    GameEntry {
        name: "tictactoe",
        aliases: &["tic-tac-toe", "ttt"],
        create: |params| Box::new(GameState::<Mnk>::new("tictactoe", MnkConfig::tictactoe(), params)),
    },
    GameEntry {
        name: "gomoku",
        aliases: &[],
        create: |params| Box::new(GameState::<Mnk>::new("gomoku", MnkConfig::gomoku(), params)),
    },
];

/// The game called `name` (or one of its aliases), any case.
pub fn find_game(name: &str) -> Option<&'static GameEntry> {
    let name = name.to_ascii_lowercase();
    GAMES.iter().find(|entry| entry.name == name || entry.aliases.contains(&name.as_str()))
}

/// The `list_games` reply: one name a line.
pub fn list_games() -> String {
    GAMES.iter().map(|entry| entry.name).collect::<Vec<_>>().join("\n")
}
