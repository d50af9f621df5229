//! Bad input gets the exact GTP error and leaves the session unchanged.

use ponder::engine::Session;
use ponder::frontends::gtp::answer;

fn session_with(commands: &[&str]) -> Session {
    let mut session = Session::new("tictactoe").unwrap();
    for command in
        ["param_search seed 3", "param_search max_time 0", "param_search max_visits 500"].iter().chain(commands)
    {
        let reply = answer(&mut session, command.as_bytes()).unwrap();
        assert!(reply.starts_with('='), "{command}: {reply}");
    }
    session
}

/// The observable state: board, side to move, moves played, variant and search settings.
fn state(session: &mut Session) -> Vec<String> {
    let mut state: Vec<String> = ["showboard", "param_game", "param_search", "list_commands"]
        .iter()
        .map(|command| answer(session, command.as_bytes()).unwrap())
        .collect();
    state.push(format!("{:?} {}", session.game().to_move(), session.game().moves_played()));
    state
}

/// Sends `raw`, expects exactly `expected`, and checks that nothing changed.
fn assert_refused(session: &mut Session, raw: &[u8], expected: &str) {
    let before = state(session);
    assert_eq!(
        answer(session, raw).as_deref(),
        Some(expected),
        "{}",
        String::from_utf8_lossy(&raw[..raw.len().min(80)])
    );
    assert_eq!(state(session), before, "state changed after {}", String::from_utf8_lossy(&raw[..raw.len().min(80)]));
}

#[test]
fn unknown_command() {
    let mut session = session_with(&["play b b2"]);
    assert_refused(&mut session, b"frobnicate", "? unknown command\n\n");
    assert_refused(&mut session, b"5 frobnicate x y", "?5 unknown command\n\n");
    assert_refused(&mut session, b"PLAY b a1", "? unknown command\n\n");
}

#[test]
fn wrong_argument_count() {
    let mut session = session_with(&["play b b2"]);
    assert_refused(&mut session, b"play b", "? syntax error\n\n");
    assert_refused(&mut session, b"play b a1 c3", "? syntax error\n\n");
    assert_refused(&mut session, b"genmove", "? syntax error\n\n");
    assert_refused(&mut session, b"7 boardsize", "?7 syntax error\n\n");
    assert_refused(&mut session, b"showboard now", "? syntax error\n\n");
    assert_refused(&mut session, b"set_position b", "? syntax error\n\n");
}

#[test]
fn malformed_vertex_and_colour() {
    let mut session = session_with(&["play b b2"]);
    assert_refused(&mut session, b"play b zz", "? syntax error\n\n");
    assert_refused(&mut session, b"play b 3c", "? syntax error\n\n");
    assert_refused(&mut session, b"play b i1", "? syntax error\n\n");
    assert_refused(&mut session, b"play red a1", "? syntax error\n\n");
    // Well formed but off this board, and pass in a game without passing: illegal.
    assert_refused(&mut session, b"play b d1", "? illegal move\n\n");
    assert_refused(&mut session, b"play b a4", "? illegal move\n\n");
    assert_refused(&mut session, b"play w pass", "? illegal move\n\n");
}

#[test]
fn occupied_cell() {
    let mut session = session_with(&["play b b2"]);
    assert_refused(&mut session, b"play w b2", "? illegal move\n\n");
    assert_refused(&mut session, b"play b B2", "? illegal move\n\n");
}

#[test]
fn out_of_range_size() {
    let mut session = session_with(&["play b b2"]);
    assert_refused(&mut session, b"boardsize 1", "? unacceptable size\n\n");
    assert_refused(&mut session, b"boardsize 11", "? unacceptable size\n\n");
    assert_refused(&mut session, b"boardsize 3 40", "? unacceptable size\n\n");
    assert_refused(&mut session, b"rectangular_boardsize 0 3", "? unacceptable size\n\n");
    assert_refused(&mut session, b"boardsize 18446744073709551616", "? unacceptable size\n\n");
    assert_refused(&mut session, b"boardsize x", "? syntax error\n\n");
}

#[test]
fn id_too_large_for_its_type() {
    let mut session = session_with(&["play b b2"]);
    assert_refused(&mut session, b"18446744073709551616 name", "? syntax error\n\n");
    assert_eq!(answer(&mut session, b"18446744073709551615 name").as_deref(), Some("=18446744073709551615 ponder\n\n"));
}

#[test]
fn a_one_megabyte_line() {
    let mut session = session_with(&["play b b2"]);
    let mut line = b"play b ".to_vec();
    line.extend(std::iter::repeat_n(b'a', 1 << 20));
    assert_refused(&mut session, &line, "? syntax error\n\n");
    let mut name = vec![b'x'; 1 << 20];
    assert_refused(&mut session, &name, "? unknown command\n\n");
    name.splice(0..0, b"known_command ".iter().copied());
    assert_eq!(answer(&mut session, &name).as_deref(), Some("= false\n\n"));
}

#[test]
fn non_utf8_bytes() {
    let mut session = session_with(&["play b b2"]);
    assert_refused(&mut session, b"pl\xffay b a1", "? unknown command\n\n");
    assert_refused(&mut session, b"play b a\xc3", "? syntax error\n\n");
    assert_refused(&mut session, b"\xfe\xfe\xfe", "? unknown command\n\n");
}

#[test]
fn a_move_after_the_game_ended() {
    let mut session = session_with(&["play b a1", "play w a2", "play b b1", "play w b2", "play b c1"]);
    assert_eq!(answer(&mut session, b"final_score").as_deref(), Some("= B+\n\n"));
    assert_refused(&mut session, b"play w c3", "? illegal move\n\n");
    assert_refused(&mut session, b"play b c3", "? illegal move\n\n");
    // A pass after the end is accepted and changes nothing (gogui-twogtp relays `pass`).
    assert_refused(&mut session, b"play w pass", "= \n\n");
    // Asked to move in a lost game the loser resigns; the winner passes. Neither changes anything.
    assert_refused(&mut session, b"genmove w", "= resign\n\n");
    assert_refused(&mut session, b"genmove b", "= pass\n\n");
}

#[test]
fn undo_and_score_errors() {
    let mut session = session_with(&[]);
    assert_refused(&mut session, b"undo", "? cannot undo\n\n");
    assert_refused(&mut session, b"final_score", "? cannot score\n\n");
    assert_refused(&mut session, b"set_game chess", "? unknown game\n\n");
    assert_refused(&mut session, b"param_game misere maybe", "? invalid value: expected 0, 1, true or false\n\n");
    assert_refused(&mut session, b"param_game colour red", "? unknown parameter\n\n");
    assert_refused(&mut session, b"param_search threads 0", "? invalid value: expected an integer from 1 to 256\n\n");
    assert_refused(&mut session, b"set_position b a1 w a1", "? illegal move\n\n");
}
