//! The fixed search workload of `ponder bench`: fixed positions, one thread, a fixed seed and
//! visit limits, never a time limit. The total tree size is the signature: it changes exactly
//! when search behaviour changes (commits that change it say `Bench: N`).

use std::time::{Duration, Instant};

use crate::engine::Session;
use crate::games::Color;
use crate::protocol::command::{Command, ParamRequest};

/// One position of the workload: a game, the moves from its start, and the playouts to run.
pub struct BenchPosition {
    pub game: &'static str,
    pub moves: &'static [&'static str],
    pub visits: u64,
}

/// The workload, game by game.
pub const WORKLOAD: &[BenchPosition] = &[
    BenchPosition { game: "tictactoe", moves: &[], visits: 50_000 },
    BenchPosition { game: "tictactoe", moves: &["b2", "a1"], visits: 50_000 },
    BenchPosition { game: "gomoku", moves: &[], visits: 20_000 },
    BenchPosition { game: "gomoku", moves: &["H8", "J9", "H9", "H10"], visits: 20_000 },
];

/// What one position's search did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchLine {
    pub game: &'static str,
    pub moves: usize,
    pub playouts: u64,
    pub nodes: u64,
    pub elapsed: Duration,
}

/// Runs the workload, or only `game`'s part of it.
///
/// # Errors
/// A message when `game` has no positions in the workload or a workload command fails.
pub fn run_workload(game: Option<&str>) -> Result<Vec<BenchLine>, String> {
    let positions: Vec<&BenchPosition> = WORKLOAD.iter().filter(|p| game.is_none_or(|g| g == p.game)).collect();
    if positions.is_empty() {
        return Err(format!("no bench positions for game '{}'", game.unwrap_or_default()));
    }
    positions.into_iter().map(run_position).collect()
}

fn run_position(position: &BenchPosition) -> Result<BenchLine, String> {
    let mut session = Session::new(position.game).map_err(|e| e.to_string())?;
    let mut run = |command: Command| session.execute(command).map_err(|e| e.to_string());
    for (name, value) in [
        ("threads", "1".to_string()),
        ("seed", "1".to_string()),
        ("max_time", "0".to_string()),
        ("max_visits", position.visits.to_string()),
    ] {
        run(Command::ParamSearch(ParamRequest::Set(name.to_string(), value)))?;
    }
    for (index, mv) in position.moves.iter().enumerate() {
        let color = if index % 2 == 0 { Color::Black } else { Color::White };
        run(Command::Play { color, mv: mv.to_string() })?;
    }
    let to_move = if position.moves.len() % 2 == 0 { Color::Black } else { Color::White };
    let started = Instant::now();
    run(Command::RegGenMove(to_move))?;
    let elapsed = started.elapsed();
    let stats = session.game().tree_stats();
    Ok(BenchLine {
        game: position.game,
        moves: position.moves.len(),
        playouts: stats.root_visits,
        nodes: stats.nodes,
        elapsed,
    })
}

/// The signature: total tree nodes over the workload.
pub fn signature(lines: &[BenchLine]) -> u64 {
    lines.iter().map(|line| line.nodes).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_reproducible() {
        let first = run_workload(Some("tictactoe")).unwrap();
        let second = run_workload(Some("tictactoe")).unwrap();
        assert_eq!(signature(&first), signature(&second));
        assert!(first.iter().all(|line| line.nodes > 0 && line.playouts > 0));
    }
}
