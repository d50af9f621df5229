//! Reference implementations for tests: plain, slow and obviously right.

use rustc_hash::FxHashMap;

use super::{Game, Outcome};

/// The game-theoretic value of `position` for the side to move by plain minimax with a memo
/// keyed by the position hash: 1 a win, 0 a draw, -1 a loss.
pub(crate) fn minimax_value<G: Game>(position: &G, memo: &mut FxHashMap<u64, i32>) -> i32 {
    if let Some(outcome) = position.outcome() {
        return match outcome {
            Outcome::Draw => 0,
            Outcome::Win(winner) if winner == position.to_move() => 1,
            Outcome::Win(_) => -1,
        };
    }
    if let Some(&value) = memo.get(&position.hash()) {
        return value;
    }
    let mut moves = Vec::new();
    position.legal_moves(&mut moves);
    let value = moves
        .iter()
        .map(|&mv| {
            let mut child = position.clone();
            child.play_unchecked(mv);
            -minimax_value(&child, memo)
        })
        .max()
        .expect("a running game has a legal move");
    memo.insert(position.hash(), value);
    value
}

/// A position `moves` random moves after `start` in which the game still runs (drawn again
/// until one is found).
pub(crate) fn random_running_position<G: Game>(start: &G, rng: &mut impl rand::Rng, moves: usize) -> G {
    loop {
        let mut position = start.clone();
        let mut legal = Vec::new();
        for _ in 0..moves {
            if position.outcome().is_some() {
                break;
            }
            legal.clear();
            position.legal_moves(&mut legal);
            position.play_unchecked(legal[rng.random_range(0..legal.len())]);
        }
        if position.outcome().is_none() {
            return position;
        }
    }
}

/// A Hex position on a `width` x `height` board with stones on the named cells (HTP names).
///
/// # Panics
/// On a bad name or an impossible position: test data is fixed.
pub(crate) fn hex_position(width: usize, height: usize, black: &[&str], white: &[&str]) -> super::hex::Hex {
    use super::hex::{Cell, Hex, HexConfig, HexMove};
    let config = HexConfig::with_size(width, height).unwrap();
    let empty = Hex::new(&config);
    let cells = |names: &[&str]| -> Vec<Cell> {
        names
            .iter()
            .map(|name| match empty.parse_move(name).unwrap() {
                HexMove::Cell(cell) => cell,
                HexMove::Swap => panic!("{name} is no cell"),
            })
            .collect()
    };
    Hex::from_stones(&config, &cells(black), &cells(white)).unwrap()
}
