//! `ponder --protocol referee`, driven as a course referee drives a player: one line per move on
//! the pipes, judged by a small Hex referee written here from the rules (own board, own win
//! check, the swap as "the stone stays, the players exchange colours"). Every wait has a
//! deadline; no assertion is about speed.

mod common;

use std::time::Duration;

use common::LineEngine;

const SIZE: usize = 5;

/// The referee's board: `Some(0)` the first colour's stones (joining row 1 to row SIZE),
/// `Some(1)` the second colour's (joining column a to the last column).
struct Board {
    cells: [[Option<usize>; SIZE]; SIZE],
}

impl Board {
    fn parse(cell: &str) -> (usize, usize) {
        let column = (cell.as_bytes()[0] - b'a') as usize;
        let row: usize = cell[1..].parse().unwrap();
        assert!(column < SIZE && (1..=SIZE).contains(&row), "off-board cell {cell}");
        (column, row - 1)
    }

    fn name(column: usize, row: usize) -> String {
        format!("{}{}", (b'a' + column as u8) as char, row + 1)
    }

    fn place(&mut self, cell: &str, colour: usize) {
        let (column, row) = Board::parse(cell);
        assert!(self.cells[row][column].is_none(), "{cell} is occupied");
        self.cells[row][column] = Some(colour);
    }

    /// Whether `colour` joins its two edges (flood fill over the six hex neighbours).
    fn connected(&self, colour: usize) -> bool {
        let mut seen = [[false; SIZE]; SIZE];
        let mut stack = Vec::new();
        for i in 0..SIZE {
            let (column, row) = if colour == 0 { (i, 0) } else { (0, i) };
            if self.cells[row][column] == Some(colour) {
                seen[row][column] = true;
                stack.push((column, row));
            }
        }
        while let Some((column, row)) = stack.pop() {
            if (colour == 0 && row == SIZE - 1) || (colour == 1 && column == SIZE - 1) {
                return true;
            }
            for (dc, dr) in [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)] {
                let (c, r) = (column as i32 + dc, row as i32 + dr);
                if c < 0 || r < 0 || c >= SIZE as i32 || r >= SIZE as i32 {
                    continue;
                }
                let (c, r) = (c as usize, r as usize);
                if !seen[r][c] && self.cells[r][c] == Some(colour) {
                    seen[r][c] = true;
                    stack.push((c, r));
                }
            }
        }
        false
    }

    /// The weak opponent's move: the first empty cell in reading order.
    fn first_empty(&self) -> String {
        (0..SIZE * SIZE)
            .map(|i| (i % SIZE, i / SIZE))
            .find(|&(column, row)| self.cells[row][column].is_none())
            .map(|(column, row)| Board::name(column, row))
            .unwrap()
    }
}

/// ponder as the referee's player, with the referee's first-empty-cell opponent's moves sent in.
struct Player(LineEngine);

impl Player {
    fn start(extra: &[&str]) -> Player {
        let size = SIZE.to_string();
        let mut args = vec!["--protocol", "referee", "--size", &size, "--seed", "2", "--threads", "1"];
        args.extend(["--max-time", "0", "--max-visits", "3000"]);
        args.extend(extra);
        Player(LineEngine::start(&args))
    }

    fn send(&mut self, line: &str) {
        self.0.send(line);
    }

    fn reply(&self) -> String {
        self.0.line()
    }

    /// Sends `finish`, then checks that nothing more was printed and the exit is clean.
    fn finish(mut self) {
        self.send("finish");
        let (status, _) = self.0.end();
        assert!(status.success(), "exit {status}");
        assert!(self.0.stays_silent_for(Duration::from_secs(5)), "output after the game");
    }
}

/// How the opening goes.
#[derive(Clone, Copy, PartialEq)]
enum Opening {
    /// ponder moves first; the opponent swaps when `opponent_swaps`.
    PonderFirst { opponent_swaps: bool },
    /// The opponent moves first at this cell.
    OpponentFirst(&'static str),
}

/// Plays a whole game against the first-empty-cell opponent and returns ponder's colour at the
/// end, the winning colour, and whether ponder answered `change`.
fn play_game(opening: Opening, extra: &[&str]) -> (usize, usize, bool) {
    let mut player = Player::start(extra);
    let mut board = Board { cells: [[None; SIZE]; SIZE] };
    let mut ponder_colour;
    let mut ponder_swapped = false;
    match opening {
        Opening::PonderFirst { opponent_swaps } => {
            ponder_colour = 0;
            player.send("first");
            let cell = player.reply();
            board.place(&cell, 0);
            if opponent_swaps {
                // The stone stays; the opponent now owns the first colour and ponder, the
                // second colour, moves next.
                ponder_colour = 1;
                player.send("change");
            } else {
                let cell = board.first_empty();
                board.place(&cell, 1);
                player.send(&cell);
            }
        }
        Opening::OpponentFirst(cell) => {
            ponder_colour = 1;
            board.place(cell, 0);
            player.send(cell);
            let reply = player.reply();
            if reply == "change" {
                ponder_swapped = true;
                ponder_colour = 0;
            } else {
                board.place(&reply, 1);
            }
            let cell = board.first_empty();
            board.place(&cell, 1 - ponder_colour);
            player.send(&cell);
        }
    }
    // From here on ponder is to move after every line the referee sent.
    loop {
        if board.connected(1 - ponder_colour) {
            return (ponder_colour, 1 - ponder_colour, ponder_swapped);
        }
        let cell = player.reply();
        board.place(&cell, ponder_colour);
        if board.connected(ponder_colour) {
            player.finish();
            return (ponder_colour, ponder_colour, ponder_swapped);
        }
        let cell = board.first_empty();
        board.place(&cell, 1 - ponder_colour);
        player.send(&cell);
    }
}

#[test]
fn ponder_first_wins_by_joining_rows() {
    let (ponder, winner, _) = play_game(Opening::PonderFirst { opponent_swaps: false }, &[]);
    assert_eq!((ponder, winner), (0, 0));
}

#[test]
fn after_the_opponents_change_ponder_joins_columns_and_wins() {
    // Winning along the second colour's edges in the referee's frame shows that the cells
    // crossing the boundary were reflected.
    let (ponder, winner, _) = play_game(Opening::PonderFirst { opponent_swaps: true }, &[]);
    assert_eq!((ponder, winner), (1, 1));
}

#[test]
fn ponder_swaps_a_centre_opening_and_wins_with_the_first_colour() {
    let (ponder, winner, swapped) = play_game(Opening::OpponentFirst("c3"), &[]);
    assert!(swapped);
    assert_eq!((ponder, winner), (0, 0));
    // Without the swap rule ponder plays on and still wins, with the second colour.
    let (ponder, winner, swapped) = play_game(Opening::OpponentFirst("c3"), &["--param-game", "allow_swap=0"]);
    assert!(!swapped);
    assert_eq!((ponder, winner), (1, 1));
}

#[test]
fn bad_input_exits_with_an_error_and_only_cells_on_stdout() {
    let mut player = Player::start(&[]);
    player.send("first");
    let cell = player.reply();
    assert!(Board::parse(&cell).0 < SIZE);
    player.send("z9");
    let (status, stderr) = player.0.end();
    assert!(!status.success());
    assert!(stderr.contains("referee protocol, line 2 'z9'"), "{stderr}");
    assert!(player.0.stays_silent_for(Duration::from_secs(5)), "more output after the bad line");
}

#[test]
fn end_of_input_ends_the_game_quietly() {
    let mut player = Player::start(&[]);
    player.send("d2");
    let _ = player.reply();
    let (status, _) = player.0.end();
    assert!(status.success());
}
