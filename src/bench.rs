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
    BenchPosition { game: "reversi", moves: &[], visits: 20_000 },
    BenchPosition { game: "reversi", moves: &["f5", "d6", "c3", "d3", "c4"], visits: 20_000 },
    BenchPosition { game: "hex", moves: &[], visits: 20_000 },
    BenchPosition { game: "hex", moves: &["f6", "e7", "f5", "g4"], visits: 20_000 },
];

/// FFO endgames the Reversi part of the workload solves exactly (#1 to #8, 14 to 16 empties).
const REVERSI_ENDGAMES: &str = include_str!("../tests/data/reversi/ffo1-19.txt");
const REVERSI_ENDGAME_COUNT: usize = 8;

/// What one position's search did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchLine {
    pub game: &'static str,
    pub moves: usize,
    pub playouts: u64,
    pub nodes: u64,
    pub elapsed: Duration,
}

/// Runs the workload, or only `game`'s part of it, with `threads` search threads (the
/// signature is defined with one).
///
/// # Errors
/// A message when `game` has no positions in the workload or a workload command fails.
pub fn run_workload(game: Option<&str>, threads: usize) -> Result<Vec<BenchLine>, String> {
    let positions: Vec<&BenchPosition> = WORKLOAD.iter().filter(|p| game.is_none_or(|g| g == p.game)).collect();
    if positions.is_empty() {
        return Err(format!("no bench positions for game '{}'", game.unwrap_or_default()));
    }
    let mut lines: Vec<BenchLine> =
        positions.into_iter().map(|position| run_position(position, threads)).collect::<Result<_, _>>()?;
    if game.is_none_or(|g| g == "gomoku") {
        lines.extend(gomoku_midgames()?);
    }
    if game.is_none_or(|g| g == "reversi") {
        lines.extend(reversi_midgames()?);
        lines.extend(reversi_endgames(threads));
    }
    Ok(lines)
}

/// Gomoku positions (the workload's opening and a middle game of a self-play game) that the
/// alpha-beta search with the pattern evaluation searches to a fixed depth.
const GOMOKU_MIDGAMES: [&[&str]; 2] = [&["H8", "J9", "H9", "H10"], &["G6", "K6", "G7", "K7", "G8", "G5", "J8", "H5"]];

/// The Gomoku alpha-beta search's depth on those positions.
const GOMOKU_MIDGAME_DEPTH: u32 = 9;

/// The Gomoku alpha-beta search (the one `genmove` plays by): its nodes count in the signature.
fn gomoku_midgames() -> Result<Vec<BenchLine>, String> {
    use crate::games::Game;
    use crate::games::mnk::{Mnk, MnkConfig};
    use crate::search::gomoku_alphabeta::{GomokuLimits, search_gomoku};
    let never = std::sync::atomic::AtomicBool::new(false);
    let mut lines = Vec::new();
    for moves in GOMOKU_MIDGAMES {
        let mut position = Mnk::new(&MnkConfig::gomoku());
        for text in moves {
            let mv = position.parse_move(text).map_err(|e| format!("bench move {text}: {e}"))?;
            position.play(mv).map_err(|e| format!("bench move {text}: {e}"))?;
        }
        let started = Instant::now();
        let limits = GomokuLimits::to_depth(GOMOKU_MIDGAME_DEPTH, &never);
        let result = search_gomoku(&position, &limits).ok_or("a bench position is over")?;
        lines.push(BenchLine {
            game: "gomoku-ab",
            moves: moves.len(),
            playouts: 0,
            nodes: result.nodes,
            elapsed: started.elapsed(),
        });
    }
    Ok(lines)
}

/// Reversi midgame positions (from the start, the workload's opening and a position after 20
/// moves) that the alpha-beta search with the embedded evaluation searches to a fixed depth.
const REVERSI_MIDGAMES: [&[&str]; 3] = [
    &[],
    &["f5", "d6", "c3", "d3", "c4"],
    &[
        "e6", "f4", "g3", "g4", "c3", "c4", "b3", "e7", "g5", "h6", "f7", "h4", "f5", "g6", "d7", "e8", "f3", "d6",
        "g8", "b2",
    ],
];

/// The alpha-beta search's depth on the midgame positions: a depth, not a node limit, so that
/// the node count changes with the search and the evaluation.
const REVERSI_MIDGAME_DEPTH: u32 = 9;

/// The alpha-beta search on the midgame positions: its nodes count in the signature.
fn reversi_midgames() -> Result<Vec<BenchLine>, String> {
    use crate::games::Game;
    use crate::games::reversi::{Reversi, ReversiConfig};
    use crate::search::reversi_alphabeta::{MidgameLimits, search_midgame};
    let evaluator = crate::knowledge::reversi_eval::embedded().map_err(|e| format!("reversi weights: {e}"))?;
    let never = std::sync::atomic::AtomicBool::new(false);
    let limits = MidgameLimits {
        // As in play.
        probcut: crate::search::reversi_probcut::embedded().ok(),
        ..MidgameLimits::to_depth(REVERSI_MIDGAME_DEPTH, &never)
    };
    let mut lines = Vec::new();
    for moves in REVERSI_MIDGAMES {
        let mut position = Reversi::new(&ReversiConfig);
        for text in moves {
            let mv = position.parse_move(text).map_err(|e| format!("bench move {text}: {e}"))?;
            position.play(mv).map_err(|e| format!("bench move {text}: {e}"))?;
        }
        let started = Instant::now();
        let result = search_midgame(&position, evaluator, &limits).ok_or("a bench position is over")?;
        lines.push(BenchLine {
            game: "reversi-ab",
            moves: moves.len(),
            playouts: 0,
            nodes: result.nodes,
            elapsed: started.elapsed(),
        });
    }
    Ok(lines)
}

/// The exact solver on the first FFO endgames: nodes count as tree nodes in the signature.
fn reversi_endgames(threads: usize) -> Vec<BenchLine> {
    use crate::solvers::reversi_endgame::{SolveOptions, parse_ffo_line, solve_endgame};
    REVERSI_ENDGAMES
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .take(REVERSI_ENDGAME_COUNT)
        .filter_map(|line| parse_ffo_line(line).ok())
        .map(|problem| {
            let started = Instant::now();
            let options = SolveOptions { threads, ..SolveOptions::default() };
            let result = solve_endgame(&problem.position, &options).expect("nothing stops the bench");
            let empties = problem.position.empty_squares().count_ones() as usize;
            BenchLine {
                game: "reversi-solve",
                moves: 60 - empties,
                playouts: 0,
                nodes: result.nodes,
                elapsed: started.elapsed(),
            }
        })
        .collect()
}

fn run_position(position: &BenchPosition, threads: usize) -> Result<BenchLine, String> {
    let mut session = Session::new(position.game).map_err(|e| e.to_string())?;
    let mut run = |command: Command| session.execute(command).map_err(|e| e.to_string());
    for (name, value) in [
        ("threads", threads.to_string()),
        ("seed", "1".to_string()),
        ("max_time", "0".to_string()),
        ("max_visits", position.visits.to_string()),
        // The MCTS part of the workload: Reversi's alpha-beta has its own lines below.
        ("alphabeta", "0".to_string()),
    ] {
        run(Command::ParamSearch(ParamRequest::Set(name.to_string(), value)))?;
    }
    for (index, mv) in position.moves.iter().enumerate() {
        let color = if index % 2 == 0 { Color::Black } else { Color::White };
        run(Command::Play { color, mv: mv.to_string() })?;
    }
    let to_move = if position.moves.len().is_multiple_of(2) { Color::Black } else { Color::White };
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

/// One game's playout rate in a search at one thread and at `threads`.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalingLine {
    pub game: &'static str,
    /// The start position searched, in words.
    pub position: &'static str,
    pub one_thread: f64,
    pub threads: usize,
    pub many_threads: f64,
    /// The one-thread rate over as many playouts as the `threads` search made in the same
    /// time, so over a tree as large: a search can slow as its tree grows (measured on two
    /// threads: Hex's one-thread rate about 4% over the doubled tree, Connect Four's not at
    /// all), and `threads` threads grow theirs `threads` times as fast. The ratio of `many_threads` to
    /// this is the speedup at equal work (time for the same playouts at 1 and N threads).
    pub one_thread_same_work: f64,
    /// The speedup at equal work, round by round: the median over the rounds of each round's
    /// `threads` rate over the same round's equal-work one-thread rate. The two runs of a round
    /// follow each other within seconds, so a spell of a slower or faster machine (one-thread
    /// rates here move by a third from minute to minute) meets both; the ratio of the medians
    /// pairs runs of different rounds.
    pub same_work_speedup: f64,
    /// Whether that run reached the N-thread playouts in every round: it stops after
    /// [`SAME_WORK_MOST_SECONDS`], over a smaller tree then.
    pub same_work_complete: bool,
    /// Roughly the machine's own ceiling: the summed rate of `threads` one-thread searches run
    /// at once, each on its own tree, so sharing nothing a parallel search could do without.
    /// What they lose against one search alone (memory, shared caches, the clock of busy cores)
    /// no change to the parallel search wins back.
    pub searches_apart: f64,
    /// The median over the rounds of that summed rate over the same round's one-thread rate
    /// (the searches apart grow trees as large as that one's).
    pub searches_apart_speedup: f64,
}

/// The longest one-thread run of the equal-work figure (16 threads would ask for 16 s a round).
pub const SAME_WORK_MOST_SECONDS: f64 = 3.0;

/// The games of the thread-scaling probe, in its order.
pub const SCALING_GAMES: [&str; 5] = ["gomoku", "hex", "reversi", "connect4", "nogo"];

/// Rounds of the thread-scaling probe; each figure is the median of its rounds.
pub const SCALING_ROUNDS: usize = 5;

/// The thread-scaling probe of `ponder bench --threads N`: for every game (or only `game`) a
/// plain search (no early stop) from its usual start position for `seconds` at one thread,
/// then at `threads` threads (forced, so the figure shows what was asked even past the cores),
/// then at one thread again for as many playouts as the `threads` search made (for
/// [`SAME_WORK_MOST_SECONDS`] at most), then `threads` one-thread searches at once for
/// `seconds`, [`SCALING_ROUNDS`] times in turn. Each figure is the median of its rounds: a
/// machine's clock speed and its neighbours change from second to second (one run on a 16-core
/// machine gave one-thread figures from 44,000 to 63,000 playouts/s for the same binary; here
/// single turns of one binary give two-thread ratios from 1.5x to 2.3x), and turns let every
/// figure see the same spells. Playouts per second are a speed, so this part runs on time, not
/// on visit limits.
pub fn thread_scaling(game: Option<&str>, threads: usize, seconds: f64) -> Vec<ScalingLine> {
    use crate::games::Game;
    use crate::games::connect4::{Connect4, Connect4Config};
    use crate::games::hex::{Hex, HexConfig};
    use crate::games::mnk::{Mnk, MnkConfig};
    use crate::games::nogo::{NoGo, NoGoConfig};
    use crate::games::reversi::{Reversi, ReversiConfig};
    fn line<G: Game>(
        game: &'static str,
        position: &'static str,
        start: G,
        threads: usize,
        seconds: f64,
    ) -> ScalingLine {
        let (mut one, mut many, mut same_work, mut speedups) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut apart, mut apart_speedups) = (Vec::new(), Vec::new());
        let mut same_work_complete = true;
        let same_work_cap = Duration::from_secs_f64(SAME_WORK_MOST_SECONDS);
        let duration = Duration::from_secs_f64(seconds);
        for _ in 0..SCALING_ROUNDS {
            let one_rate = search_speed_for(&start, 1, Some(duration), None).0;
            one.push(one_rate);
            let (rate, playouts) = search_speed_for(&start, threads, Some(duration), None);
            many.push(rate);
            let (same_work_rate, made) = search_speed_for(&start, 1, Some(same_work_cap), Some(playouts));
            same_work.push(same_work_rate);
            speedups.push(rate / same_work_rate.max(1e-9));
            same_work_complete &= made >= playouts;
            let apart_rate = searches_apart_speed(&start, threads, duration);
            apart.push(apart_rate);
            apart_speedups.push(apart_rate / one_rate.max(1e-9));
            log::debug!(
                "{game} round: {one_rate:.0} (1 thread), {rate:.0} ({threads} threads), same work \
                 {same_work_rate:.0}, {threads} searches apart {apart_rate:.0}"
            );
        }
        ScalingLine {
            game,
            position,
            one_thread: median(&mut one),
            threads,
            many_threads: median(&mut many),
            one_thread_same_work: median(&mut same_work),
            same_work_speedup: median(&mut speedups),
            same_work_complete,
            searches_apart: median(&mut apart),
            searches_apart_speedup: median(&mut apart_speedups),
        }
    }
    fn median(rates: &mut [f64]) -> f64 {
        rates.sort_by(f64::total_cmp);
        rates[rates.len() / 2]
    }
    let wanted = |name: &str| game.is_none_or(|g| g == name);
    let mut lines = Vec::new();
    if wanted("gomoku") {
        lines.push(line("gomoku", "15x15 empty", Mnk::new(&MnkConfig::gomoku()), threads, seconds));
    }
    if wanted("hex") {
        lines.push(line("hex", "11x11 empty", Hex::new(&HexConfig::default()), threads, seconds));
    }
    if wanted("reversi") {
        lines.push(line("reversi", "8x8 start", Reversi::new(&ReversiConfig), threads, seconds));
    }
    if wanted("connect4") {
        lines.push(line("connect4", "7x6 empty", Connect4::new(&Connect4Config::default()), threads, seconds));
    }
    if wanted("nogo") {
        lines.push(line("nogo", "9x9 empty", NoGo::new(&NoGoConfig::default()), threads, seconds));
    }
    lines
}

/// The summed playouts per second of `searches` one-thread searches from `position`, each in
/// a thread of its own, run at once for `duration`.
fn searches_apart_speed<G: crate::games::Game>(position: &G, searches: usize, duration: Duration) -> f64 {
    std::thread::scope(|scope| {
        let runs: Vec<_> =
            (0..searches).map(|_| scope.spawn(move || search_speed_for(position, 1, Some(duration), None).0)).collect();
        runs.into_iter().map(|run| run.join().unwrap_or(0.0)).sum()
    })
}

/// Playouts per second of a plain search (no early stop, threads forced) from `position` for
/// `max_time` or `max_visits` playouts, and the playouts it made.
fn search_speed_for<G: crate::games::Game>(
    position: &G,
    threads: usize,
    max_time: Option<Duration>,
    max_visits: Option<u64>,
) -> (f64, u64) {
    use crate::search::{Limits, Search, SearchParams};
    let params = SearchParams { threads, force_threads: true, ..SearchParams::default() };
    let mut search = Search::new(params);
    let limits = Limits { max_time, max_visits, ..Limits::default() };
    let stop = std::sync::atomic::AtomicBool::new(false);
    let result = search.run(position, limits, &stop, 1, None);
    (result.playouts as f64 / result.elapsed.as_secs_f64().max(1e-9), result.playouts)
}

/// Playouts per second of a plain search (no early stop) from the empty 11x11 Hex board with
/// `threads` threads (forced), and of bare playouts from that board (no tree) on one thread.
pub fn hex_playout_speed(threads: usize, playouts: u64) -> (f64, f64) {
    use crate::games::Game;
    use crate::games::hex::{Hex, HexConfig};
    use rand::SeedableRng;
    let position = Hex::new(&HexConfig::default());
    let (in_search, _) = search_speed_for(&position, threads, None, Some(playouts));
    let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
    let started = Instant::now();
    for _ in 0..playouts {
        std::hint::black_box(position.clone().playout(&mut rng));
    }
    (in_search, playouts as f64 / started.elapsed().as_secs_f64().max(1e-9))
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
        let first = run_workload(Some("tictactoe"), 1).unwrap();
        let second = run_workload(Some("tictactoe"), 1).unwrap();
        assert_eq!(signature(&first), signature(&second));
        assert!(first.iter().all(|line| line.nodes > 0 && line.playouts > 0));
    }

    #[test]
    fn the_same_work_rate_is_taken_over_the_playouts_of_the_threaded_search() {
        use crate::games::Game;
        use crate::games::connect4::{Connect4, Connect4Config};
        let start = Connect4::new(&Connect4Config::default());
        let (_, threaded) = search_speed_for(&start, 2, Some(Duration::from_millis(50)), None);
        assert!(threaded > 0);
        let (rate, one_thread) = search_speed_for(&start, 1, None, Some(threaded));
        assert_eq!(one_thread, threaded);
        assert!(rate > 0.0);
        let lines = thread_scaling(Some("connect4"), 2, 0.02);
        assert_eq!(lines.len(), 1);
        let line = &lines[0];
        assert_eq!((line.game, line.threads), ("connect4", 2));
        assert!(line.same_work_complete, "a few thousand playouts take well under the cap");
        let rates = [line.one_thread, line.many_threads, line.one_thread_same_work, line.searches_apart];
        assert!(rates.iter().all(|rate| *rate > 0.0));
        assert!(line.same_work_speedup > 0.0 && line.searches_apart_speedup > 0.0);
    }
}
