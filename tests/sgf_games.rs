//! SGF for every game of the registry: a game played through the session, written with
//! `savesgf` and read back with `loadsgf` in a fresh session, gives the same board, variant,
//! side to move and move count; `loadsgf FILE N` stops before move N.

use ponder::engine::{GAMES, Session};
use ponder::frontends::gtp::answer;

fn ask(session: &mut Session, command: &str) -> String {
    let reply = answer(session, command.as_bytes()).unwrap();
    assert!(reply.starts_with('='), "{command}: {reply}");
    reply.trim_start_matches('=').trim().to_string()
}

/// The observable state a record must restore.
fn state(session: &mut Session) -> Vec<String> {
    let moves = session.game().moves_played().to_string();
    let mut state: Vec<String> = ["showboard", "param_game", "gogui-rules_side_to_move", "gogui-rules_game_id"]
        .iter()
        .map(|command| ask(session, command))
        .collect();
    state.push(moves);
    state
}

/// A variant setting to exercise per game, so the record must carry the rules too.
fn variant(game: &str) -> Option<&'static str> {
    match game {
        "tictactoe" => Some("param_game misere 1"),
        "gomoku" => Some("param_game exact_five 1"),
        "connect4" => Some("param_game blocked c3"),
        "hex" => Some("param_game allow_swap 1"),
        _ => None,
    }
}

#[test]
fn every_game_round_trips_through_sgf_files() {
    let dir = std::env::temp_dir().join(format!("ponder-sgf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for entry in GAMES {
        let mut session = Session::new(entry.name).unwrap();
        for setting in ["seed 4", "max_visits 40", "max_time 0.05", "threads 1"] {
            ask(&mut session, &format!("param_search {setting}"));
        }
        if let Some(command) = variant(entry.name) {
            ask(&mut session, command);
        }
        let mut colors = ["b", "w"].iter().cycle();
        for _ in 0..6 {
            let reply = ask(&mut session, &format!("genmove {}", colors.next().unwrap()));
            if reply == "resign" || reply == "pass" {
                break;
            }
        }
        let moves = session.game().moves_played();
        assert!(moves >= 3, "{}: only {moves} moves", entry.name);
        let expected = state(&mut session);
        let path = dir.join(format!("{}.sgf", entry.name));
        ask(&mut session, &format!("savesgf {}", path.display()));
        assert_eq!(ask(&mut session, "printsgf"), std::fs::read_to_string(&path).unwrap().trim_end(), "{}", entry.name);

        let mut fresh = Session::new("tictactoe").unwrap();
        ask(&mut fresh, &format!("loadsgf {}", path.display()));
        assert_eq!(state(&mut fresh), expected, "{} after loadsgf", entry.name);

        // Before move 3: two moves played, the same game and variant.
        let mut partial = Session::new("tictactoe").unwrap();
        ask(&mut partial, &format!("loadsgf {} 3", path.display()));
        assert_eq!(partial.game().moves_played(), 2, "{}", entry.name);
        assert_eq!(partial.game().name(), entry.name);
        assert_eq!(ask(&mut partial, "param_game"), expected[1], "{}", entry.name);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// GoGui writes no `GM` or `RU` whatever game it shows, so its files load as the game being
/// played; its points count rows from the top like ours, and in GoGui's rules mode its moves
/// are ours.
#[test]
fn a_reversi_game_saved_by_gogui_loads() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/sgf/gogui-reversi.sgf");
    let mut session = Session::new("reversi").unwrap();
    ask(&mut session, "gogui-rules_game_id");
    ask(&mut session, &format!("loadsgf {path}"));
    assert_eq!(session.game().name(), "reversi");
    assert_eq!(session.game().moves_played(), 52);
    assert_eq!(ask(&mut session, "final_score"), "W+48");
    assert_eq!(ask(&mut session, "gogui-rules_final_result"), "White wins by 48.");
    // Move 10 is W[da]: d1 in Othello's names (row a is the top), D8 on GoGui's board.
    ask(&mut session, &format!("loadsgf {path} 10"));
    assert!(ask(&mut session, "gogui-rules_legal_moves").split(' ').any(|mv| mv == "D8"));
    ask(&mut session, "play w D8");
    let board = ask(&mut session, "gogui-rules_board");
    assert_eq!(board.lines().next().unwrap().split(' ').nth(3), Some("O"), "{board}");
}
