//! Reversi midgame search: principal variation search (negamax alpha-beta with null windows)
//! under iterative deepening, a transposition table, move ordering by shallow searches and the
//! trained evaluation ([`crate::knowledge::reversi_eval`]), which scores the leaves.
//!
//! Scores are in 1/[`WEIGHT_UNIT`] discs for the side to move; a finished game scores its exact
//! final disc difference (empties to the winner) in the same unit, so a search that reaches the
//! end of the game everywhere is exact. The search runs on one thread and is deterministic for
//! a node or depth limit; time limits and the stop flag are checked every
//! [`NODES_PER_CHECK`] nodes (a few milliseconds at most).

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use crate::games::Game;
use crate::games::reversi::{Reversi, ReversiMove, flipped_discs, legal_move_mask};
use crate::knowledge::reversi_eval::{Evaluator, MAX_EVALUATION, WEIGHT_UNIT};
use crate::knowledge::reversi_patterns::PatternViews;
use crate::search::deepening::{Heartbeat, LimitWatch, next_iteration_fits};
use crate::search::reversi_probcut::ProbCut;

/// Beyond every score.
const INFINITY: i32 = 30_000;

/// Nodes between two looks at the clock and the stop flag.
pub const NODES_PER_CHECK: u64 = 1024;

/// A search's own transposition table holds 2^TABLE_BITS entries (24 bytes each: 6 MiB), in
/// buckets of two: a position may sit in either entry of its bucket.
const TABLE_BITS: u32 = 18;

/// A [`MidgameTable`] kept from move to move holds 2^KEPT_TABLE_BITS entries (24 MiB): it
/// serves a whole game, so it is made once and may be larger.
const KEPT_TABLE_BITS: u32 = 20;

/// Nodes at least this far from the leaves order their moves by a shallow search of each child.
const SORT_SEARCH_DEPTH: u32 = 6;

/// Nodes at least this far from the leaves (and below [`SORT_SEARCH_DEPTH`]) order their moves
/// by the evaluation of each child; nearer the leaves, by the opponent's mobility.
const SORT_EVALUATION_DEPTH: u32 = 2;

/// What ends a search.
pub struct MidgameLimits<'a> {
    /// The search stops here whatever it is doing.
    pub max_time: Option<Duration>,
    /// No new iteration starts when less than half of it is predicted to fall before this (see
    /// [`next_iteration_fits`]); without it the iterations go on to `max_time` (or another
    /// limit), the last one cut short.
    pub target_time: Option<Duration>,
    pub max_nodes: Option<u64>,
    /// The deepest iteration.
    pub max_depth: u32,
    /// Set from another thread to end the search with the best move found so far.
    pub stop: &'a AtomicBool,
    /// Called whenever the limits are looked at (analyses only).
    pub heartbeat: Option<Heartbeat<'a>>,
    /// Multi-ProbCut's table ([`crate::search::reversi_probcut`]); `None` searches every node
    /// in full. Iterations that reach the end of the game never cut, so their scores stay exact.
    pub probcut: Option<&'a ProbCut>,
}

impl<'a> MidgameLimits<'a> {
    /// A search to `max_depth` plies and no other limit than `stop`, without ProbCut: the
    /// same result on every machine.
    pub fn to_depth(max_depth: u32, stop: &'a AtomicBool) -> MidgameLimits<'a> {
        MidgameLimits {
            max_time: None,
            target_time: None,
            max_nodes: None,
            max_depth,
            stop,
            probcut: None,
            heartbeat: None,
        }
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MidgameResult {
    pub best_move: ReversiMove,
    /// The move's score for the side to move, in 1/[`WEIGHT_UNIT`] discs.
    pub score: i32,
    /// The deepest iteration completed (0: only the first iteration's partial result).
    pub depth: u32,
    pub nodes: u64,
    /// The expected line, starting with `best_move`.
    pub pv: Vec<ReversiMove>,
    /// Whether the score is exact: every line was searched to the end of the game.
    pub exact: bool,
}

/// One root move of a completed iteration, for analysis (NBoard's hints).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScoredLine {
    /// The expected line, starting with the root move.
    pub pv: Vec<ReversiMove>,
    /// Its exact score for the side to move, in 1/[`WEIGHT_UNIT`] discs.
    pub score: i32,
}

/// What a completed iteration of [`analyze_midgame`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IterationReport {
    pub depth: u32,
    /// The best root moves, best first, each with its exact score at this depth.
    pub lines: Vec<ScoredLine>,
    /// Every line was searched to the end of the game.
    pub exact: bool,
    pub nodes: u64,
}

/// Searches `position` for the side to move within `limits`; `None` when the game is over.
/// A side that must pass gets [`ReversiMove::PASS`] without a search. Blocks until a limit is
/// reached or the stop flag is set.
pub fn search_midgame(position: &Reversi, evaluator: &Evaluator, limits: &MidgameLimits) -> Option<MidgameResult> {
    if position.outcome().is_some() {
        return None;
    }
    let (player, opponent) = (position.player_discs(), position.opponent_discs());
    if legal_move_mask(player, opponent) == 0 {
        let score = -evaluator.evaluate(opponent, player);
        return Some(MidgameResult {
            best_move: ReversiMove::PASS,
            score,
            depth: 0,
            nodes: 1,
            pv: vec![ReversiMove::PASS],
            exact: false,
        });
    }
    let mut searcher = Searcher::new(evaluator, limits, fresh_table(TABLE_BITS));
    Some(searcher.iterative_deepening(player, opponent, limits, 1, &mut |_| {}))
}

/// A transposition table that a player keeps from one move of a game to the next: the entries
/// of the last search (the position itself is their key, so any still hold) order the next
/// one's moves and cut its first iterations short. At plies 20-39 of five NTest games,
/// searching every second ply to depth 14 took 18% fewer nodes with the table kept, every ply
/// 41% fewer.
pub struct MidgameTable {
    entries: Vec<Entry>,
}

impl MidgameTable {
    /// An empty table for a new game.
    pub fn new() -> MidgameTable {
        MidgameTable { entries: fresh_table(KEPT_TABLE_BITS) }
    }
}

impl Default for MidgameTable {
    fn default() -> Self {
        MidgameTable::new()
    }
}

/// [`search_midgame`] with the entries of `table`, which keeps this search's for the next.
pub fn search_midgame_keeping(
    position: &Reversi,
    evaluator: &Evaluator,
    limits: &MidgameLimits,
    table: &mut MidgameTable,
) -> Option<MidgameResult> {
    let (player, opponent) = (position.player_discs(), position.opponent_discs());
    if position.outcome().is_some() || legal_move_mask(player, opponent) == 0 {
        return search_midgame(position, evaluator, limits);
    }
    let mut searcher = Searcher::new(evaluator, limits, std::mem::take(&mut table.entries));
    let result = searcher.iterative_deepening(player, opponent, limits, 1, &mut |_| {});
    table.entries = searcher.table;
    Some(result)
}

fn fresh_table(bits: u32) -> Vec<Entry> {
    vec![Entry::default(); 1 << bits]
}

/// Like [`search_midgame`], but scores the best `count` root moves exactly (their scores are
/// bounds only in a plain search) and reports each completed iteration's lines to `report`.
/// A side that must pass, or a finished game, reports nothing and returns `None`. Blocks until
/// a limit is reached or the stop flag is set.
pub fn analyze_midgame(
    position: &Reversi,
    evaluator: &Evaluator,
    limits: &MidgameLimits,
    count: usize,
    report: &mut dyn FnMut(&IterationReport),
) -> Option<MidgameResult> {
    let (player, opponent) = (position.player_discs(), position.opponent_discs());
    if position.outcome().is_some() || legal_move_mask(player, opponent) == 0 {
        return None;
    }
    let mut searcher = Searcher::new(evaluator, limits, fresh_table(TABLE_BITS));
    Some(searcher.iterative_deepening(player, opponent, limits, count.max(1), report))
}

/// The full-window scores of a position (`player` to move) searched to each depth from 0 to
/// `max_depth` in turn, with one table as iterative deepening uses it and without ProbCut: what
/// ProbCut's fit measures ([`crate::train::reversi_probcut_fit`]). Deterministic.
pub fn scores_by_depth(player: u64, opponent: u64, evaluator: &Evaluator, max_depth: u32) -> Vec<i32> {
    let never = AtomicBool::new(false);
    let limits = MidgameLimits::to_depth(max_depth, &never);
    let mut searcher = Searcher::new(evaluator, &limits, fresh_table(TABLE_BITS));
    let views = PatternViews::new(player, opponent);
    (0..=max_depth).map(|depth| searcher.negamax(player, opponent, &views, depth, -INFINITY, INFINITY)).collect()
}

/// One transposition table entry: the position itself (so a hit is never a collision), bounds
/// on its score, the depth they hold for and the best move.
#[derive(Clone, Copy, Default)]
struct Entry {
    player: u64,
    opponent: u64,
    lower: i16,
    upper: i16,
    depth: u8,
    best: u8,
}

const NO_MOVE: u8 = 255;

struct Searcher<'a> {
    evaluator: &'a Evaluator,
    table: Vec<Entry>,
    nodes: u64,
    /// The table holds 2^table_bits entries.
    table_bits: u32,
    watch: LimitWatch<'a>,
    aborted: bool,
    probcut: Option<&'a ProbCut>,
    /// Whether the current iteration may cut by ProbCut.
    selective: bool,
}

/// The first entry of a position's bucket in a table of 2^`bits` entries (a well-mixed, even
/// index); the other is the next.
fn table_slot(player: u64, opponent: u64, bits: u32) -> usize {
    let mixed = (player ^ opponent.rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ opponent.wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
    (mixed >> (64 - bits)) as usize & !1
}

/// The final score for `player` when neither side can move, empties to the winner, in
/// evaluation units.
pub fn final_score(player: u64, opponent: u64) -> i32 {
    let difference = player.count_ones() as i32 - opponent.count_ones() as i32;
    let empties = 64 - (player | opponent).count_ones() as i32;
    let score = match difference.signum() {
        1 => difference + empties,
        -1 => difference - empties,
        _ => 0,
    };
    score * WEIGHT_UNIT
}

/// The position after `player` plays `square`, from the new side to move's view.
fn play(player: u64, opponent: u64, square: usize) -> (u64, u64) {
    let flipped = flipped_discs(player, opponent, square);
    (opponent & !flipped, player | flipped | 1u64 << square)
}

/// [`play`] with the pattern views brought along.
#[inline]
fn play_with_views(player: u64, opponent: u64, views: &PatternViews, square: usize) -> (u64, u64, PatternViews) {
    let flipped = flipped_discs(player, opponent, square);
    (opponent & !flipped, player | flipped | 1u64 << square, views.after_move(square, flipped))
}

const CORNERS: u64 = 0x8100_0000_0000_0081;

impl<'a> Searcher<'a> {
    /// A searcher with `table`, whose length is a power of two (at least 2).
    fn new(evaluator: &'a Evaluator, limits: &MidgameLimits<'a>, table: Vec<Entry>) -> Searcher<'a> {
        debug_assert!(table.len().is_power_of_two() && table.len() >= 2);
        Searcher {
            evaluator,
            table_bits: table.len().trailing_zeros(),
            table,
            nodes: 0,
            watch: LimitWatch::start(limits.max_time, limits.max_nodes, limits.stop, limits.heartbeat),
            aborted: false,
            probcut: limits.probcut,
            selective: false,
        }
    }

    fn check_limits(&mut self) {
        self.aborted = self.watch.reached(self.nodes);
    }

    /// Deepens one ply at a time until a limit, keeping the best move of the last completed
    /// iteration (or of an interrupted one, where its first move was searched in full).
    /// The best `multi_pv` root moves get exact scores, and each completed iteration is
    /// reported with their lines.
    fn iterative_deepening(
        &mut self,
        player: u64,
        opponent: u64,
        limits: &MidgameLimits,
        multi_pv: usize,
        report: &mut dyn FnMut(&IterationReport),
    ) -> MidgameResult {
        let started = self.watch.started();
        let mut iteration_times = Vec::new();
        let empties = (!(player | opponent)).count_ones();
        // 1. Root moves, first ordered by their evaluation.
        let mut root: Vec<(usize, i32)> = squares(legal_move_mask(player, opponent))
            .map(|square| {
                let (child_player, child_opponent) = play(player, opponent, square);
                (square, -self.evaluator.evaluate(child_player, child_opponent))
            })
            .collect();
        root.sort_by_key(|&(_, score)| -score);
        let mut best = (root[0].0, root[0].1);
        let root_views = PatternViews::new(player, opponent);
        let mut completed_depth = 0;
        let mut exact = false;
        for depth in 1..=limits.max_depth.max(1) {
            // 2. One iteration: PVS over the root moves, best first. A stop raised before it
            // (or during the one before) is seen at once, not after the first nodes.
            self.check_limits();
            if self.aborted {
                break;
            }
            let iteration_started = Instant::now();
            self.selective = self.probcut.is_some() && depth < empties;
            let (iteration_best, searched) =
                self.search_root(player, opponent, &root_views, depth, &mut root, multi_pv);
            if self.aborted {
                // The first move searched in full gives a sound choice; a later move replaced
                // it only by a full-window score above it.
                if let Some(found) = iteration_best.filter(|_| searched > 0) {
                    best = found;
                }
                break;
            }
            best = iteration_best.expect("a completed iteration searched every move");
            completed_depth = depth;
            iteration_times.push(iteration_started.elapsed());
            // A stable sort: among equal scores the earlier (better ordered) move stays first.
            root.sort_by_key(|&(_, score)| -score);
            let reached_the_end = depth >= empties;
            let lines = root
                .iter()
                .take(multi_pv)
                .map(|&(square, score)| ScoredLine { pv: self.principal_variation(player, opponent, square), score })
                .collect();
            report(&IterationReport { depth, lines, exact: reached_the_end, nodes: self.nodes });
            // 3. Stop when the game is searched to its end, or when the next iteration is not
            // predicted to end within the target time.
            if reached_the_end {
                exact = true;
                break;
            }
            // An iteration that the hard limit cuts short is not lost (see step 2), so one
            // starts when half of it is predicted to fall before the target, whatever the hard
            // limit, as in the Gomoku search.
            if limits
                .target_time
                .is_some_and(|target| !next_iteration_fits(&iteration_times, started.elapsed(), target))
            {
                break;
            }
        }
        let pv = self.principal_variation(player, opponent, best.0);
        MidgameResult {
            best_move: ReversiMove::square(best.0),
            score: best.1,
            depth: completed_depth,
            nodes: self.nodes,
            pv,
            exact,
        }
    }

    /// One root iteration: the best (move, score) so far and how many moves were searched in
    /// full. Updates each move's score for the next iteration's order: exact for the best
    /// `multi_pv` moves, an upper bound for the others.
    fn search_root(
        &mut self,
        player: u64,
        opponent: u64,
        views: &PatternViews,
        depth: u32,
        root: &mut [(usize, i32)],
        multi_pv: usize,
    ) -> (Option<(usize, i32)>, usize) {
        let mut best: Option<(usize, i32)> = None;
        // The exact scores of the best moves so far, best first, at most `multi_pv` of them.
        let mut top_scores: Vec<i32> = Vec::with_capacity(multi_pv + 1);
        for (searched, entry) in root.iter_mut().enumerate() {
            let (child_player, child_opponent, child_views) = play_with_views(player, opponent, views, entry.0);
            let score = if top_scores.len() < multi_pv {
                -self.negamax(child_player, child_opponent, &child_views, depth - 1, -INFINITY, INFINITY)
            } else {
                // Only a move above the worst of the kept scores needs its exact score.
                let alpha = top_scores[multi_pv - 1];
                let probe = -self.negamax(child_player, child_opponent, &child_views, depth - 1, -alpha - 1, -alpha);
                if probe > alpha && !self.aborted {
                    -self.negamax(child_player, child_opponent, &child_views, depth - 1, -INFINITY, -alpha)
                } else {
                    probe
                }
            };
            if self.aborted {
                return (best, searched);
            }
            entry.1 = score;
            if top_scores.len() < multi_pv || score > top_scores[multi_pv - 1] {
                let at = top_scores.partition_point(|&kept| kept >= score);
                top_scores.insert(at, score);
                top_scores.truncate(multi_pv);
            }
            if best.is_none_or(|(_, best_score)| score > best_score) {
                best = Some((entry.0, score));
            }
        }
        (best, root.len())
    }

    /// Fail-soft negamax with PVS: the score of (`player`, `opponent`) searched `depth` plies
    /// (passes not counted), exact when outside (`alpha`, `beta`) only as a bound.
    fn negamax(
        &mut self,
        player: u64,
        opponent: u64,
        views: &PatternViews,
        depth: u32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        self.nodes += 1;
        if self.nodes.is_multiple_of(NODES_PER_CHECK) {
            self.check_limits();
        }
        if self.aborted {
            return 0;
        }
        let moves = legal_move_mask(player, opponent);
        if moves == 0 {
            if legal_move_mask(opponent, player) == 0 {
                return final_score(player, opponent);
            }
            return -self.negamax(opponent, player, &views.after_pass(), depth, -beta, -alpha);
        }
        if depth == 0 {
            return self.evaluator.evaluate_views(views, player, opponent, moves);
        }
        // 1. The table: a cutoff from a deep enough entry, else its move to try first.
        let mut table_move = NO_MOVE;
        if let Some(entry) = self.probe(player, opponent) {
            if u32::from(entry.depth) >= depth {
                let (lower, upper) = (i32::from(entry.lower), i32::from(entry.upper));
                if lower >= beta || lower == upper {
                    return lower;
                }
                if upper <= alpha {
                    return upper;
                }
            }
            table_move = entry.best;
        }
        // 2. Multi-ProbCut: a shallow search that predicts the deep score beyond the window
        // ends the node at that side of the window.
        if let Some(bound) = self.probcut(player, opponent, views, depth, alpha, beta) {
            return bound;
        }
        // 3. PVS over the ordered moves.
        let ordered = self.ordered_moves(player, opponent, views, moves, depth, table_move);
        let original_alpha = alpha;
        let mut best_score = -INFINITY;
        let mut best_move = NO_MOVE;
        for (index, &square) in ordered.as_slice().iter().enumerate() {
            let (child_player, child_opponent, child_views) = play_with_views(player, opponent, views, square as usize);
            let score = if index == 0 {
                -self.negamax(child_player, child_opponent, &child_views, depth - 1, -beta, -alpha)
            } else {
                let probe = -self.negamax(child_player, child_opponent, &child_views, depth - 1, -alpha - 1, -alpha);
                if probe > alpha && probe < beta && !self.aborted {
                    -self.negamax(child_player, child_opponent, &child_views, depth - 1, -beta, -alpha)
                } else {
                    probe
                }
            };
            if self.aborted {
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_move = square;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        // 4. Store the bound the search proved.
        let lower = if best_score > original_alpha { best_score } else { -INFINITY };
        let upper = if best_score < beta { best_score } else { INFINITY };
        self.store(Entry {
            player,
            opponent,
            lower: lower as i16,
            upper: upper as i16,
            depth: depth as u8,
            best: best_move,
        });
        best_score
    }

    /// The table's entry for the position, if it holds one.
    fn probe(&self, player: u64, opponent: u64) -> Option<Entry> {
        let slot = table_slot(player, opponent, self.table_bits);
        self.table[slot..slot + 2].iter().find(|entry| entry.player == player && entry.opponent == opponent).copied()
    }

    /// Keeps `entry` in its bucket: the first entry holds the deeper searches (a new one of at
    /// least its depth takes it over, moving the old one to the second), the second takes
    /// whatever else comes. So the deep results, which cost most to redo, survive the flood of
    /// shallow ones that ProbCut's probes and the move ordering's searches store.
    fn store(&mut self, entry: Entry) {
        let slot = table_slot(entry.player, entry.opponent, self.table_bits);
        let first = self.table[slot];
        let same_as_first = first.player == entry.player && first.opponent == entry.opponent;
        if same_as_first || entry.depth >= first.depth {
            if !same_as_first {
                self.table[slot + 1] = first;
            }
            self.table[slot] = entry;
        } else {
            self.table[slot + 1] = entry;
        }
    }

    /// `beta` when a shallow search predicts a score of at least `beta` (by the table's margin),
    /// `alpha` when it predicts at most `alpha`, else `None` (also without a fitted cut, outside
    /// a selective iteration, and where the search reaches the end of the game).
    fn probcut(
        &mut self,
        player: u64,
        opponent: u64,
        views: &PatternViews,
        depth: u32,
        alpha: i32,
        beta: i32,
    ) -> Option<i32> {
        let empties = (!(player | opponent)).count_ones();
        if !self.selective || depth >= empties {
            return None;
        }
        let cut = *self.probcut?.cut(empties, depth)?;
        if beta < MAX_EVALUATION {
            let high = cut.high_bound(beta);
            if high < MAX_EVALUATION && self.negamax(player, opponent, views, cut.shallow, high - 1, high) >= high {
                return Some(beta);
            }
        }
        if alpha > -MAX_EVALUATION && !self.aborted {
            let low = cut.low_bound(alpha);
            if low > -MAX_EVALUATION && self.negamax(player, opponent, views, cut.shallow, low, low + 1) <= low {
                return Some(alpha);
            }
        }
        // An aborted probe returns nonsense: the caller sees `aborted` and discards the node.
        None
    }

    /// The moves of `moves`, the table move first, then best first by a shallow search, the
    /// evaluation or the opponent's mobility, depending on how far the leaves are; equal scores
    /// keep the square order. On the stack: this runs at every inner node.
    fn ordered_moves(
        &mut self,
        player: u64,
        opponent: u64,
        views: &PatternViews,
        moves: u64,
        depth: u32,
        table_move: u8,
    ) -> OrderedMoves {
        let mut ordered = OrderedMoves { squares: [0; 64], len: 0 };
        let mut scores = [0i32; 64];
        for square in squares(moves) {
            let score = if square as u8 == table_move {
                INFINITY
            } else if depth >= SORT_SEARCH_DEPTH {
                let (child_player, child_opponent, child_views) = play_with_views(player, opponent, views, square);
                -self.negamax(child_player, child_opponent, &child_views, depth / 4, -INFINITY, INFINITY)
            } else if depth >= SORT_EVALUATION_DEPTH {
                let (child_player, child_opponent, child_views) = play_with_views(player, opponent, views, square);
                let replies = legal_move_mask(child_player, child_opponent);
                -self.evaluator.evaluate_views(&child_views, child_player, child_opponent, replies)
            } else {
                let (child_player, child_opponent) = play(player, opponent, square);
                // Fastest first: fewest replies, corners counted twice.
                let replies = legal_move_mask(child_player, child_opponent);
                -(replies.count_ones() as i32 + (replies & CORNERS).count_ones() as i32)
            };
            // Insertion after every score at least as high: a stable sort, best first.
            let mut at = ordered.len;
            while at > 0 && scores[at - 1] < score {
                scores[at] = scores[at - 1];
                ordered.squares[at] = ordered.squares[at - 1];
                at -= 1;
            }
            scores[at] = score;
            ordered.squares[at] = square as u8;
            ordered.len += 1;
        }
        ordered
    }

    /// The line the table holds from the root after `first`.
    fn principal_variation(&self, mut player: u64, mut opponent: u64, first: usize) -> Vec<ReversiMove> {
        let mut line = vec![ReversiMove::square(first)];
        (player, opponent) = play(player, opponent, first);
        while line.len() < 60 {
            if legal_move_mask(player, opponent) == 0 {
                break;
            }
            let Some(entry) = self.probe(player, opponent).filter(|entry| entry.best != NO_MOVE) else {
                break;
            };
            let square = entry.best as usize;
            if legal_move_mask(player, opponent) >> square & 1 == 0 {
                break;
            }
            line.push(ReversiMove::square(square));
            (player, opponent) = play(player, opponent, square);
        }
        line
    }
}

/// A node's moves in the order to search them.
struct OrderedMoves {
    squares: [u8; 64],
    len: usize,
}

impl OrderedMoves {
    fn as_slice(&self) -> &[u8] {
        &self.squares[..self.len]
    }
}

/// The squares of a bitboard, lowest first.
fn squares(mut bits: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (bits != 0).then(|| {
            let square = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            square
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Color;
    use crate::games::reversi::ReversiConfig;
    use crate::games::testing::random_running_position;
    use crate::solvers::reversi_endgame::{SolveOptions, solve_endgame};
    use rand::SeedableRng;

    fn limits(stop: &AtomicBool, max_depth: u32) -> MidgameLimits<'_> {
        MidgameLimits::to_depth(max_depth, stop)
    }

    #[test]
    fn a_search_to_the_end_agrees_with_the_exact_solver() {
        // With a depth beyond the empties, every leaf is a finished game: the score must be the
        // solver's, whatever the evaluation (here all zero), and the move must reach it.
        let never = AtomicBool::new(false);
        let evaluator = Evaluator::zero();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(21);
        let start = Reversi::new(&ReversiConfig);
        let mut checked = 0;
        while checked < 12 {
            let position = random_running_position(&start, &mut rng, 51);
            if position.placement_mask() == 0 {
                continue;
            }
            let empties = position.empty_squares().count_ones();
            let result = search_midgame(&position, &evaluator, &limits(&never, empties + 2)).unwrap();
            let solved = solve_endgame(&position, &SolveOptions::default()).unwrap();
            assert!(result.exact);
            assert_eq!(result.score, solved.score * WEIGHT_UNIT, "{}", position.board_text());
            let mut after = position.clone();
            after.play(result.best_move).unwrap();
            let reply = solve_endgame(&after, &SolveOptions::default()).unwrap();
            assert_eq!(-reply.score, solved.score, "the chosen move keeps the exact score");
            checked += 1;
        }
    }

    #[test]
    fn a_raised_stop_flag_ends_the_search_with_a_legal_move() {
        let stop = AtomicBool::new(true);
        let position = Reversi::new(&ReversiConfig);
        let result = search_midgame(&position, &Evaluator::zero(), &limits(&stop, 60)).unwrap();
        assert!(position.is_legal(result.best_move));
        assert_eq!(result.depth, 0);
        // The same search unstopped runs every iteration asked for.
        let never = AtomicBool::new(false);
        let full = search_midgame(&position, &Evaluator::zero(), &limits(&never, 3)).unwrap();
        assert_eq!(full.depth, 3);
        assert!(full.nodes > result.nodes);
    }

    #[test]
    fn a_kept_table_gives_the_same_scores_with_fewer_nodes() {
        // Depth-limited searches without ProbCut along a game: any table gives the same scores,
        // and the one kept from the move before saves nodes.
        let never = AtomicBool::new(false);
        let mut rng = rand::rngs::SmallRng::seed_from_u64(12);
        let evaluator = crate::knowledge::reversi_eval::embedded().unwrap();
        let mut position = random_running_position(&Reversi::new(&ReversiConfig), &mut rng, 16);
        let mut kept = MidgameTable::new();
        let (mut fresh_nodes, mut kept_nodes) = (0, 0);
        for _ in 0..6 {
            let fresh = search_midgame(&position, evaluator, &limits(&never, 8)).unwrap();
            let with_kept = search_midgame_keeping(&position, evaluator, &limits(&never, 8), &mut kept).unwrap();
            assert_eq!(fresh.score, with_kept.score);
            assert_eq!(fresh.depth, with_kept.depth);
            fresh_nodes += fresh.nodes;
            kept_nodes += with_kept.nodes;
            position.play(fresh.best_move).unwrap();
        }
        assert!(kept_nodes < fresh_nodes, "kept {kept_nodes} nodes, fresh {fresh_nodes}");
    }

    #[test]
    fn a_node_limit_gives_the_same_move_twice() {
        let never = AtomicBool::new(false);
        let mut rng = rand::rngs::SmallRng::seed_from_u64(8);
        let position = random_running_position(&Reversi::new(&ReversiConfig), &mut rng, 20);
        let evaluator = crate::knowledge::reversi_eval::embedded().unwrap();
        let limited = MidgameLimits { max_nodes: Some(20_000), ..limits(&never, 60) };
        let first = search_midgame(&position, evaluator, &limited).unwrap();
        let second = search_midgame(&position, evaluator, &limited).unwrap();
        assert_eq!(first, second);
        assert!(first.nodes >= 20_000 && first.nodes < 20_000 + NODES_PER_CHECK);
    }

    /// A table that cuts aggressively at every depth: slope 1, no offset, sigma 0.
    fn eager_probcut() -> ProbCut {
        use crate::search::reversi_probcut::{CutFit, MAX_CUT_DEPTH, MIN_CUT_DEPTH, shallow_depth};
        ProbCut::from_fits(
            (MIN_CUT_DEPTH..=MAX_CUT_DEPTH)
                .map(|depth| CutFit {
                    first_empties: 0,
                    last_empties: 60,
                    depth,
                    shallow: shallow_depth(depth),
                    slope: 1.0,
                    intercept: 0.0,
                    sigma: 0.0,
                    positions: 100,
                })
                .collect(),
        )
    }

    #[test]
    fn probcut_saves_nodes_but_never_touches_a_search_to_the_end() {
        let never = AtomicBool::new(false);
        let evaluator = crate::knowledge::reversi_eval::embedded().unwrap();
        let table = eager_probcut();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(33);
        let start = Reversi::new(&ReversiConfig);
        let mut checked = 0;
        while checked < 6 {
            let position = random_running_position(&start, &mut rng, 26);
            if position.placement_mask() == 0 {
                continue;
            }
            // A midgame search to depth 7: the cuts save nodes and still give a legal move.
            let plain = search_midgame(&position, evaluator, &limits(&never, 7)).unwrap();
            let cutting = MidgameLimits { probcut: Some(&table), ..limits(&never, 7) };
            let cut = search_midgame(&position, evaluator, &cutting).unwrap();
            assert!(cut.nodes < plain.nodes, "{} {}", cut.nodes, plain.nodes);
            assert!(position.is_legal(cut.best_move));
            assert_eq!(cut, search_midgame(&position, evaluator, &cutting).unwrap(), "deterministic");
            checked += 1;
        }
        // Iterations that reach the end of the game never cut: the score is the solver's.
        checked = 0;
        while checked < 6 {
            let position = random_running_position(&start, &mut rng, 50);
            if position.placement_mask() == 0 {
                continue;
            }
            let empties = position.empty_squares().count_ones();
            let cutting = MidgameLimits { probcut: Some(&table), ..limits(&never, empties) };
            let result = search_midgame(&position, evaluator, &cutting).unwrap();
            let solved = solve_endgame(&position, &SolveOptions::default()).unwrap();
            assert!(result.exact);
            assert_eq!(result.score, solved.score * WEIGHT_UNIT, "{}", position.board_text());
            checked += 1;
        }
    }

    #[test]
    fn scores_by_depth_are_the_plain_searches_at_each_depth() {
        let evaluator = crate::knowledge::reversi_eval::embedded().unwrap();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(5);
        let position = std::iter::repeat_with(|| random_running_position(&Reversi::new(&ReversiConfig), &mut rng, 24))
            .find(|position| position.placement_mask() != 0)
            .unwrap();
        let (player, opponent) = (position.player_discs(), position.opponent_discs());
        let scores = scores_by_depth(player, opponent, evaluator, 4);
        assert_eq!(scores.len(), 5);
        assert_eq!(scores[0], evaluator.evaluate(player, opponent));
        // A one-ply search is the best child's negated evaluation.
        let best_child = squares(legal_move_mask(player, opponent))
            .map(|square| {
                let (child_player, child_opponent) = play(player, opponent, square);
                -evaluator.evaluate(child_player, child_opponent)
            })
            .max()
            .unwrap();
        assert_eq!(scores[1], best_child);
    }

    #[test]
    fn a_side_without_placements_passes_and_a_finished_game_has_no_move() {
        let never = AtomicBool::new(false);
        let must_pass = Reversi::from_bitboards(0b110, 1, Color::Black).unwrap();
        let result = search_midgame(&must_pass, &Evaluator::zero(), &limits(&never, 5)).unwrap();
        assert_eq!(result.best_move, ReversiMove::PASS);
        let over = Reversi::from_bitboards(1, 1 << 63, Color::Black).unwrap();
        assert_eq!(search_midgame(&over, &Evaluator::zero(), &limits(&never, 5)), None);
    }
}
