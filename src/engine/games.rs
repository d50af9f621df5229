//! The registry of games a session can switch to with `set_game`, with the exact solvers each
//! game brings.

use std::sync::PoisonError;
use std::time::Instant;

use super::active_game::{
    ActiveGame, GameState, MidgameAnswer, MidgameContext, MidgameLine, SOLVER_SHARE, SolveContext, SolverHooks,
    SolverVerdict, with_deadline,
};
use crate::games::connect4::{Column, Connect4, Connect4Config};
use crate::games::hex::{self, Hex, HexConfig, HexMove};
use crate::games::mnk::gomoku_threats::ThreatBoard;
use crate::games::mnk::{Cell, Mnk, MnkConfig};
use crate::games::nogo::{NoGo, NoGoConfig};
use crate::games::reversi::{Reversi, ReversiConfig, ReversiMove};
use crate::games::{Color, Game};
use crate::knowledge::reversi_eval::{self, WEIGHT_UNIT};
use crate::knowledge::{gomoku_patterns, hex_patterns, hex_swap};
use crate::search::gomoku_alphabeta::{self, GomokuLimits, GomokuResult, GomokuTable, search_gomoku_keeping};
use crate::search::reversi_alphabeta::{MidgameLimits, MidgameTable, search_midgame_keeping};
use crate::search::reversi_probcut::{self, ProbCut};
use crate::search::{NodeSearch, RootProof, SearchParams};
use crate::solvers::connect4 as connect4_solver;
use crate::solvers::gomoku_tactics::{self, DefenceLimits, RefutationLimits, TacticsLimits};
use crate::solvers::hex_solver::{self, SolveValue};
use crate::solvers::reversi_endgame::{self, solve_endgame};
use crate::solvers::{hex_tree_knowledge, hex_vc};

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
        create: |params| {
            Box::new(
                GameState::<Mnk>::new("gomoku", MnkConfig::gomoku(), params)
                    .with_solver(SolverHooks {
                        solve: solve_gomoku,
                        solved_move: Some(gomoku_tactical_move),
                        solver_share: SOLVER_SHARE,
                        vc_view: None,
                        losing_moves: None,
                        expansion_proof: None,
                        node_threats: Some(NodeSearch::threats(gomoku_tactics::node_threats)),
                        refuted_move: Some(gomoku_refuted_move),
                    })
                    .with_switched_priors(gomoku_patterns::move_priors, |params| params.pattern_priors)
                    .with_midgame_search(gomoku_alphabeta_move)
                    .with_midgame_analysis(gomoku_midgame_analysis),
            )
        },
    },
    GameEntry {
        name: "connect4",
        aliases: &["connect-four", "connect_four"],
        create: |params| {
            Box::new(GameState::<Connect4>::new("connect4", Connect4Config::default(), params).with_solver(
                SolverHooks {
                    solve: solve_connect4,
                    solved_move: Some(connect4_solved_move),
                    solver_share: SOLVER_SHARE,
                    vc_view: None,
                    losing_moves: None,
                    expansion_proof: None,
                    node_threats: None,
                    refuted_move: None,
                },
            ))
        },
    },
    GameEntry {
        name: "nogo",
        aliases: &[],
        create: |params| Box::new(GameState::<NoGo>::new("nogo", NoGoConfig::default(), params)),
    },
    GameEntry {
        name: "hex",
        aliases: &[],
        create: |params| {
            Box::new(
                GameState::<Hex>::new("hex", HexConfig::default(), params)
                    .with_solver(SolverHooks {
                        solve: solve_hex,
                        solved_move: Some(hex_decided_move),
                        solver_share: SOLVER_SHARE,
                        vc_view: Some(super::hex_vc_views::vc_view),
                        losing_moves: Some(hex_moves_outside_must_play),
                        expansion_proof: Some(hex_vc::expansion_proof),
                        node_threats: Some(NodeSearch::knowledge(hex_tree_knowledge::node_knowledge)),
                        refuted_move: None,
                    })
                    .with_priors(hex_patterns::move_priors)
                    .with_playouts(hex_patterns::playout)
                    .resigning_proven_losses(),
            )
        },
    },
    GameEntry {
        name: "reversi",
        aliases: &["othello"],
        create: |params| {
            // The evaluation and ProbCut tables load here, before any clock runs: on the first
            // genmove their load (about 0.1 s) overran a 1 s move.
            let _ = reversi_eval::embedded();
            let _ = reversi_probcut::embedded();
            Box::new(
                GameState::<Reversi>::new("reversi", ReversiConfig, params)
                    .with_solver(SolverHooks {
                        solve: solve_reversi,
                        solved_move: Some(reversi_solved_move),
                        solver_share: REVERSI_SOLVER_SHARE,
                        vc_view: None,
                        losing_moves: None,
                        expansion_proof: None,
                        node_threats: None,
                        refuted_move: None,
                    })
                    .with_midgame_search(reversi_midgame_move)
                    .with_midgame_analysis(reversi_midgame_analysis),
            )
        },
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

fn reversi_options<'a>(context: &SolveContext<'a>) -> reversi_endgame::SolveOptions<'a> {
    reversi_endgame::SolveOptions { threads: context.threads, stop: Some(context.stop), ..Default::default() }
}

/// `ponder-solve` for Reversi: `SCORE MOVE`, the exact final disc difference for the side to
/// move (empty squares to the winner) and a best move; just `SCORE` once the game is over.
fn solve_reversi(position: &Reversi, context: &SolveContext) -> Option<String> {
    let result = solve_endgame(position, &reversi_options(context))?;
    Some(match result.best_move {
        Some(mv) => format!("{} {}", result.score, position.format_move(mv)),
        None => result.score.to_string(),
    })
}

/// The share of a move's time the Reversi endgame solver gets when the empties fit it
/// ([`reversi_solvable_empties`]): it is then expected to finish, and a solved endgame is
/// worth more than the midgame search's guess. In 40 games against NTest (1 s a move), the
/// share of 0.4 that other games use let the solver start at 17 empties, and between 20
/// empties and the end ponder gave away 2 of its 40 points (a win and a draw).
const REVERSI_SOLVER_SHARE: f64 = 0.85;

/// Assumed speed of the endgame solver in play, in nodes per second per thread, and the size
/// of a 20-empty solve. The speed is a loaded machine's (9.4 M nodes/s here at load 5 on the
/// positions below, short solves included). The size is the 80th percentile of the positions
/// at 20 empties of 40 games against NTest (mean 6.5 M nodes, the largest 25 M); FFO #40-#44,
/// chosen to be hard, take 19-75 M at 20-23 empties.
const SOLVER_NODES_PER_SECOND: f64 = 8.0e6;
const SOLVER_NODES_AT_20_EMPTIES: f64 = 1.0e7;

/// Each more empty square multiplies the solve's nodes by about this much (FFO #40-#49: 20M
/// at 20 empties, 0.6G at 24).
const SOLVER_GROWTH_PER_EMPTY: f64 = 2.5;

/// The empties up to which a Reversi endgame is solved before the search: the largest count
/// whose estimated solve time (nodes by empties, at the solver's speed on `threads` threads)
/// fits the move's budget. Without a time limit, 20.
fn reversi_solvable_empties(budget: Option<std::time::Duration>, threads: usize) -> u32 {
    let Some(budget) = budget else { return 20 };
    // Two threads measured about 1.6 times one; more keep scaling, less than linearly.
    let speedup = (threads.max(1) as f64).powf(0.7);
    let affordable_nodes = budget.as_secs_f64() * SOLVER_NODES_PER_SECOND * speedup;
    let extra_empties = (affordable_nodes / SOLVER_NODES_AT_20_EMPTIES).ln() / SOLVER_GROWTH_PER_EMPTY.ln();
    (20.0 + extra_empties).floor().clamp(12.0, 30.0) as u32
}

/// In play: solve the endgame exactly once the empties fit the budget, so a solvable endgame is
/// never misplayed.
fn reversi_solved_move(position: &Reversi, context: &SolveContext) -> Option<SolverVerdict<<Reversi as Game>::Move>> {
    if position.empty_squares().count_ones() > reversi_solvable_empties(context.budget, context.threads) {
        return None;
    }
    // A solve in play is small (a few million nodes), and clearing the default 64 MiB table
    // took a tenth of a 2-million-node solve's time (page faults and zeroing, perf).
    let options = reversi_endgame::SolveOptions { table_bits: PLAY_SOLVER_TABLE_BITS, ..reversi_options(context) };
    let result = solve_endgame(position, &options)?;
    result.best_move.map(|mv| SolverVerdict::PlayExact { mv, score: f64::from(result.score), nodes: result.nodes })
}

/// The endgame solver's table in play: 2^20 entries of 16 bytes (16 MiB).
const PLAY_SOLVER_TABLE_BITS: u32 = 20;

/// Alpha-beta nodes that stand for one playout of a `max_visits` or `level` limit: a random
/// Reversi playout plays some 60 moves, about the work of this many evaluated nodes.
const NODES_PER_PLAYOUT: u64 = 50;

/// Disc differences turn into win rates along a logistic curve of this scale (a 10-disc lead
/// is about a 78% win rate).
const DISCS_PER_LOGIT: f64 = 8.0;

/// The win rate a Reversi search's disc score stands for ([`DISCS_PER_LOGIT`]).
fn win_rate_of(discs: f64) -> f64 {
    1.0 / (1.0 + (-discs / DISCS_PER_LOGIT).exp())
}

/// The alpha-beta's limits for a move or an analysis under `context`: `max_visits` stands for
/// [`NODES_PER_PLAYOUT`] nodes a playout.
fn reversi_limits<'a>(
    context: &MidgameContext<'a>,
    target_time: Option<std::time::Duration>,
    probcut: Option<&'static ProbCut>,
) -> MidgameLimits<'a> {
    MidgameLimits {
        max_time: context.max_time,
        target_time,
        max_nodes: context.max_visits.map(|visits| visits.saturating_mul(NODES_PER_PLAYOUT)),
        max_depth: context.max_depth.unwrap_or(60),
        stop: context.stop,
        probcut,
        heartbeat: context.heartbeat,
    }
}

/// What a score proves: the game's result where the search reached its end (`exact`).
fn score_proof(exact: bool, discs: f64) -> RootProof {
    match (exact, discs.partial_cmp(&0.0)) {
        (false, _) => RootProof::Unknown,
        (true, Some(std::cmp::Ordering::Greater)) => RootProof::Win,
        (true, Some(std::cmp::Ordering::Less)) => RootProof::Loss,
        (true, _) => RootProof::Draw,
    }
}

/// In play: the move of the alpha-beta search with the trained evaluation; `None` (MCTS plays)
/// when the embedded weights do not load.
fn reversi_midgame_move(position: &Reversi, context: &MidgameContext) -> Option<MidgameAnswer<ReversiMove>> {
    let evaluator = match reversi_eval::embedded() {
        Ok(evaluator) => evaluator,
        Err(error) => {
            log::warn!("reversi evaluation unavailable ({error}); playing by MCTS");
            return None;
        }
    };
    let limits = reversi_limits(context, context.target_time, playing_probcut());
    // The table of this game's earlier moves (a new one at a game's first search).
    let mut kept = context.kept.lock().unwrap_or_else(PoisonError::into_inner);
    if !kept.as_ref().is_some_and(|kept| kept.is::<MidgameTable>()) {
        *kept = Some(Box::new(MidgameTable::new()));
    }
    let table = kept.as_mut().and_then(|kept| kept.downcast_mut::<MidgameTable>()).expect("a table was just kept");
    let result = search_midgame_keeping(position, evaluator, &limits, table)?;
    let discs = f64::from(result.score) / f64::from(WEIGHT_UNIT);
    log::info!(
        "{} {}: alpha-beta depth {}, {:+.1} discs, {} nodes",
        position.to_move(),
        position.format_move(result.best_move),
        result.depth,
        discs,
        result.nodes
    );
    Some(MidgameAnswer {
        mv: result.best_move,
        value: win_rate_of(discs),
        nodes: result.nodes,
        depth: result.depth,
        pv: result.pv,
        proof: score_proof(result.exact, discs),
        score: discs,
        alternatives: Vec::new(),
    })
}

/// ProbCut's embedded table for play; `None` (every node searched in full) when it does not load.
fn playing_probcut() -> Option<&'static ProbCut> {
    reversi_probcut::embedded().map_err(|error| log::warn!("reversi probcut table unavailable ({error})")).ok()
}

/// A line of [`reversi_hints`]: its moves from the position analysed, its exact score for the
/// side to move there in discs at `depth`, and whether that score is the game's end result.
#[derive(Clone, Debug, PartialEq)]
pub struct ReversiHint {
    pub pv: Vec<ReversiMove>,
    pub discs: f64,
    pub depth: u32,
    pub exact: bool,
}

/// Analysis for NBoard's `hint`: the alpha-beta search with the trained evaluation scores the
/// best `count` moves of the side to move exactly, deepening to `max_depth` (or until `stop`),
/// and `report` gets the lines of every completed depth with the nodes searched so far. A side
/// that must pass gets the line of its pass (scored by the opponent's search). Blocks.
///
/// # Errors
/// The game is over, or the embedded weights do not load.
pub fn reversi_hints(
    position: &Reversi,
    count: usize,
    max_depth: u32,
    stop: &std::sync::atomic::AtomicBool,
    report: &mut dyn FnMut(&[ReversiHint], u64),
) -> Result<(), String> {
    if position.outcome().is_some() {
        return Err("the game is over".to_string());
    }
    let limits = MidgameLimits::to_depth(max_depth.max(1), stop);
    scored_lines(position, &limits, count, report)
}

/// `lz-analyze` and `kata-analyze` for Reversi: every move scored exactly at each depth, as
/// NBoard's `hint` does, within the analysis's limits; `false` (MCTS analyses) when the
/// embedded weights do not load.
fn reversi_midgame_analysis(
    position: &Reversi,
    context: &MidgameContext,
    report: &mut dyn FnMut(&[MidgameLine<ReversiMove>], u64),
) -> bool {
    let limits = reversi_limits(context, None, None);
    let every_move = 64;
    let scored = scored_lines(position, &limits, every_move, &mut |hints, nodes| {
        let lines: Vec<MidgameLine<ReversiMove>> = hints
            .iter()
            .map(|hint| MidgameLine {
                pv: hint.pv.clone(),
                value: score_proof(hint.exact, hint.discs).value().unwrap_or_else(|| win_rate_of(hint.discs)),
                score: Some(hint.discs),
            })
            .collect();
        report(&lines, nodes);
    });
    scored.map_err(|error| log::warn!("reversi analysis by MCTS: {error}")).is_ok()
}

/// The alpha-beta's exact scores of the best `count` moves at each depth within `limits`
/// (analysis: no ProbCut, so each depth's scores are exact for that depth), reported with the
/// nodes so far. A side that must pass gets the line of its pass.
fn scored_lines(
    position: &Reversi,
    limits: &MidgameLimits,
    count: usize,
    report: &mut dyn FnMut(&[ReversiHint], u64),
) -> Result<(), String> {
    use crate::search::reversi_alphabeta::analyze_midgame;
    let evaluator = reversi_eval::embedded().map_err(|error| format!("reversi evaluation unavailable ({error})"))?;
    let mut searched = position.clone();
    let passing = searched.must_pass();
    if passing {
        searched.play_unchecked(ReversiMove::PASS);
    }
    let (count, sign) = if passing { (1, -1.0) } else { (count, 1.0) };
    analyze_midgame(&searched, evaluator, limits, count, &mut |iteration| {
        let hints: Vec<ReversiHint> = iteration
            .lines
            .iter()
            .map(|line| ReversiHint {
                pv: if passing {
                    std::iter::once(ReversiMove::PASS).chain(line.pv.iter().copied()).collect()
                } else {
                    line.pv.clone()
                },
                discs: sign * f64::from(line.score) / f64::from(WEIGHT_UNIT),
                depth: iteration.depth,
                exact: iteration.exact,
            })
            .collect();
        report(&hints, iteration.nodes);
    });
    Ok(())
}

/// `ponder-solve` for Hex: `win MOVE` or `loss` for the side to move (proof-number search over
/// virtual connections); `unknown` where the solver cannot work (boards over 128 cells).
fn solve_hex(position: &Hex, context: &SolveContext) -> Option<String> {
    let options = hex_solver::SolveOptions { stop: Some(context.stop), ..Default::default() };
    match hex_solver::solve(position, &options).value {
        SolveValue::Win(mv) => Some(format!("win {}", position.format_move(mv))),
        SolveValue::Loss => Some("loss".to_string()),
        SolveValue::Unknown if context.stop.load(std::sync::atomic::Ordering::Relaxed) => None,
        SolveValue::Unknown => Some("unknown".to_string()),
    }
}

/// In play: under the swap rule, the swap table ([`hex_swap`]) chooses the first stone and
/// whether to swap it, on the boards it covers. Otherwise, when the virtual connections already
/// decide the game, play the side to move's winning move without searching, or resign when the
/// opponent has won; but not for the first stone under the swap rule, where a winning stone is
/// exactly the one the opponent takes over. Else, with at most [`HEX_SOLVER_EMPTIES`] empty
/// cells, the exact solver tries within its share of the move's time.
fn hex_decided_move(position: &Hex, context: &SolveContext) -> Option<SolverVerdict<HexMove>> {
    if position.allow_swap() && position.stone_count() == 0 {
        return swap_table_opening(position).map(|cell| SolverVerdict::Play(HexMove::Cell(cell)));
    }
    if swap_table_swaps(position) == Some(true) {
        return Some(SolverVerdict::Play(HexMove::Swap));
    }
    match hex_vc::decided(position) {
        Some((winner, Some(cell))) if winner == position.to_move() => {
            return Some(SolverVerdict::Play(HexMove::Cell(cell)));
        }
        Some((winner, _)) if winner != position.to_move() => return Some(SolverVerdict::Lost),
        _ => {}
    }
    hex_solved_move(position, context)
}

/// The most empty cells at which `genmove` asks the Hex solver first. Measured here (one
/// thread, `ponder-solve` on positions of ponder's own 9x9 and 11x11 games at 3,000 visits a
/// move, walking back from their ends): up to 64 empties the solves took 0.0-0.4 s, at 66-72
/// 0.1-17 s, beyond that up to minutes. A solve that does not finish costs the search its
/// share of the move, so the solver waits until it is likely to finish.
const HEX_SOLVER_EMPTIES: usize = 64;

/// Without a clock (under `max_visits` or `level`: self-play, tests) a solve in play stops
/// after this many nodes, the same every time: about 0.2 s on 7x7 (a node is two H-searches,
/// some 0.2 ms there, slower on larger boards), so a search of a few hundred playouts is not
/// swamped by solves that do not finish.
const HEX_SOLVER_NODES_WITHOUT_CLOCK: u64 = 1_000;

/// Under a clock the move's share of time ends a solve; this many nodes bound its table on a
/// long move (a key and an entry are 96 bytes, so with the hash map's spare room some 20 to 40
/// MB): some 40 s of solving on 7x7 at the 5,000 nodes a second measured there.
const HEX_SOLVER_MOST_NODES: u64 = 200_000;

/// The exact solver's verdict on a position with few empty cells (a win with its move, or a
/// proven loss), within the move's share of time or, without a clock,
/// [`HEX_SOLVER_NODES_WITHOUT_CLOCK`]; `None` when it does not finish.
fn hex_solved_move(position: &Hex, context: &SolveContext) -> Option<SolverVerdict<HexMove>> {
    let empties = position.width() * position.height() - position.stone_count();
    if empties > HEX_SOLVER_EMPTIES {
        return None;
    }
    let node_limit = if context.budget.is_some() { HEX_SOLVER_MOST_NODES } else { HEX_SOLVER_NODES_WITHOUT_CLOCK };
    let options = hex_solver::SolveOptions { node_limit, stop: Some(context.stop) };
    match hex_solver::solve(position, &options).value {
        SolveValue::Win(mv) => Some(SolverVerdict::Play(mv)),
        SolveValue::Loss => Some(SolverVerdict::Lost),
        SolveValue::Unknown => None,
    }
}

/// In play: the moves the search leaves out at the root. The cells outside the must-play region
/// of the opponent's semi connections between its edges lose at once (the opponent plays a key),
/// so the search never spends playouts on them (none on boards over 128 cells or when H-search
/// finds no such semi); and the swap, when the swap table marks the first stone as one that
/// loses for its owner (one not to swap).
fn hex_moves_outside_must_play(position: &Hex) -> Vec<HexMove> {
    let mut moves = Vec::new();
    if let Some(region) = hex_vc::must_play(position) {
        position.legal_moves(&mut moves);
        moves.retain(|mv| match mv {
            HexMove::Cell(cell) => !region.contains(cell.0 as usize),
            // Swapping keeps the stones where they are: the opponent's connections become ours.
            HexMove::Swap => false,
        });
    }
    if swap_table_swaps(position) == Some(false) {
        moves.push(HexMove::Swap);
    }
    moves
}

/// The first stone the swap table opens with on this board (the best-rated one it would not
/// swap); `None` when the table does not cover the board (or does not load).
fn swap_table_opening(position: &Hex) -> Option<hex::Cell> {
    let size = square_side(position)?;
    let cell = hex_swap::embedded().ok()?.balanced_opening(size)?;
    Some(hex::Cell(u16::try_from(cell).ok()?))
}

/// Whether the swap table would swap the first stone, when the swap is legal now and the table
/// covers the board.
fn swap_table_swaps(position: &Hex) -> Option<bool> {
    if !position.swap_is_legal() {
        return None;
    }
    let size = square_side(position)?;
    let first_stone = position.stones(Color::Black).iter().next()?;
    hex_swap::embedded().ok()?.swaps(size, first_stone)
}

fn square_side(position: &Hex) -> Option<usize> {
    (position.width() == position.height()).then_some(position.width())
}

/// `ponder-solve` for Connect Four: `SCORE MOVE` in Pascal Pons' convention (positive: the side to
/// move wins, the larger the sooner; 0: a draw) and a best move; `unknown` on boards too large for
/// the solver's bitboard (W x (H + 1) over 64).
fn solve_connect4(position: &Connect4, context: &SolveContext) -> Option<String> {
    let limits = connect4_solver::SolveLimits { stop: Some(context.stop), ..Default::default() };
    match connect4_solver::solve(position, &limits) {
        Ok(result) => Some(format!("{} {}", result.score, position.format_move(result.best_move))),
        Err(connect4_solver::SolveError::Stopped(_)) => None,
        Err(error) => Some(format!("unknown ({error:?})")),
    }
}

/// In play: the solver decides whenever it finishes within the move's budget (a million nodes a
/// second is a safe rate here; two seconds' worth without a time limit); otherwise the search
/// plays.
fn connect4_solved_move(position: &Connect4, context: &SolveContext) -> Option<SolverVerdict<Column>> {
    if !connect4_solver::is_supported(position.width(), position.height()) {
        return None;
    }
    let seconds = context.budget.map_or(2.0, |budget| budget.as_secs_f64());
    let node_limit = (seconds * 1_000_000.0) as u64;
    let limits = connect4_solver::SolveLimits { node_limit: Some(node_limit), stop: Some(context.stop) };
    let mut solver = connect4_solver::Solver::new(20);
    solver.solve(position, &limits).ok().map(|result| SolverVerdict::Play(result.best_move))
}

/// `ponder-solve` for Gomoku: `win` and the whole forcing line (the winner's moves and the forced
/// replies, alternating) by VCF, else by VCT, else by VC3 (one branch of its proof); `unknown`
/// when none finds a win.
fn solve_gomoku(position: &Mnk, context: &SolveContext) -> Option<String> {
    gomoku_tactics::solve_text(position, context.stop)
}

/// In play: the threat-space tactics of the root (win, block a four, VCF, VCT or VC3 win, the only
/// defence against the opponent's VCF) within the budget; otherwise the search plays.
fn gomoku_tactical_move(position: &Mnk, context: &SolveContext) -> Option<SolverVerdict<Cell>> {
    let seconds = context.budget.map_or(2.0, |budget| budget.as_secs_f64());
    gomoku_tactics::tactical_move(position, &TacticsLimits::for_seconds(seconds), context.stop).map(SolverVerdict::Play)
}

/// Alpha-beta nodes that stand for one playout of a `max_visits` or `level` limit in Gomoku: a
/// threat-aware playout fills some 30 to 60 cells with pattern updates, about the work of this
/// many search nodes.
const GOMOKU_NODES_PER_PLAYOUT: u64 = 20;

/// In play (`param_search alphabeta`, after the root's threat tactics found nothing to force):
/// the move of the alpha-beta search with the pattern evaluation.
fn gomoku_alphabeta_move(position: &Mnk, context: &MidgameContext) -> Option<MidgameAnswer<Cell>> {
    let started = Instant::now();
    // Against a forcing win the opponent threatens, only the moves that stop it (and our own
    // fours, added below) are searched.
    // The checks are sized in nodes for the move's time, and stopped at half of it: on a
    // loaded machine they once took a whole 5 s move, and the search got none of it.
    let root_moves = context
        .threat_checks
        .then(|| {
            let seconds = context.max_time.map_or(DEFENCE_SECONDS_WITHOUT_CLOCK, |time| time.as_secs_f64());
            let budget = context.max_time.map(|time| time.mul_f64(DEFENCE_SHARE));
            with_deadline(budget, context.stop, |stop| {
                gomoku_tactics::forcing_defences(position, &DefenceLimits::for_seconds(seconds), stop)
            })
        })
        .flatten();
    let checks_seconds = started.elapsed().as_secs_f64();
    if let Some(moves) = &root_moves {
        log::info!(
            "{}: the opponent threatens a forcing win; searching {} moves that stop it: {} (checks {checks_seconds:.2} s)",
            position.to_move(),
            moves.len(),
            moves.iter().map(|&cell| position.format_move(cell)).collect::<Vec<_>>().join(" ")
        );
    } else if context.threat_checks {
        log::debug!("{}: the threat checks narrowed no moves in {checks_seconds:.2} s", position.to_move());
    }
    let mut limits = GomokuLimits { root_moves, ..gomoku_limits(context) };
    let with_time_left = |limits: &mut GomokuLimits, share: f64| {
        let spent = started.elapsed();
        limits.max_time = context.max_time.map(|time| time.saturating_sub(spent).mul_f64(share));
        limits.target_time = context.target_time.map(|time| time.saturating_sub(spent).mul_f64(share));
    };
    with_time_left(&mut limits, 1.0);
    // The table of this game's earlier moves (a new one at a game's first search).
    let mut kept = context.kept.lock().unwrap_or_else(PoisonError::into_inner);
    if !kept.as_ref().is_some_and(|kept| kept.is::<GomokuTable>()) {
        *kept = Some(Box::new(GomokuTable::new()));
    }
    let table = kept.as_mut().and_then(|kept| kept.downcast_mut::<GomokuTable>()).expect("a table was just kept");
    // A move an earlier search proved winning stays among the defences: the defence lists,
    // drawn from the opponent's threat, miss a win that runs through quiet moves or through
    // threats the checks do not read (dropping one once lost a game with a proven win). The
    // search proves it again or not, and the refutation check looks at it as at any move.
    if let Some(defences) = limits.root_moves.as_mut()
        && let Some(win) = table.proven_win(position)
        && !defences.contains(&win)
    {
        log::info!(
            "{} {}: proven winning by an earlier search; searched too",
            position.to_move(),
            position.format_move(win)
        );
        defences.push(win);
    }
    if let Some(defences) = limits.root_moves.as_mut() {
        add_own_fours(position, defences);
    }
    let mut result = search_gomoku_keeping(position, &limits, table)?;
    if limits.root_moves.is_some() && result.proven() == Some(false) {
        // Every move that stops the threat loses by force. That proves nothing about the moves
        // the threat searches did not offer: a quiet move can arm counter-fours that break the
        // opponent's line (in a game lost to Rapfi, Black had a win in 33 plies at a cell no
        // defence list holds, and played on as lost). All moves are searched in the time
        // left; one that is not lost there and that the opponent's threat searches do not
        // refute is played. Otherwise the longest defence stays: a move outside the defences
        // loses to the threat already found, while a defence makes the opponent find more.
        let defences = limits.root_moves.take().unwrap_or_default();
        with_time_left(&mut limits, 1.0 - WIDENED_CHECK_SHARE);
        let check_time = context.max_time.map(|time| time.saturating_sub(started.elapsed()));
        // The widened search must reach the depth of the proof it would overrule, and the
        // check must finish: a search or check that ran out of time shows nothing.
        if let Some(wider) = search_gomoku_keeping(position, &limits, table)
            && wider.proven() != Some(false)
            && wider.depth >= result.depth.max(1)
            && with_deadline(check_time, context.stop, |stop| {
                let refuted =
                    gomoku_tactics::opponent_wins_after(position, wider.best_move, &RefutationLimits::default(), stop);
                !refuted && !stop.load(std::sync::atomic::Ordering::Relaxed)
            })
        {
            // The search over all moves may also find a defence holding that the narrowed one
            // lost (its table and its order differ): the log says which happened.
            let among = if defences.contains(&wider.best_move) { "one of them" } else { "outside them" };
            log::info!(
                "{} {}: every defence lost in the narrowed search; this move, {among}, holds in the search over all \
                 moves as far as the searches see",
                position.to_move(),
                position.format_move(wider.best_move)
            );
            // Checked here already, and its alternatives are not: nothing to fall back on.
            result = GomokuResult { alternatives: Vec::new(), ..wider };
        }
    }
    let proven = result.proven();
    log::debug!("{}: {}", position.to_move(), result.census);
    log::info!(
        "{} {}: alpha-beta depth {}, score {}{}, {} nodes",
        position.to_move(),
        position.format_move(result.best_move),
        result.depth,
        result.score,
        match proven {
            Some(true) => " (proven win)",
            Some(false) => " (proven loss)",
            None => "",
        },
        result.nodes
    );
    let value = gomoku_win_rate(result.score);
    let proof = match proven {
        Some(true) => RootProof::Win,
        Some(false) => RootProof::Loss,
        None => RootProof::Unknown,
    };
    let score = match proven {
        Some(_) => f64::from(result.score.signum() * (gomoku_alphabeta::MATE - result.score.abs())),
        None => f64::from(result.score),
    };
    Some(MidgameAnswer {
        mv: result.best_move,
        value,
        nodes: result.nodes,
        depth: result.depth,
        pv: result.pv,
        proof,
        score,
        alternatives: result.alternatives,
    })
}

/// Adds the side to move's fours to the root `defences` against a threatened forcing win: a
/// four may open a win of our own that goes on with quiet moves or threes, which the threat
/// searches do not read (in a game lost to Rapfi, Black's winning move was a four, left out
/// because a line cell held; Rapfi saw the win in 17 plies). Each costs the search little, as
/// its reply is forced.
fn add_own_fours(position: &Mnk, defences: &mut Vec<Cell>) {
    for four in ThreatBoard::new(position).four_points(position.to_move()).iter() {
        if !defences.contains(&four) {
            defences.push(four);
        }
    }
}

/// The Gomoku alpha-beta's limits for a move or an analysis.
fn gomoku_limits<'a>(context: &MidgameContext<'a>) -> GomokuLimits<'a> {
    GomokuLimits {
        max_time: context.max_time,
        target_time: context.target_time,
        max_nodes: context.max_visits.map(|visits| visits.saturating_mul(GOMOKU_NODES_PER_PLAYOUT)),
        max_depth: context.max_depth.unwrap_or(0),
        stop: context.stop,
        root_moves: None,
        heartbeat: context.heartbeat,
    }
}

/// The share of the move's time after which the checks of which moves stop a threatened
/// forcing win (see [`gomoku_alphabeta_move`]) are stopped. Their node limits are sized for a
/// quarter of it on an idle core; stopped, they keep every move not refuted by then.
const DEFENCE_SHARE: f64 = 0.5;

/// The share of the time left that the check of a move outside the defences keeps for itself
/// (see [`gomoku_alphabeta_move`]): the opponent's VCF and VCT searches after it.
const WIDENED_CHECK_SHARE: f64 = 0.2;

/// The move time the defence checks of [`gomoku_alphabeta_move`] are sized for when the move
/// has no time limit (a visit limit, a depth limit): node limits only, so the same answer on
/// every machine.
const DEFENCE_SECONDS_WITHOUT_CLOCK: f64 = 1.0;

/// How near an unproven Gomoku win rate may come to 1 or 0: a viewer must tell an evaluation
/// (or the search's "every move searched loses" score, far out on the curve) from a proof.
const UNPROVEN_WIN_RATE_MARGIN: f64 = 0.001;

/// The win rate an alpha-beta score stands for: 1 or 0 when proven, else the evaluation's
/// logistic curve, within [`UNPROVEN_WIN_RATE_MARGIN`] of them.
fn gomoku_win_rate(score: i32) -> f64 {
    if score.abs() >= gomoku_alphabeta::MATE_BOUND {
        return if score > 0 { 1.0 } else { 0.0 };
    }
    let curve = 1.0 / (1.0 + (-f64::from(score) / crate::knowledge::gomoku_eval::UNITS_PER_LOGIT).exp());
    curve.clamp(UNPROVEN_WIN_RATE_MARGIN, 1.0 - UNPROVEN_WIN_RATE_MARGIN)
}

/// `lz-analyze` and `kata-analyze` for Gomoku (with `alphabeta` on): the alpha-beta's exact
/// scores of the best-ordered root moves at each depth, as win rates; no `scoreLead` (the
/// evaluation's unit is no score a viewer knows).
fn gomoku_midgame_analysis(
    position: &Mnk,
    context: &MidgameContext,
    report: &mut dyn FnMut(&[MidgameLine<Cell>], u64),
) -> bool {
    gomoku_alphabeta::analyze_gomoku(position, &gomoku_limits(context), &mut |lines, _, nodes| {
        let lines: Vec<MidgameLine<Cell>> = lines
            .iter()
            .map(|line| MidgameLine { pv: line.pv.clone(), value: gomoku_win_rate(line.score), score: None })
            .collect();
        report(&lines, nodes);
    })
}

/// After the search: whether the opponent wins by VCF, VCT or VC3 once `mv` is played (the check
/// that keeps the search's choice from walking into a forcing win it did not see).
fn gomoku_refuted_move(position: &Mnk, mv: Cell, context: &SolveContext) -> bool {
    gomoku_tactics::opponent_wins_after(position, mv, &RefutationLimits::default(), context.stop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Session;
    use crate::games::{Color, GameConfig};
    use crate::protocol::command::parse_command;
    use crate::search::gomoku_alphabeta::search_gomoku;
    use crate::search::reversi_alphabeta::search_midgame;

    #[test]
    fn only_proven_gomoku_scores_show_as_certain() {
        use gomoku_alphabeta::{MATE, MATE_BOUND};
        assert_eq!(gomoku_win_rate(MATE - 7), 1.0);
        assert_eq!(gomoku_win_rate(-(MATE - 7)), 0.0);
        assert_eq!(gomoku_win_rate(0), 0.5);
        // The largest scores short of a proof (as a node whose searched moves all lost gives
        // its parent) show as 99.9% and 0.1%, not as 100% and 0%.
        let shown = |score: i32| format!("{:.1}%", 100.0 * gomoku_win_rate(score));
        assert_eq!(shown(MATE_BOUND - 1), "99.9%");
        assert_eq!(shown(-(MATE_BOUND - 1)), "0.1%");
        assert_eq!(shown(300), "73.1%");
    }

    /// Runs one command line on the session, as a front end would.
    fn run_line(session: &mut Session, line: &str) -> Result<String, crate::engine::GtpError> {
        let mut words = line.split_whitespace();
        let name = words.next().expect("a command name");
        let args: Vec<String> = words.map(String::from).collect();
        session.execute(parse_command(name, &args).expect("a known command"))
    }

    /// Runs `commands` in a fresh Reversi session, each answered with success; returns the last
    /// reply and the MCTS tree's node count after it.
    fn reversi_session_reply(commands: &[String]) -> (String, u64) {
        session_reply("reversi", commands)
    }

    /// A session's commands under 100 visits and no time limit: `settings`, the `alphabeta`
    /// switch, the `moves` (`COLOUR VERTEX`) played, then `last`.
    fn node_limited_commands(settings: &[&str], alpha_beta: u8, moves: &[&str], last: &str) -> Vec<String> {
        ["param_search max_time 0", "param_search max_visits 100"]
            .iter()
            .chain(settings)
            .map(|command| command.to_string())
            .chain([format!("param_search alphabeta {alpha_beta}")])
            .chain(moves.iter().map(|mv| format!("play {mv}")))
            .chain([last.to_string()])
            .collect()
    }

    /// The Gomoku position after `moves` (`COLOUR VERTEX`, as [`node_limited_commands`] plays
    /// them).
    fn gomoku_after(moves: &[&str]) -> Mnk {
        let mut position = Mnk::new(&MnkConfig::gomoku());
        for text in moves {
            position.play(position.parse_move(&text[2..]).unwrap()).unwrap();
        }
        position
    }

    /// The alpha-beta limits [`node_limited_commands`]' 100 visits stand for, and no others.
    fn hundred_visit_limits(never: &std::sync::atomic::AtomicBool) -> GomokuLimits<'_> {
        GomokuLimits { max_nodes: Some(100 * GOMOKU_NODES_PER_PLAYOUT), ..GomokuLimits::to_depth(0, never) }
    }

    /// Each move of an analysis line (`info move M … FIELD V …`) with the value of `field`.
    fn info_fields(line: &str, field: &str) -> Vec<(String, String)> {
        line.split("info move ")
            .skip(1)
            .map(|entry| {
                let words: Vec<&str> = entry.split_whitespace().collect();
                let at = words.iter().position(|&word| word == field).unwrap_or_else(|| panic!("a {field}"));
                (words[0].to_string(), words[at + 1].to_string())
            })
            .collect()
    }

    /// The same for any game.
    fn session_reply(game: &str, commands: &[String]) -> (String, u64) {
        let mut session = Session::new(game).unwrap();
        let mut last = String::new();
        for command in commands {
            last = run_line(&mut session, command).unwrap_or_else(|error| panic!("{command}: {error}"));
        }
        let stats = run_line(&mut session, "ponder-stats").unwrap();
        let nodes = stats.lines().find_map(|line| line.strip_prefix("nodes ")).unwrap();
        (last, nodes.trim().parse().unwrap())
    }

    /// A streamed reply's lines with each run of repeats (an analysis passing its last depth's
    /// lines on again while the next depth runs) kept once: what does not depend on timing.
    fn distinct_lines(reply: &str) -> Vec<&str> {
        let mut lines: Vec<&str> = reply.lines().collect();
        lines.dedup();
        lines
    }

    #[test]
    fn reversi_solver_takes_over_from_more_empties_with_more_time_and_threads() {
        use std::time::Duration;
        let empties = |seconds: f64, threads| reversi_solvable_empties(Some(Duration::from_secs_f64(seconds)), threads);
        // A 5-second move (4 s for the solver) solves from 21 empties, a 1-second move (0.8 s)
        // from 19, a 0.5-second move from 18.
        assert_eq!(empties(4.0, 1), 21);
        assert_eq!(empties(0.8, 1), 19);
        assert_eq!(empties(0.4, 1), 18);
        let mut last = 0;
        for seconds in [0.0, 0.001, 0.01, 0.1, 1.0, 10.0, 100.0, 1e4, 1e9] {
            let now = empties(seconds, 1);
            assert!((12..=30).contains(&now) && now >= last, "{seconds} s: {now}");
            assert!(empties(seconds, 16) >= now);
            last = now;
        }
        assert!(empties(100.0, 16) > empties(100.0, 1));
        assert_eq!(reversi_solvable_empties(None, 1), 20);
    }

    #[test]
    fn reversi_ponders_with_the_search_that_plays_its_moves() {
        // After our genmove the opponent is to move: pondering runs the alpha-beta search (it
        // keeps its table for our next move) and builds no MCTS tree, unless MCTS plays.
        let tree_after_pondering = |alpha_beta: u8| {
            let mut session = Session::new("reversi").unwrap();
            for command in [
                "param_search max_time 0",
                "param_search max_visits 100",
                "param_search ponder 1",
                "param_search ponder_max_visits 200",
                &format!("param_search alphabeta {alpha_beta}"),
                "genmove b",
            ] {
                run_line(&mut session, command).unwrap_or_else(|error| panic!("{command}: {error}"));
            }
            session.ponder_while_idle();
            let stats = run_line(&mut session, "ponder-stats").unwrap();
            stats.lines().find_map(|line| line.strip_prefix("nodes ")).unwrap().trim().parse::<u64>().unwrap()
        };
        assert_eq!(tree_after_pondering(1), 0);
        assert!(tree_after_pondering(0) > 0);
    }

    /// The alpha-beta limits that `param_search max_visits 100` without a clock stands for.
    fn hundred_visits_of_nodes<'a>(
        stop: &'a std::sync::atomic::AtomicBool,
        probcut: Option<&'static ProbCut>,
    ) -> MidgameLimits<'a> {
        MidgameLimits { max_nodes: Some(100 * NODES_PER_PLAYOUT), probcut, ..MidgameLimits::to_depth(60, stop) }
    }

    #[test]
    fn reversi_genmove_plays_the_alpha_beta_move_deterministically() {
        let commands = |alpha_beta: u8| {
            node_limited_commands(&["param_search seed 3"], alpha_beta, &["b f5", "w d6"], "genmove b")
        };
        let (first, tree) = reversi_session_reply(&commands(1));
        let (second, _) = reversi_session_reply(&commands(1));
        assert_eq!(first, second);
        // The alpha-beta search decided, at the node limit the visits stand for: no MCTS tree.
        assert_eq!(tree, 0);
        let mut position = Reversi::new(&ReversiConfig);
        for text in ["f5", "d6"] {
            position.play(position.parse_move(text).unwrap()).unwrap();
        }
        let never = std::sync::atomic::AtomicBool::new(false);
        let limits = hundred_visits_of_nodes(&never, playing_probcut());
        let expected = search_midgame(&position, reversi_eval::embedded().unwrap(), &limits).unwrap();
        assert_eq!(first, position.format_move(expected.best_move));
        // With alphabeta 0 the MCTS plays, and leaves its tree.
        let (_, tree) = reversi_session_reply(&commands(0));
        assert!(tree > 0);
    }

    #[test]
    fn reversi_analysis_scores_every_move_with_the_alpha_beta() {
        let commands = |alpha_beta: u8| node_limited_commands(&[], alpha_beta, &["b f5"], "kata-analyze w 1");
        let (reply, tree) = reversi_session_reply(&commands(1));
        assert_eq!(
            distinct_lines(&reversi_session_reply(&commands(1)).0),
            distinct_lines(&reply),
            "the same lines again"
        );
        assert_eq!(tree, 0, "no MCTS tree");
        // The last line holds the deepest depth the node limit completed: the alpha-beta's own
        // exact scores of that depth, for each of White's three moves, best first.
        let last = reply.lines().last().expect("info lines");
        let mut position = Reversi::new(&ReversiConfig);
        position.play(position.parse_move("f5").unwrap()).unwrap();
        let never = std::sync::atomic::AtomicBool::new(false);
        let limits = hundred_visits_of_nodes(&never, None);
        let mut expected = String::new();
        let evaluator = reversi_eval::embedded().unwrap();
        crate::search::reversi_alphabeta::analyze_midgame(&position, evaluator, &limits, 64, &mut |iteration| {
            let leads: Vec<String> = iteration
                .lines
                .iter()
                .map(|line| {
                    let lead = f64::from(line.score) / f64::from(WEIGHT_UNIT);
                    format!("info move {} scoreLead {lead:.2}", position.format_move(line.pv[0]))
                })
                .collect();
            expected = leads.join(" ");
        });
        let shown: Vec<String> = info_fields(last, "scoreLead")
            .into_iter()
            .map(|(mv, lead)| format!("info move {mv} scoreLead {lead}"))
            .collect();
        assert_eq!(shown.len(), 3, "{last}");
        assert_eq!(shown.join(" "), expected);
        // With alphabeta 0 the MCTS analyses: its lines have no score.
        let (reply, tree) = reversi_session_reply(&commands(0));
        assert!(tree > 0);
        assert!(reply.contains("info move ") && !reply.contains("scoreLead"), "{reply}");
    }

    #[test]
    fn hex_analysis_shows_the_pattern_models_probabilities_as_priors() {
        let commands =
            node_limited_commands(&["boardsize 9", "param_game allow_swap 0"], 0, &["b e5"], "kata-analyze w 1");
        let (reply, _) = session_reply("hex", &commands);
        let last = reply.lines().last().expect("info lines");
        let mut position = Hex::new(&HexConfig::with_size(9, 9).unwrap());
        position.play(position.parse_move("e5").unwrap()).unwrap();
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        let mut priors = vec![crate::games::Prior::NONE; moves.len()];
        hex_patterns::move_priors(&position, &moves, &mut priors);
        let shown = info_fields(last, "prior");
        assert!(shown.len() > 1, "{last}");
        for (text, prior) in &shown {
            let at = moves.iter().position(|&mv| position.format_move(mv) == *text).unwrap();
            let prior: f32 = prior.parse().unwrap();
            assert!((prior - priors[at].policy).abs() < 1e-4, "{text}: shown {prior}, model {}", priors[at].policy);
        }
        let probabilities: Vec<f32> = shown.iter().map(|(_, prior)| prior.parse().unwrap()).collect();
        assert!(probabilities.iter().any(|&p| p != probabilities[0]), "not an even share: {last}");
    }

    #[test]
    fn gomoku_analysis_shows_the_alpha_beta_lines() {
        let moves = ["b G6", "w K6", "b G7", "w K7", "b G8", "w G5", "b J8", "w H5"];
        let commands = |alpha_beta: u8| node_limited_commands(&[], alpha_beta, &moves, "kata-analyze b 1");
        let (reply, tree) = session_reply("gomoku", &commands(1));
        assert_eq!(
            distinct_lines(&session_reply("gomoku", &commands(1)).0),
            distinct_lines(&reply),
            "the same lines again"
        );
        assert_eq!(tree, 0, "no MCTS tree");
        assert!(!reply.contains("scoreLead"), "Gomoku has no score to lead by: {reply}");
        // The last line holds the deepest depth the node limit completed, move by move.
        let position = gomoku_after(&moves);
        let never = std::sync::atomic::AtomicBool::new(false);
        let limits = hundred_visit_limits(&never);
        let mut expected = Vec::new();
        gomoku_alphabeta::analyze_gomoku(&position, &limits, &mut |lines, _, _| {
            expected = lines
                .iter()
                .map(|line| format!("{} {:.6}", position.format_move(line.pv[0]), gomoku_win_rate(line.score)))
                .collect();
        });
        let last = reply.lines().last().expect("info lines");
        let shown: Vec<String> =
            info_fields(last, "winrate").into_iter().map(|(mv, winrate)| format!("{mv} {winrate}")).collect();
        assert_eq!(shown.len(), gomoku_alphabeta::ANALYSIS_WIDTH, "{last}");
        assert_eq!(shown, expected);
        // With alphabeta 0 the MCTS analyses.
        let (reply, tree) = session_reply("gomoku", &commands(0));
        assert!(tree > 0 && reply.contains("info move "), "{reply}");
    }

    #[test]
    fn a_long_gomoku_depth_passes_the_last_lines_on_again_at_the_interval() {
        // 100,000 nodes take a few tenths of a second, the last depths most of them: at an
        // interval of 1 cs the lines of a finished depth are passed on again, unchanged, while
        // the next one runs.
        let moves = ["b G6", "w K6", "b G7", "w K7", "b G8", "w G5", "b J8", "w H5"];
        let commands = node_limited_commands(&["param_search max_visits 5000"], 1, &moves, "kata-analyze b 1");
        let (reply, _) = session_reply("gomoku", &commands);
        let lines: Vec<&str> = reply.lines().collect();
        let distinct = distinct_lines(&reply);
        assert!(lines.len() > distinct.len(), "no line passed on again: {reply}");
        let position = gomoku_after(&moves);
        let never = std::sync::atomic::AtomicBool::new(false);
        let limits =
            GomokuLimits { max_nodes: Some(5_000 * GOMOKU_NODES_PER_PLAYOUT), ..GomokuLimits::to_depth(0, &never) };
        let mut depths = Vec::new();
        gomoku_alphabeta::analyze_gomoku(&position, &limits, &mut |lines, _, _| {
            depths.push(lines.iter().map(|line| position.format_move(line.pv[0])).collect::<Vec<_>>());
        });
        // Each distinct line is a depth's (depths that end within an interval of the last
        // line are skipped), in order, and the last is the deepest.
        let mut unmatched = depths.iter();
        for line in &distinct {
            let shown: Vec<String> = info_fields(line, "winrate").into_iter().map(|(mv, _)| mv).collect();
            assert!(unmatched.any(|moves| *moves == shown), "not a later depth's lines: {line}");
        }
        assert_eq!(unmatched.next(), None, "the deepest lines come last");
    }

    #[test]
    fn a_win_an_earlier_search_proved_is_searched_among_the_defences() {
        // Black to move after 32 stones of a game ponder lost to Rapfi as Black (2026-11-30,
        // opening 8 of tests/data/gomoku/rapfi-match-openings-offset.txt). ponder had proved
        // the win N2 J2 N6 and Rapfi answered J2; White then threatens a forcing win at M5,
        // the threat checks kept M5 alone (N6 wins by moves they do not read), and ponder
        // played M5 and lost. The checks now keep N6 too, as they cannot refute it: searched
        // long enough the alpha-beta proves it wins, and its table keeps the proof for the
        // game's later searches, which search it among the defences and play it even at a
        // budget too small to prove anything.
        let moves = [
            "b K7", "w K6", "b H10", "w L6", "b M6", "w H6", "b J6", "w H5", "b H4", "w J4", "b M7", "w K3", "b L2",
            "w L7", "b M8", "w M9", "b L5", "w K4", "b L3", "w L4", "b K2", "w M4", "b N4", "w K9", "b L9", "w H8",
            "b G6", "w K10", "b O5", "w K1", "b N2", "w J2",
        ];
        let (fresh, _) = session_reply("gomoku", &node_limited_commands(&[], 1, &moves, "genmove b"));
        assert_eq!(fresh, "M5", "too small a budget to see N6 win");
        let mut session = Session::new("gomoku").unwrap();
        let budget = ["param_search max_visits 170000"];
        for command in node_limited_commands(&budget, 1, &moves, "reg_genmove b") {
            run_line(&mut session, &command).unwrap();
        }
        run_line(&mut session, "param_search max_visits 100").unwrap();
        assert_eq!(run_line(&mut session, "genmove b").unwrap(), "N6", "the kept proof");
    }

    #[test]
    fn gomoku_genmove_plays_the_alpha_beta_move_deterministically() {
        let moves = ["b H8", "w J9", "b G10", "w H10"];
        let commands =
            |alpha_beta: u8| node_limited_commands(&["param_search seed 3"], alpha_beta, &moves, "genmove b");
        let (first, tree) = session_reply("gomoku", &commands(1));
        let (second, _) = session_reply("gomoku", &commands(1));
        assert_eq!(first, second);
        assert_eq!(tree, 0, "the alpha-beta search decided: no MCTS tree");
        let position = gomoku_after(&moves);
        let never = std::sync::atomic::AtomicBool::new(false);
        let limits = hundred_visit_limits(&never);
        let expected = search_gomoku(&position, &limits).unwrap();
        assert_eq!(first, position.format_move(expected.best_move));
        let (_, tree) = session_reply("gomoku", &commands(0));
        assert!(tree > 0);
    }

    #[test]
    fn gomoku_genmove_replaces_an_alpha_beta_move_the_opponent_refutes() {
        use crate::search::gomoku_alphabeta::GomokuLimits;
        // Positions of games ponder lost to Rapfi (2026-11-28 and 29, openings 8, 1, 2 and 3
        // of tests/data/gomoku/rapfi-match-openings-offset.txt), ponder to move. Where a
        // 10-visit alpha-beta prefers a move after which the opponent wins by a VCT the search
        // is far too shallow to see (which of them depends on the trained value), genmove
        // must play another.
        let games: [&[&str]; 5] = [
            &[
                "b K7", "w K6", "b H10", "w L6", "b J6", "w L8", "b K5", "w L7", "b L5", "w J5", "b M8", "w H7",
                "b L9", "w K10", "b K9", "w J9",
            ],
            &["b G6", "w K6", "b G7", "w G5", "b F7"],
            &["b F6", "w G8", "b G6", "w H6", "b E7", "w G5", "b F8", "w F4", "b J7"],
            &["b H9", "w H8", "b J8", "w K7", "b J10", "w J7", "b G9", "w J9", "b G8", "w F7", "b G7", "w G10", "b K9"],
            &[
                "b H9", "w H8", "b J8", "w K7", "b J10", "w J7", "b G9", "w J9", "b G8", "w F7", "b G7", "w G10",
                "b K9", "w H7", "b H11", "w M7", "b L7",
            ],
        ];
        let never = std::sync::atomic::AtomicBool::new(false);
        let mut checked = 0;
        for moves in games {
            let position = gomoku_after(moves);
            // As in genmove, against a threatened forcing win only the moves that stop it.
            let defence_limits = DefenceLimits::for_seconds(DEFENCE_SECONDS_WITHOUT_CLOCK);
            let root_moves = gomoku_tactics::forcing_defences(&position, &defence_limits, &never);
            let limits = |root_moves| GomokuLimits {
                max_nodes: Some(10 * GOMOKU_NODES_PER_PLAYOUT),
                root_moves,
                ..GomokuLimits::to_depth(0, &never)
            };
            let searched = search_gomoku(&position, &limits(root_moves)).unwrap();
            let refutes =
                |mv: Cell| gomoku_tactics::opponent_wins_after(&position, mv, &RefutationLimits::default(), &never);
            if !refutes(searched.best_move) {
                continue;
            }
            // genmove plays the first of the search's other moves that the check does not
            // refute.
            let to_move = if moves.len() % 2 == 0 { "b" } else { "w" };
            let commands = |solver: u8| {
                let settings = ["param_search max_visits 10".to_string(), format!("param_search solver {solver}")];
                let settings: Vec<&str> = settings.iter().map(String::as_str).collect();
                node_limited_commands(&settings, 1, moves, &format!("genmove {to_move}"))
            };
            // Where the checks refute every move (the position is lost as far as they see),
            // there is nothing to replace the move with.
            let Some(expected) = searched.alternatives.iter().copied().find(|&mv| !refutes(mv)) else {
                continue;
            };
            let (answer, _) = session_reply("gomoku", &commands(1));
            assert_eq!(answer, position.format_move(expected), "after {moves:?}");
            // Without the solver's checks the search's move stands (over every root move).
            let unchecked = search_gomoku(&position, &limits(None)).unwrap();
            assert_eq!(session_reply("gomoku", &commands(0)).0, position.format_move(unchecked.best_move));
            checked += 1;
        }
        assert!(checked > 0, "no position where the shallow search's move is refuted");
    }

    /// What genmove faces and does at `visits` against the forcing win the opponent threatens
    /// after `moves`: the root's defences as genmove finds them without a clock and our own
    /// fours, and their names; whether the alpha-beta narrowed to them at the same node limit
    /// proves the position lost (and the table it leaves); and genmove's move, which the
    /// opponent's threat searches must not refute (unless `lost`: every move loses).
    struct ThreatDefence {
        position: Mnk,
        defences: Vec<Cell>,
        named: Vec<String>,
        narrowed_lost: bool,
        table: GomokuTable,
        played: Cell,
        answer: String,
    }

    fn genmove_against_a_threat(moves: &[&str], visits: u64) -> ThreatDefence {
        genmove_against_a_threat_in(moves, visits, false)
    }

    fn genmove_against_a_threat_in(moves: &[&str], visits: u64, lost: bool) -> ThreatDefence {
        let position = gomoku_after(moves);
        let never = std::sync::atomic::AtomicBool::new(false);
        let mut defences = gomoku_tactics::forcing_defences(
            &position,
            &DefenceLimits::for_seconds(DEFENCE_SECONDS_WITHOUT_CLOCK),
            &never,
        )
        .expect("the opponent threatens a forcing win");
        add_own_fours(&position, &mut defences);
        let named: Vec<String> = defences.iter().map(|&cell| position.format_move(cell)).collect();
        let narrowed = GomokuLimits {
            max_nodes: Some(visits * GOMOKU_NODES_PER_PLAYOUT),
            root_moves: Some(defences.clone()),
            ..GomokuLimits::to_depth(0, &never)
        };
        let mut table = GomokuTable::new();
        let narrowed_lost = search_gomoku_keeping(&position, &narrowed, &mut table).unwrap().proven() == Some(false);
        let to_move = if position.to_move() == Color::Black { "genmove b" } else { "genmove w" };
        let commands = node_limited_commands(&[&format!("param_search max_visits {visits}")], 1, moves, to_move);
        let answer = session_reply("gomoku", &commands).0;
        let played = position.parse_move(&answer).unwrap();
        let refutation = RefutationLimits::default();
        assert_eq!(gomoku_tactics::opponent_wins_after(&position, played, &refutation, &never), lost, "{answer}");
        ThreatDefence { position, defences, named, narrowed_lost, table, played, answer }
    }

    #[test]
    fn gomoku_genmove_defends_by_the_counter_threat_the_line_defences_missed() {
        // Black to move after 20 stones of a game ponder lost to Rapfi (2026-11-28, opening 8
        // of tests/data/gomoku/rapfi-match-openings-offset.txt). White would win by a VCT were
        // it to move. The cells near its threat (L9, L10) both lose by force, and narrowed to
        // them ponder proved the position lost and played on as lost. N10 arms a VCF of
        // Black's own, and after it Rapfi (5 s) sees White mated in 8: the defences now hold
        // it, and the narrowed search no longer finds every defence lost. genmove plays one
        // of them that the opponent's threat searches do not refute.
        let moves = [
            "b K7", "w K6", "b H10", "w L6", "b L8", "w J6", "b H6", "w M6", "b N6", "w M7", "b M8", "w L5", "b N8",
            "w K8", "b O8", "w P8", "b N9", "w N7", "b L11", "w M10",
        ];
        let case = genmove_against_a_threat(&moves, 10_000);
        let named = &case.named;
        assert!(named.contains(&"N10".to_string()), "{named:?}");
        assert!(!case.narrowed_lost, "{named:?}");
        assert!(case.defences.contains(&case.played), "{} is not one of the defences {named:?}", case.answer);
    }

    #[test]
    fn gomoku_genmove_keeps_its_own_fours_beside_the_defences() {
        // Black to move after 42 stones of a game ponder lost to Rapfi (2026-12-01, opening 4
        // of tests/data/gomoku/rapfi-match-openings-offset.txt, ponder 8f8d193 Black). White
        // would win by a VCT starting at L3 were it to move, and of the cells near it only K2
        // was proven to hold; ponder played K2 and lost (Rapfi then scored Black at -388).
        // Rapfi (2 s) announces a Black win in 17 plies from L3, a four of Black's own (L3
        // makes K3 L3 M3 _ O3), which the narrowed root left out. Now Black's fours are
        // searched beside the defences, and genmove plays L3.
        let moves = [
            "b H7", "w G8", "b H10", "w H9", "b J10", "w K10", "b J8", "w K9", "b J9", "w J7", "b K8", "w G11", "b K6",
            "w M8", "b M6", "w L7", "b L6", "w J6", "b N7", "w K4", "b N6", "w O6", "b N4", "w N5", "b M5", "w K7",
            "b K3", "w L4", "b M3", "w M7", "b L2", "w O5", "b H5", "w J4", "b H4", "w H3", "b O3", "w P2", "b J5",
            "w M4", "b G3", "w F2",
        ];
        let case = genmove_against_a_threat(&moves, 1_000);
        let named = &case.named;
        assert!(named.contains(&"K2".to_string()) && named.contains(&"L3".to_string()), "{named:?}");
        assert_eq!(case.answer, "L3", "{named:?}");
        // Black to move after 10 stones of a game lost to Rapfi (2026-11-29, opening 8). The
        // checks prove that N5 and O4 hold against White's threat (both lose by force) and
        // cannot decide a dozen other cells, Rapfi's best, J8, among them: they are kept too,
        // and Black's fours K8 and J9 beside them. Rapfi (3 s, 2026-12-01) finds H8, N5, O4
        // and J9 all lost by force, K8 at -314 for Black and J8 at -5 (2026-12-07: J8 +79, K8
        // -1027, H8 lost in 27 plies). At this node limit genmove played K8 when only the
        // proven cells were kept, and plays H8 with the undecided ones: the alpha-beta does
        // not see that loss.
        let moves = ["b K7", "w K6", "b H10", "w L6", "b M6", "w J6", "b L7", "w H6", "b G6", "w J7"];
        let case = genmove_against_a_threat(&moves, 1_000);
        for kept in ["O4", "N5", "J8", "K8", "J9"] {
            assert!(case.named.contains(&kept.to_string()), "{kept} not in {:?}", case.named);
        }
    }

    #[test]
    fn gomoku_genmove_looks_past_the_defences_when_every_one_loses() {
        // White to move after 37 stones of a game ponder lost to Rapfi (avg-b-g3 of
        // tests/data/gomoku/rapfi_won_positions_later.tsv: its m41 position less the last
        // three stones). Black threatens a forcing win, and at 4,000 visits the search narrowed
        // to the moves not refuted (and White's two fours) proves them all lost. A move that
        // the search over all moves does not find lost, and that the opponent's threat searches
        // do not refute, would be better than a lost one: genmove searches again over all
        // moves, with the narrowed search's table. Its best, K3, was once played: the checks
        // did not refute it before the VC3, which finds Black's win after it (Rapfi, 3 s: Black
        // mates in 13). Since the horizon leaves open threes to the quiescence the search over
        // all moves proves K3 lost itself, so genmove keeps a narrowed defence.
        let moves = [
            "b F6", "w G8", "b G6", "w E6", "b F7", "w F8", "b E7", "w D8", "b E8", "w H5", "b D7", "w C7", "b H7",
            "w G7", "b E9", "w F9", "b J8", "w K9", "b K6", "w J6", "b K7", "w F4", "b J7", "w E5", "b G3", "w E4",
            "b H4", "w J5", "b G5", "w J3", "b K4", "w E2", "b E3", "w D6", "b B8", "w J4", "b J2",
        ];
        let mut case = genmove_against_a_threat_in(&moves, 4_000, true);
        let named = &case.named;
        assert!(case.narrowed_lost, "{named:?}");
        let never = std::sync::atomic::AtomicBool::new(false);
        let everywhere =
            GomokuLimits { max_nodes: Some(4_000 * GOMOKU_NODES_PER_PLAYOUT), ..GomokuLimits::to_depth(0, &never) };
        let wider = search_gomoku_keeping(&case.position, &everywhere, &mut case.table).unwrap();
        assert_eq!(
            (case.position.format_move(wider.best_move).as_str(), wider.proven()),
            ("K3", Some(false)),
            "{named:?}"
        );
        // The VC3 refutes it, the VCF and VCT alone do not.
        let refutation = RefutationLimits::default();
        assert!(gomoku_tactics::opponent_wins_after(&case.position, wider.best_move, &refutation, &never));
        let without_vc3 = RefutationLimits { vc3_nodes: 0, ..refutation };
        assert!(!gomoku_tactics::opponent_wins_after(&case.position, wider.best_move, &without_vc3, &never));
        assert!(case.defences.contains(&case.played), "{} is not one of the defences {named:?}", case.answer);
    }

    #[test]
    fn gomoku_genmove_with_alpha_beta_blocks_a_split_three() {
        // White to move against Black's open three G8 H8 K8 (broken: the gap J8), with White
        // stones far away: only J8, F8 or L8 leave Black no open four.
        let setup = ["param_search max_time 0", "param_search max_visits 200", "param_search alphabeta 1"];
        let moves = ["play b G8", "play w A1", "play b H8", "play w A15", "play b K8"];
        let commands: Vec<String> =
            setup.iter().chain(moves.iter()).chain(["genmove w"].iter()).map(|command| command.to_string()).collect();
        let (answer, _) = session_reply("gomoku", &commands);
        assert!(["J8", "F8", "L8"].contains(&answer.as_str()), "answered {answer}");
    }

    #[test]
    fn hex_genmove_plays_inside_the_must_play_region() {
        use rand::SeedableRng;
        // Random 7x7 positions that H-search leaves undecided but where the opponent's semi
        // connections leave at most three cells to play: with 30 playouts among 20 or more
        // moves, the search alone could not even try them all.
        let mut rng = rand::rngs::SmallRng::seed_from_u64(9);
        let empty = Hex::new(&HexConfig::with_size(7, 7).unwrap());
        let mut checked = 0;
        while checked < 3 {
            let position = crate::games::testing::random_running_position(&empty, &mut rng, 12);
            let Some(region) = hex_vc::must_play(&position) else { continue };
            if hex_vc::decided(&position).is_some() || region.count() == 0 || region.count() > 3 {
                continue;
            }
            let mut legal = Vec::new();
            position.legal_moves(&mut legal);
            let losing = hex_moves_outside_must_play(&position);
            assert_eq!(losing.len() + region.count(), legal.len());
            assert!(losing.iter().all(|mv| matches!(mv, HexMove::Cell(cell) if !region.contains(cell.0 as usize))));
            let mut session = Session::new("hex").unwrap();
            let mut commands: Vec<String> =
                ["boardsize 7", "param_search seed 5", "param_search max_time 0", "param_search max_visits 30"]
                    .map(String::from)
                    .to_vec();
            for color in [Color::Black, Color::White] {
                let name = if color == Color::Black { "b" } else { "w" };
                for index in position.stones(color).iter() {
                    commands.push(format!(
                        "play {name} {}",
                        position.format_move(HexMove::Cell(crate::games::hex::Cell(index as u16)))
                    ));
                }
            }
            for command in &commands {
                let reply = run_line(&mut session, command);
                assert!(reply.is_ok(), "{command}: {reply:?}");
            }
            let to_move = if position.to_move() == Color::Black { "b" } else { "w" };
            let played = run_line(&mut session, &format!("genmove {to_move}")).unwrap();
            if played == "resign" {
                // The solver proved the position lost (genmove asks it from 64 empty cells).
                let proof = hex_solver::solve(&position, &hex_solver::SolveOptions::default());
                assert_eq!(proof.value, SolveValue::Loss, "resigned\n{}", position.board_text());
                continue;
            }
            let HexMove::Cell(cell) = position.parse_move(&played).unwrap() else { panic!("{played}") };
            assert!(
                region.contains(cell.0 as usize),
                "{played} outside the must-play region\n{}",
                position.board_text()
            );
            checked += 1;
        }
    }

    #[test]
    fn hex_genmove_plays_the_solvers_win_and_resigns_its_proven_loss() {
        use rand::SeedableRng;
        // Random 5x5 positions that H-search leaves undecided, with one playout a move: the
        // search alone cannot tell the moves apart, the solver (it has 1,000 nodes without a
        // clock) proves the winning ones. Every answer is checked by plain minimax.
        let mut rng = rand::rngs::SmallRng::seed_from_u64(23);
        let empty = Hex::new(&HexConfig::with_size(5, 5).unwrap());
        let mut memo = rustc_hash::FxHashMap::default();
        let (mut wins, mut losses, mut search_misses) = (0, 0, 0);
        while wins < 6 || losses < 2 {
            let position = crate::games::testing::random_running_position(&empty, &mut rng, 12);
            if hex_vc::decided(&position).is_some() {
                continue;
            }
            let value = crate::games::testing::minimax_value(&position, &mut memo);
            let mut legal = Vec::new();
            position.legal_moves(&mut legal);
            let winning = |mv: &HexMove, memo: &mut rustc_hash::FxHashMap<u64, i32>| {
                let mut child = position.clone();
                child.play_unchecked(*mv);
                child.outcome().is_some() || crate::games::testing::minimax_value(&child, memo) < 0
            };
            // Positions where some move loses, so that a win must be found.
            if value > 0 && legal.iter().all(|mv| winning(mv, &mut memo)) {
                continue;
            }
            let answer = |solver: &str| {
                let mut session = Session::new("hex").unwrap();
                let mut commands: Vec<String> = ["boardsize 5", "param_search seed 5", "param_search max_time 0"]
                    .into_iter()
                    .chain(["param_search max_visits 1", solver])
                    .map(String::from)
                    .collect();
                for color in [Color::Black, Color::White] {
                    let name = if color == Color::Black { "b" } else { "w" };
                    for index in position.stones(color).iter() {
                        let cell = position.format_move(HexMove::Cell(crate::games::hex::Cell(index as u16)));
                        commands.push(format!("play {name} {cell}"));
                    }
                }
                for command in &commands {
                    run_line(&mut session, command).unwrap();
                }
                let to_move = if position.to_move() == Color::Black { "b" } else { "w" };
                run_line(&mut session, &format!("genmove {to_move}")).unwrap()
            };
            let played = answer("param_search solver 1");
            if value > 0 {
                let mv = position.parse_move(&played).unwrap();
                assert!(winning(&mv, &mut memo), "{played} loses a won position\n{}", position.board_text());
                let unsolved = position.parse_move(&answer("param_search solver 0")).unwrap();
                search_misses += usize::from(!winning(&unsolved, &mut memo));
                wins += 1;
            } else {
                assert_eq!(played, "resign", "a proven loss\n{}", position.board_text());
                losses += 1;
            }
        }
        // The positions are hard enough that the search alone loses some of them.
        assert!(search_misses > 0, "the search alone found every win");
    }

    #[test]
    fn hex_under_the_swap_rule_opens_and_swaps_as_the_swap_table_says() {
        let table = hex_swap::embedded().unwrap();
        let size = 11;
        let opening = hex_swap::format_cell(table.balanced_opening(size).unwrap(), size);
        let swapped = (0..size * size).find(|&cell| table.swaps(size, cell) == Some(true)).unwrap();
        let kept = (0..size * size).find(|&cell| table.swaps(size, cell) == Some(false)).unwrap();
        let setup = ["boardsize 11", "param_search seed 3", "param_search max_time 0", "param_search max_visits 200"];
        let session_with = |swap: &str| {
            let mut session = Session::new("hex").unwrap();
            for command in setup.iter().copied().chain([format!("param_game allow_swap {swap}").as_str()]) {
                run_line(&mut session, command).unwrap();
            }
            session
        };
        let mut session = session_with("1");
        assert_eq!(run_line(&mut session, "reg_genmove b").unwrap(), opening);
        for (cell, expect_swap) in [(swapped, true), (kept, false)] {
            let mut session = session_with("1");
            run_line(&mut session, &format!("play b {}", hex_swap::format_cell(cell, size))).unwrap();
            let answer = run_line(&mut session, "genmove w").unwrap();
            assert_eq!(answer == "swap-pieces", expect_swap, "first stone {cell}: answered {answer}");
        }
        // The search never considers the swap of a stone the table keeps.
        let mut config = HexConfig::with_size(size, size).unwrap();
        config.set_param("allow_swap", "1").unwrap();
        for (cell, expect_excluded) in [(swapped, false), (kept, true)] {
            let mut position = Hex::new(&config);
            position.play(HexMove::Cell(hex::Cell(cell as u16))).unwrap();
            assert_eq!(hex_moves_outside_must_play(&position).contains(&HexMove::Swap), expect_excluded);
        }
        // Without the swap rule neither the table's opening nor a swap is forced.
        let mut session = session_with("0");
        run_line(&mut session, &format!("play b {}", hex_swap::format_cell(swapped, size))).unwrap();
        assert_ne!(run_line(&mut session, "genmove w").unwrap(), "swap-pieces");
    }
}
