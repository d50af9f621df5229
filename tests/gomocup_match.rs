//! A match on Gomocup's own board: two `ponder --protocol gomocup` processes play each other on
//! 20x20, once freestyle and once under the exact-five rule, with the test as the manager (as
//! c-gomoku-cli or Piskvork drive a brain: `START`, `INFO`, `BEGIN`, `TURN`, `END`). Every move
//! must be an empty cell on the board, each game must end in a five by its rule, and both
//! processes must end cleanly at `END`. No assertion is about speed.

mod common;

use common::LineEngine;

const SIZE: usize = 20;

/// One brain, set up for a 20x20 game: freestyle (`INFO rule 0`) or exact five (`INFO rule 1`),
/// 0.15 s a move (0.05 s of search after the front end's lag reserve).
struct Brain(LineEngine);

impl Brain {
    fn start(seed: u32, exact_five: bool) -> Brain {
        let mut engine = LineEngine::start(&["--protocol", "gomocup", "--threads", "1", "--seed", &seed.to_string()]);
        engine.send(&format!("START {SIZE}"));
        let mut brain = Brain(engine);
        assert_eq!(brain.answer(), "OK");
        brain.0.send(&format!("INFO rule {}", u8::from(exact_five)));
        brain.0.send("INFO timeout_turn 150");
        brain
    }

    /// The next line that is not a `MESSAGE` or `DEBUG` line (managers show those and go on).
    fn answer(&self) -> String {
        loop {
            let line = self.0.line();
            if !line.starts_with("MESSAGE") && !line.starts_with("DEBUG") {
                return line;
            }
        }
    }

    /// The brain's move after `command` (`BEGIN` or `TURN X,Y`).
    fn move_after(&mut self, command: &str) -> (usize, usize) {
        self.0.send(command);
        let answer = self.answer();
        let parsed = answer.split_once(',').and_then(|(x, y)| Some((x.parse().ok()?, y.parse().ok()?)));
        parsed.unwrap_or_else(|| panic!("after {command}: {answer:?} is not a move"))
    }

    /// Sends `END`: the brain exits cleanly, with nothing on stderr.
    fn end(mut self) {
        self.0.send("END");
        let (status, stderr) = self.0.end();
        assert!(status.success(), "{status}");
        assert_eq!(stderr, "");
    }
}

// The referee's own rules, written here from the game's definition rather than taken from
// the engine's, so that a rule the engine gets wrong (an overline under exact five) shows.

/// The stones of one colour in a line through (x, y) along (dx, dy), (x, y) included.
fn line_length(stones: &[Option<usize>], (x, y): (usize, usize), (dx, dy): (isize, isize), side: usize) -> usize {
    let mut length = 1;
    for sign in [1, -1] {
        let (mut cx, mut cy) = (x as isize, y as isize);
        loop {
            (cx, cy) = (cx + sign * dx, cy + sign * dy);
            let inside = (0..SIZE as isize).contains(&cx) && (0..SIZE as isize).contains(&cy);
            if !inside || stones[cy as usize * SIZE + cx as usize] != Some(side) {
                break;
            }
            length += 1;
        }
    }
    length
}

/// Whether the stone just played at `at` makes a five: five or more in a row, or exactly five.
fn makes_five(stones: &[Option<usize>], at: (usize, usize), side: usize, exact_five: bool) -> bool {
    [(1, 0), (0, 1), (1, 1), (1, -1)].into_iter().any(|direction| {
        let length = line_length(stones, at, direction, side);
        if exact_five { length == 5 } else { length >= 5 }
    })
}

/// Plays one game between two brains and returns the winner (0 began) and the moves played,
/// or `None` and 400 for a full board.
fn play_game(exact_five: bool) -> (Option<usize>, usize) {
    let mut brains = [Brain::start(1, exact_five), Brain::start(2, exact_five)];
    let mut stones = vec![None; SIZE * SIZE];
    let mut played = brains[0].move_after("BEGIN");
    let mut result = (None, SIZE * SIZE);
    for ply in 0..SIZE * SIZE {
        let side = ply % 2;
        let (x, y) = played;
        assert!(x < SIZE && y < SIZE, "move {} ({x},{y}) is off the board", ply + 1);
        assert_eq!(stones[y * SIZE + x], None, "move {} ({x},{y}) is on a stone", ply + 1);
        stones[y * SIZE + x] = Some(side);
        if makes_five(&stones, played, side, exact_five) {
            result = (Some(side), ply + 1);
            break;
        }
        if ply + 1 < SIZE * SIZE {
            played = brains[1 - side].move_after(&format!("TURN {x},{y}"));
        }
    }
    for brain in brains {
        brain.end();
    }
    result
}

#[test]
fn two_brains_play_out_a_20x20_game_under_each_rule() {
    for exact_five in [false, true] {
        let (winner, moves) = play_game(exact_five);
        // A full board is a legal end, but between two searching brains a five comes long
        // before it.
        assert!(winner.is_some(), "exact five {exact_five}: no five in {moves} moves");
    }
}
