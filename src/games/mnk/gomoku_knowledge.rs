//! Gomoku knowledge for the search: a threat-aware playout, move priors from threat patterns,
//! and cheap sound proofs (a five to complete, two fives to block).
//!
//! Everything here applies to five in a row only ([`is_five_in_a_row`]); the other m,n,k games
//! keep the plain random playout and no knowledge. The playout and the proofs use short line
//! scans on the position's bitboards (a playout move must cost little); the priors build a
//! [`ThreatBoard`] once per expanded node.

use super::gomoku_threats::{ThreatBoard, is_five_in_a_row};
use super::{Cell, DIRECTIONS, Mnk, WORDS, bit};
use crate::games::{Color, Game, Outcome, Prior};

/// Whether the Gomoku knowledge applies to `position` (five in a row, not misère).
pub fn applies(position: &Mnk) -> bool {
    is_five_in_a_row(position)
}

/// Whether a `color` stone on the empty `cell` completes a winning line in some direction.
fn completes_line(position: &Mnk, color: Color, cell: Cell) -> bool {
    position.is_empty(cell.0 as usize) && position.makes_line(color, cell)
}

/// Adds to `out` (once each) the cells where a `color` stone would complete a line through the
/// `color` stone on `cell`. Such a five point lies at the end of a run of `color` stones from
/// `cell` in one of the eight rays, so one short walk per ray finds them all; the run through
/// that end is the run through `cell`, the end itself and the own stones just beyond it.
fn push_five_points_through(position: &Mnk, color: Color, cell: Cell, out: &mut Vec<Cell>) {
    let (x, y) = position.coordinates(cell);
    let (width, height) = (position.width() as i32, position.height() as i32);
    let own = &position.stones[color.index()];
    let is_own =
        |cx: i32, cy: i32| cx >= 0 && cy >= 0 && cx < width && cy < height && bit(own, (cy * width + cx) as usize);
    let k = position.k as usize;
    for (dx, dy) in DIRECTIONS {
        // The run through `cell` and where it stops on each side.
        let mut ends = [(0, 0); 2];
        let mut run = 1;
        for (side, sign) in [1, -1].into_iter().enumerate() {
            let (mut cx, mut cy) = (x as i32 + sign * dx, y as i32 + sign * dy);
            while is_own(cx, cy) {
                run += 1;
                cx += sign * dx;
                cy += sign * dy;
            }
            ends[side] = (cx, cy);
        }
        for (side, sign) in [1, -1].into_iter().enumerate() {
            let (ex, ey) = ends[side];
            if ex < 0 || ey < 0 || ex >= width || ey >= height {
                continue;
            }
            let end = (ey * width + ex) as usize;
            if !position.is_empty(end) {
                continue;
            }
            let mut length = run + 1;
            let (mut cx, mut cy) = (ex + sign * dx, ey + sign * dy);
            while is_own(cx, cy) && length <= k {
                length += 1;
                cx += sign * dx;
                cy += sign * dy;
            }
            let completes = if position.exact { length == k } else { length >= k };
            if completes && !out.contains(&Cell(end as u16)) {
                out.push(Cell(end as u16));
            }
        }
    }
}

/// The empty cells where a `color` stone would complete a winning line, each once.
pub fn five_points(position: &Mnk, color: Color) -> Vec<Cell> {
    let mut points = Vec::new();
    for (word_index, &word) in position.stones[color.index()].iter().enumerate() {
        let mut rest = word;
        while rest != 0 {
            let index = word_index * 64 + rest.trailing_zeros() as usize;
            rest &= rest - 1;
            push_five_points_through(position, color, Cell(index as u16), &mut points);
        }
    }
    points
}

/// A proof by one-move tactics, for the side to move of a running five-in-a-row game: it wins
/// when it can complete a line; it loses when it cannot and the opponent has two cells that
/// complete one (an open four or a double four: one stone blocks only one of them).
pub fn proven_outcome(position: &Mnk) -> Option<Outcome> {
    if position.outcome.is_some() || !applies(position) {
        return None;
    }
    let side = position.to_move;
    if !five_points(position, side).is_empty() {
        return Some(Outcome::Win(side));
    }
    (five_points(position, side.opponent()).len() >= 2).then_some(Outcome::Win(side.opponent()))
}

/// Cells within `reach` (king steps) of a stone, as a bitboard; with no stone, the cells within
/// `reach` of the centre, so the first move is not thrown to the edge.
fn cells_near_stones(position: &Mnk, reach: i32) -> [u64; WORDS] {
    let (width, height) = (position.width() as i32, position.height() as i32);
    let mut near = [0u64; WORDS];
    let mut mark_around = |x: i32, y: i32| {
        for cy in (y - reach).max(0)..=(y + reach).min(height - 1) {
            for cx in (x - reach).max(0)..=(x + reach).min(width - 1) {
                let index = (cy * width + cx) as usize;
                near[index / 64] |= 1 << (index % 64);
            }
        }
    };
    let mut any_stone = false;
    for index in 0..(width * height) as usize {
        if !position.is_empty(index) {
            any_stone = true;
            mark_around(index as i32 % width, index as i32 / width);
        }
    }
    if !any_stone {
        mark_around(width / 2, height / 2);
    }
    near
}

/// Threat-aware priors for the side to move: the winning five first; when the opponent has a
/// five to make, its blocks (every other move loses at once); then own winning fours, fours
/// combined with threes, blocks of the opponent's open threes, own fours and threes; quiet
/// moves by their distance to the stones, far ones low.
pub fn move_priors(position: &Mnk, moves: &[Cell], priors: &mut [Prior]) {
    if position.outcome.is_some() || !applies(position) {
        return;
    }
    let board = ThreatBoard::new(position);
    let (side, opponent) = (position.to_move, position.to_move.opponent());
    let own_fives = board.five_points(side);
    let opponent_fives = board.five_points(opponent);
    let near = cells_near_stones(position, 1);
    let around = cells_near_stones(position, 2);
    for (&cell, prior) in moves.iter().zip(priors.iter_mut()) {
        *prior = if !own_fives.is_empty() {
            if own_fives.contains(cell) { Prior::new(1000, 1.0) } else { Prior::new(20, 0.2) }
        } else if !opponent_fives.is_empty() {
            // Anything but a block lets the opponent complete its five.
            if opponent_fives.contains(cell) { Prior::new(50, 0.6) } else { Prior::new(200, 0.0) }
        } else if board.winning_four_points(side).contains(cell) {
            Prior::new(100, 0.95)
        } else if board.four_points(side).contains(cell) && board.open_three_points(side).contains(cell) {
            Prior::new(30, 0.8)
        } else if board.winning_four_points(opponent).contains(cell) {
            Prior::new(20, 0.65)
        } else if board.four_points(side).contains(cell) {
            Prior::new(10, 0.6)
        } else if board.open_three_points(side).contains(cell) {
            Prior::new(10, 0.62)
        } else if board.open_three_points(opponent).contains(cell) || board.four_points(opponent).contains(cell) {
            Prior::new(6, 0.56)
        } else if bit(&near, cell.0 as usize) {
            Prior::NONE
        } else if bit(&around, cell.0 as usize) {
            Prior::new(5, 0.4)
        } else {
            Prior::new(20, 0.1)
        };
    }
}

/// Adds the neighbours (king steps) of `cell` not yet in `seen` to `candidates` and `seen`.
/// `seen` starts as the stones and gets every played cell, so only empty cells come in.
fn add_neighbours(position: &Mnk, cell: Cell, seen: &mut [u64; WORDS], candidates: &mut Vec<Cell>) {
    let (x, y) = position.coordinates(cell);
    let (width, height) = (position.width(), position.height());
    for cy in y.saturating_sub(1)..=(y + 1).min(height - 1) {
        for cx in x.saturating_sub(1)..=(x + 1).min(width - 1) {
            let index = cy * width + cx;
            if !bit(seen, index) {
                seen[index / 64] |= 1 << (index % 64);
                candidates.push(Cell(index as u16));
            }
        }
    }
}

/// The first cell of `points` still completing a `color` line, dropping those that no longer do
/// (taken, or an overline under exact five).
fn take_five_point(position: &Mnk, color: Color, points: &mut Vec<Cell>) -> Option<Cell> {
    while let Some(&cell) = points.last() {
        if completes_line(position, color, cell) {
            return Some(cell);
        }
        points.pop();
    }
    None
}

/// The threat-aware playout: complete a five when possible, else block the opponent's five
/// point, else a random empty cell next to a stone (any empty cell when there is none). Five
/// points are kept per colour and only the new stone's rays are scanned after a move, so a move
/// costs a few dozen bit tests. Ends at the final position.
pub fn playout<R: rand::Rng>(position: &mut Mnk, rng: &mut R) -> Outcome {
    if let Some(outcome) = position.outcome {
        return outcome;
    }
    let mut seen: [u64; WORDS] = std::array::from_fn(|word| position.stones[0][word] | position.stones[1][word]);
    let mut candidates = Vec::with_capacity(position.empties as usize);
    let mut fives: [Vec<Cell>; 2] = [Vec::new(), Vec::new()];
    for color in [Color::Black, Color::White] {
        for (word_index, &word) in position.stones[color.index()].iter().enumerate() {
            let mut rest = word;
            while rest != 0 {
                let cell = Cell((word_index * 64 + rest.trailing_zeros() as usize) as u16);
                rest &= rest - 1;
                add_neighbours(position, cell, &mut seen, &mut candidates);
                push_five_points_through(position, color, cell, &mut fives[color.index()]);
            }
        }
    }
    let mut empties = Vec::new();
    loop {
        let side = position.to_move;
        let forced = take_five_point(position, side, &mut fives[side.index()])
            .or_else(|| take_five_point(position, side.opponent(), &mut fives[side.opponent().index()]));
        let cell = forced.unwrap_or_else(|| {
            loop {
                if candidates.is_empty() {
                    empties.clear();
                    position.legal_moves(&mut empties);
                    break empties[rng.random_range(0..empties.len())];
                }
                let cell = candidates.swap_remove(rng.random_range(0..candidates.len()));
                if position.is_empty(cell.0 as usize) {
                    break cell;
                }
            }
        });
        position.play_unchecked(cell);
        if let Some(outcome) = position.outcome {
            return outcome;
        }
        seen[cell.0 as usize / 64] |= 1 << (cell.0 % 64);
        add_neighbours(position, cell, &mut seen, &mut candidates);
        push_five_points_through(position, side, cell, &mut fives[side.index()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::GameConfig;
    use crate::games::mnk::MnkConfig;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    fn gomoku(moves: &[&str]) -> Mnk {
        let mut position = Mnk::new(&MnkConfig::gomoku());
        for text in moves {
            position.play(position.parse_move(text).unwrap()).unwrap();
        }
        position
    }

    /// Five points by brute force: play each empty cell and look at the result.
    fn five_points_by_playing(position: &Mnk, color: Color) -> Vec<Cell> {
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        moves
            .into_iter()
            .filter(|&cell| {
                let mut child = position.clone();
                child.play_as(color, cell).unwrap();
                child.outcome() == Some(Outcome::Win(color))
            })
            .collect()
    }

    #[test]
    fn five_points_match_brute_force_on_random_games() {
        let mut rng = SmallRng::seed_from_u64(5);
        for round in 0..200 {
            let mut config = MnkConfig::gomoku();
            config.set_size(9, 9).unwrap();
            config.set_param("exact_five", if round % 2 == 0 { "0" } else { "1" }).unwrap();
            let mut position = Mnk::new(&config);
            for _ in 0..rng.random_range(5..60) {
                let mut moves = Vec::new();
                position.legal_moves(&mut moves);
                let mut child = position.clone();
                child.play_unchecked(moves[rng.random_range(0..moves.len())]);
                if child.outcome().is_some() {
                    break;
                }
                position = child;
            }
            for color in [Color::Black, Color::White] {
                let mut fast = five_points(&position, color);
                fast.sort();
                assert_eq!(fast, five_points_by_playing(&position, color), "round {round}");
            }
        }
    }

    #[test]
    fn proofs_are_sound() {
        // Black to move with four in a row: a win.
        let four = gomoku(&["H8", "A1", "J8", "A3", "K8", "A5", "L8", "A7"]);
        assert_eq!(proven_outcome(&four), Some(Outcome::Win(Color::Black)));
        // White to move facing that open four with no five of its own: a loss.
        let open_four = gomoku(&["H8", "A1", "J8", "A3", "K8", "A5", "L8"]);
        assert_eq!(proven_outcome(&open_four), Some(Outcome::Win(Color::Black)));
        // A closed four (blocked at one end) can be blocked: no proof.
        let closed_four = gomoku(&["H8", "G8", "J8", "A3", "K8", "A5", "L8"]);
        assert_eq!(proven_outcome(&closed_four), None);
        // White to move with its own four beats Black's open four.
        let race = gomoku(&["H8", "B1", "J8", "B2", "K8", "B3", "A10", "B4", "L8"]);
        assert_eq!(proven_outcome(&race), Some(Outcome::Win(Color::White)));
        assert_eq!(proven_outcome(&gomoku(&[])), None);
        // Under exact five, an overline point completes nothing: X X X X . X is no five for
        // the gap, while the open end on the left still is.
        let mut config = MnkConfig::gomoku();
        config.set_param("exact_five", "1").unwrap();
        let mut exact = Mnk::new(&config);
        for text in ["B1", "B5", "C1", "C5", "D1", "C6", "E1", "C7", "G1", "H9"] {
            exact.play(exact.parse_move(text).unwrap()).unwrap();
        }
        assert_eq!(five_points(&exact, Color::Black), vec![exact.parse_move("A1").unwrap()]);
        assert_eq!(proven_outcome(&exact), Some(Outcome::Win(Color::Black)));
    }

    #[test]
    fn priors_favour_the_five_and_the_block() {
        let position = gomoku(&["H8", "A1", "J8", "A3", "K8", "A5", "L8"]);
        // White to move: both ends of the open four are blocks; a far move loses at once.
        let moves = [
            position.parse_move("G8").unwrap(),
            position.parse_move("M8").unwrap(),
            position.parse_move("F14").unwrap(),
        ];
        let mut priors = [Prior::NONE; 3];
        move_priors(&position, &moves, &mut priors);
        assert!(priors[0].value > 0.5 && priors[1].value > 0.5, "{priors:?}");
        assert_eq!(priors[2].value, 0.0);
        // Black to move with an open three: the open four beats a quiet far move.
        let three = gomoku(&["H8", "A1", "J8", "A3", "K8"]);
        let moves = [three.parse_move("L8").unwrap(), three.parse_move("O15").unwrap()];
        let mut priors = [Prior::NONE; 2];
        let mut black_to_move = three.clone();
        black_to_move.give_turn_to(Color::Black).unwrap();
        move_priors(&black_to_move, &moves, &mut priors);
        assert!(priors[0].value > 0.9 && priors[1].value < 0.5, "{priors:?}");
    }

    #[test]
    fn playouts_finish_and_take_or_block_fives() {
        let mut rng = SmallRng::seed_from_u64(9);
        // Black to move completes its four every time.
        let four = gomoku(&["H8", "A1", "J8", "A3", "K8", "A5", "L8", "A7"]);
        for _ in 0..20 {
            let mut position = four.clone();
            assert_eq!(playout(&mut position, &mut rng), Outcome::Win(Color::Black));
            assert_eq!(position.outcome(), Some(Outcome::Win(Color::Black)));
            assert_eq!(position.empties, four.empties - 1);
        }
        // White to move blocks Black's closed four at once.
        let closed = gomoku(&["H8", "G8", "J8", "A3", "K8", "A5", "L8"]);
        let block = closed.parse_move("M8").unwrap();
        for _ in 0..20 {
            let mut position = closed.clone();
            playout(&mut position, &mut rng);
            assert_eq!(position.stone_at(block), Some(Color::White));
        }
        // From the empty board, every playout ends in a finished game.
        for _ in 0..20 {
            let mut position = gomoku(&[]);
            let outcome = playout(&mut position, &mut rng);
            assert_eq!(position.outcome(), Some(outcome));
        }
    }
}
