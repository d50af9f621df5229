//! Exact Connect Four solver in the manner of Pascal Pons' solver (blog.gamesolver.org):
//! negamax with alpha-beta on single-word bitboards, null-window probes driven by a binary search
//! on the score, a transposition table holding upper and lower bounds, pruning of the moves that
//! let the opponent win at once, and move ordering by the number of threats a move creates.
//!
//! It solves any board with `width * (height + 1) <= 64` (7x6, 8x7, 6x9, 4x12, 12x4, …),
//! blocked cells included: a blocked cell is a pre-filled cell that belongs to nobody, so it fills
//! the column and takes part in no line.
//!
//! # Score
//! The score is Pons' (see `tests/data/connect4/README.md`), for the side to move under perfect
//! play, winning as fast and losing as slowly as possible. With `F` free cells left, the side to
//! move still has `ceil(F / 2)` pieces to play: a win with the k-th from last of its pieces
//! scores `k` (winning with its next piece scores `ceil(F / 2)`), a draw scores 0 and a loss
//! scores minus the winner's count. On the empty 7x6 board this is `22 - pieces of the winner`.
//! Counting free cells (not moves played) keeps the score right on boards with blocked cells and
//! in set-up positions whose piece counts are uneven.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::games::connect4::{CellState, Column, Connect4, Connect4Config};
use crate::games::{Game, GameConfig};

/// The bit layout the solver needs: `width` columns of `height + 1` bits (one sentinel bit on top
/// of every column) in one `u64`.
pub fn is_supported(width: usize, height: usize) -> bool {
    width * (height + 1) <= 64
}

/// Default transposition table size: 2^23 entries of 8 bytes (64 MiB).
pub const DEFAULT_TABLE_LOG2: u32 = 23;

/// How many nodes pass between two looks at the stop flag.
const STOP_CHECK_INTERVAL: u64 = 4096;

/// When to give up a solve.
#[derive(Clone, Copy, Debug, Default)]
pub struct SolveLimits<'a> {
    /// Stop after visiting this many nodes.
    pub node_limit: Option<u64>,
    /// Stop as soon as this flag becomes true (checked every few thousand nodes).
    pub stop: Option<&'a AtomicBool>,
}

/// The answer of a finished solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolveResult {
    /// The exact score for the side to move (see the module documentation).
    pub score: i32,
    /// A move reaching that score.
    pub best_move: Column,
    /// Nodes visited, the best-move search included.
    pub nodes: u64,
}

/// Why a solve gave no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolveError {
    /// The board is too big for one-word bitboards (`width * (height + 1) > 64`).
    Unsupported,
    /// The game is already over.
    GameOver,
    /// The node limit was reached after this many nodes.
    NodeLimit(u64),
    /// The stop flag was raised after this many nodes.
    Stopped(u64),
}

impl std::fmt::Display for SolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SolveError::Unsupported => f.write_str("board too big for the exact solver"),
            SolveError::GameOver => f.write_str("the game is over"),
            SolveError::NodeLimit(nodes) => write!(f, "node limit reached after {nodes} nodes"),
            SolveError::Stopped(nodes) => write!(f, "stopped after {nodes} nodes"),
        }
    }
}

impl std::error::Error for SolveError {}

/// Solves `position` with a fresh default-size table: the one-call form of [`Solver::solve`].
///
/// # Errors
/// See [`Solver::solve`].
pub fn solve(position: &Connect4, limits: &SolveLimits) -> Result<SolveResult, SolveError> {
    Solver::new(DEFAULT_TABLE_LOG2).solve(position, limits)
}

/// Board constants of one variant (size and blocked cells) in the solver's bit layout:
/// bit `column * (height + 1) + row`, row 0 at the bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Geometry {
    width: usize,
    height: usize,
    /// The bottom cell of every column.
    bottom: u64,
    /// Every cell of the board (no sentinel bits).
    board: u64,
    /// The blocked cells.
    blocked: u64,
    /// The longest run of blocked cells stacked in one column: how far a "cell below" may lie.
    longest_blocked_run: usize,
    column_masks: [u64; 12],
    /// Columns from the centre outwards: central columns take part in more lines.
    column_order: [usize; 12],
}

impl Geometry {
    fn of(position: &Connect4) -> Geometry {
        let (width, height) = (position.width(), position.height());
        let stride = height + 1;
        let column_mask = (1u64 << height) - 1;
        let mut geometry = Geometry {
            width,
            height,
            bottom: 0,
            board: 0,
            blocked: 0,
            longest_blocked_run: 0,
            column_masks: [0; 12],
            column_order: [0; 12],
        };
        for column in 0..width {
            geometry.column_masks[column] = column_mask << (column * stride);
            geometry.bottom |= 1 << (column * stride);
            geometry.board |= geometry.column_masks[column];
            let mut run = 0;
            for row in 0..height {
                if position.cell_state(column, row) == CellState::Blocked {
                    geometry.blocked |= 1 << (column * stride + row);
                    run += 1;
                    geometry.longest_blocked_run = geometry.longest_blocked_run.max(run);
                } else {
                    run = 0;
                }
            }
            // 0, then -1, +1, -2, +2 … around the centre (left of centre first on even widths).
            let offset = column.div_ceil(2) as isize * if column % 2 == 1 { -1 } else { 1 };
            geometry.column_order[column] = (width as isize / 2 + offset) as usize;
        }
        geometry
    }

    /// Free cells where `stones` would complete four in a row (horizontal, vertical, diagonal).
    /// The sentinel bits and blocked cells are never in `stones`, so no line wraps around a
    /// column edge or passes a blocked cell.
    fn winning_cells(&self, stones: u64, mask: u64) -> u64 {
        // Vertical: three stones right below.
        let mut cells = (stones << 1) & (stones << 2) & (stones << 3);
        for shift in [self.height + 1, self.height, self.height + 2] {
            let pair = (stones << shift) & (stones << (2 * shift));
            cells |= pair & (stones << (3 * shift));
            cells |= pair & (stones >> shift);
            let pair = (stones >> shift) & (stones >> (2 * shift));
            cells |= pair & (stones << shift);
            cells |= pair & (stones >> (3 * shift));
        }
        cells & self.board & !mask
    }

    /// The landing cell of every column that is not full.
    fn playable(&self, mask: u64) -> u64 {
        (mask + self.bottom) & self.board & !mask
    }

    /// The cells whose filling makes one of `cells` playable: the cell right below, or the
    /// cell below a run of blocked cells below.
    fn cells_below(&self, cells: u64) -> u64 {
        let mut step = cells >> 1;
        let mut below = step;
        for _ in 0..self.longest_blocked_run {
            step = (step & self.blocked) >> 1;
            below |= step;
        }
        below
    }
}

/// A position in the solver's layout. `mask` holds every filled cell, blocked cells included.
#[derive(Clone, Copy, Debug)]
struct Board {
    /// The pieces of the side to move.
    current: u64,
    mask: u64,
    free_cells: i32,
}

impl Board {
    fn of(position: &Connect4, geometry: &Geometry) -> Board {
        let mut board = Board { current: 0, mask: geometry.blocked, free_cells: 0 };
        for column in 0..geometry.width {
            for row in 0..geometry.height {
                let bit = 1u64 << (column * (geometry.height + 1) + row);
                match position.cell_state(column, row) {
                    CellState::Empty => board.free_cells += 1,
                    CellState::Blocked => {}
                    CellState::Stone(color) => {
                        board.mask |= bit;
                        if color == position.to_move() {
                            board.current |= bit;
                        }
                    }
                }
            }
        }
        board
    }

    fn opponent(&self, geometry: &Geometry) -> u64 {
        self.mask ^ self.current ^ geometry.blocked
    }

    /// The position after the side to move fills `cell` (one landing cell).
    fn after(&self, cell: u64, geometry: &Geometry) -> Board {
        Board { current: self.opponent(geometry), mask: self.mask | cell, free_cells: self.free_cells - 1 }
    }

    /// A unique key among the positions of one geometry: the side to move's pieces plus the
    /// landing cell (or sentinel bit) of every column. The landing cell lies above every piece of
    /// its column and, the blocked cells being fixed, tells how many pieces the column holds.
    fn key(&self, geometry: &Geometry) -> u64 {
        self.current | ((self.mask + geometry.bottom) & !self.mask)
    }

    /// The landing cells the side to move may fill without letting the opponent win at once;
    /// zero when every move loses at once.
    fn non_losing_moves(&self, geometry: &Geometry) -> u64 {
        let mut playable = geometry.playable(self.mask);
        let threats = geometry.winning_cells(self.opponent(geometry), self.mask);
        let forced = playable & threats;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                // Two threats to block at once: the opponent wins whatever we do.
                return 0;
            }
            playable = forced;
        }
        playable & !geometry.cells_below(threats)
    }

    fn winning_moves(&self, geometry: &Geometry) -> u64 {
        geometry.playable(self.mask) & geometry.winning_cells(self.current, self.mask)
    }
}

/// Transposition table of one `u64` per entry, exact although it keeps only part of each key:
/// the key is first multiplied by an odd constant (a bijection on `u64`), the top `log2` bits of
/// the product choose the slot and the remaining low bits are stored with the bound byte, so slot
/// and stored bits together determine the key.
struct TranspositionTable {
    entries: Vec<u64>,
    /// `64 - log2`: the number of product bits stored.
    shift: u32,
}

/// Scores lie within ±32 on every supported board (at most 56 free cells). A bound byte is 0 for
/// an empty entry, `score + SCORE_OFFSET` for an upper bound and that plus `LOWER_BOUND_BASE` for
/// a lower bound.
const SCORE_OFFSET: i32 = 33;
const LOWER_BOUND_BASE: i32 = 2 * SCORE_OFFSET;
const KEY_MIXER: u64 = 0x9E37_79B9_7F4A_7C15;

impl TranspositionTable {
    fn new(log2: u32) -> TranspositionTable {
        TranspositionTable { entries: vec![0; 1 << log2], shift: 64 - log2 }
    }

    fn clear(&mut self) {
        self.entries.fill(0);
    }

    /// The slot of `key` and the bits stored to recognise it.
    fn slot_and_tag(&self, key: u64) -> (usize, u64) {
        let mixed = key.wrapping_mul(KEY_MIXER);
        ((mixed >> self.shift) as usize, mixed & ((1 << self.shift) - 1))
    }

    fn store_upper(&mut self, key: u64, score: i32) {
        self.store(key, (score + SCORE_OFFSET) as u64);
    }

    fn store_lower(&mut self, key: u64, score: i32) {
        self.store(key, (score + SCORE_OFFSET + LOWER_BOUND_BASE) as u64);
    }

    /// Always replaces: the newest bound is the most likely to be needed again.
    fn store(&mut self, key: u64, bound: u64) {
        let (slot, tag) = self.slot_and_tag(key);
        self.entries[slot] = tag << 8 | bound;
    }

    /// `(lower, upper)` bounds known for `key`, either may be absent.
    fn get(&self, key: u64) -> (Option<i32>, Option<i32>) {
        let (slot, tag) = self.slot_and_tag(key);
        let entry = self.entries[slot];
        let bound = (entry & 0xff) as i32;
        if bound == 0 || entry >> 8 != tag {
            return (None, None);
        }
        if bound >= LOWER_BOUND_BASE {
            (Some(bound - LOWER_BOUND_BASE - SCORE_OFFSET), None)
        } else {
            (None, Some(bound - SCORE_OFFSET))
        }
    }
}

/// A reusable solver: it keeps its transposition table between solves of the same variant
/// (entries are exact facts about positions, so reuse is sound) and clears it when the board
/// size or blocked cells change.
pub struct Solver {
    table: TranspositionTable,
    geometry: Option<Geometry>,
    nodes: u64,
    node_limit: u64,
}

/// A search stopped by a limit: every frame unwinds with it and stores nothing.
struct Aborted;

impl Solver {
    /// A solver whose table has `2^table_log2` entries of 9 bytes.
    ///
    /// # Panics
    /// When `table_log2` is not within 1..=40.
    pub fn new(table_log2: u32) -> Solver {
        assert!((1..=40).contains(&table_log2), "table size 2^{table_log2} out of range");
        Solver { table: TranspositionTable::new(table_log2), geometry: None, nodes: 0, node_limit: u64::MAX }
    }

    /// Forgets every stored bound.
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// The exact score of `position` and a move reaching it.
    ///
    /// # Errors
    /// [`SolveError::Unsupported`] for boards with `width * (height + 1) > 64`,
    /// [`SolveError::GameOver`] for a finished game, [`SolveError::NodeLimit`] or
    /// [`SolveError::Stopped`] when a limit ends the search first.
    pub fn solve(&mut self, position: &Connect4, limits: &SolveLimits) -> Result<SolveResult, SolveError> {
        let (geometry, board) = self.prepare(position, limits)?;
        let score = self.root_score(&geometry, &board, limits)?;
        let best_move = self.root_move(&geometry, &board, score, limits)?;
        Ok(SolveResult { score, best_move, nodes: self.nodes })
    }

    /// The exact score of `position` without looking for a best move, and the nodes visited
    /// (what Pons' benchmark measures).
    ///
    /// # Errors
    /// As [`Solver::solve`].
    pub fn score(&mut self, position: &Connect4, limits: &SolveLimits) -> Result<(i32, u64), SolveError> {
        let (geometry, board) = self.prepare(position, limits)?;
        let score = self.root_score(&geometry, &board, limits)?;
        Ok((score, self.nodes))
    }

    fn prepare(&mut self, position: &Connect4, limits: &SolveLimits) -> Result<(Geometry, Board), SolveError> {
        if !is_supported(position.width(), position.height()) {
            return Err(SolveError::Unsupported);
        }
        if position.outcome().is_some() {
            return Err(SolveError::GameOver);
        }
        let geometry = Geometry::of(position);
        if self.geometry.as_ref() != Some(&geometry) {
            self.table.clear();
            self.geometry = Some(geometry.clone());
        }
        self.nodes = 0;
        self.node_limit = limits.node_limit.unwrap_or(u64::MAX);
        let board = Board::of(position, &geometry);
        Ok((geometry, board))
    }

    fn limit_error(&self, limits: &SolveLimits) -> SolveError {
        if self.nodes >= self.node_limit {
            SolveError::NodeLimit(self.nodes)
        } else {
            debug_assert!(limits.stop.is_some());
            SolveError::Stopped(self.nodes)
        }
    }

    /// The exact score by a sequence of null-window searches.
    fn root_score(&mut self, geometry: &Geometry, board: &Board, limits: &SolveLimits) -> Result<i32, SolveError> {
        // 1. A move that wins at once needs no search; negamax assumes there is none.
        self.nodes += 1;
        if board.winning_moves(geometry) != 0 {
            return Ok((board.free_cells + 1) / 2);
        }
        // 2. Narrow [low, high] with null-window probes; probing nearer zero first settles the
        //    many draws and long games cheaply, as Pons does.
        let mut low = -board.free_cells / 2;
        let mut high = (board.free_cells + 1) / 2;
        while low < high {
            let mut probe = low + (high - low) / 2;
            if probe <= 0 && low / 2 < probe {
                probe = low / 2;
            } else if probe >= 0 && high / 2 > probe {
                probe = high / 2;
            }
            let value =
                self.negamax(geometry, board, probe, probe + 1, limits).map_err(|Aborted| self.limit_error(limits))?;
            if value <= probe {
                high = value;
            } else {
                low = value;
            }
        }
        Ok(low)
    }

    /// A move reaching `score`: the first ordered move whose reply position scores at most
    /// `-score`, tested by null windows that the table makes cheap.
    fn root_move(
        &mut self,
        geometry: &Geometry,
        board: &Board,
        score: i32,
        limits: &SolveLimits,
    ) -> Result<Column, SolveError> {
        let column_of = |cell: u64| Column((cell.trailing_zeros() as usize / (geometry.height + 1)) as u8);
        let winning = board.winning_moves(geometry);
        if winning != 0 {
            return Ok(column_of(winning & winning.wrapping_neg()));
        }
        let candidates = board.non_losing_moves(geometry);
        if candidates == 0 {
            // Every move loses at once: block one threat if there is one, else play anything.
            let playable = geometry.playable(board.mask);
            let threats = geometry.winning_cells(board.opponent(geometry), board.mask) & playable;
            let pick = if threats != 0 { threats } else { playable };
            return Ok(column_of(pick & pick.wrapping_neg()));
        }
        for cell in self.ordered_moves(geometry, board, candidates).iter().flatten() {
            let child = board.after(*cell, geometry);
            let child_score = if child.free_cells == 0 {
                0
            } else {
                self.negamax(geometry, &child, -score, -score + 1, limits)
                    .map_err(|Aborted| self.limit_error(limits))?
            };
            if child_score <= -score {
                return Ok(column_of(*cell));
            }
        }
        unreachable!("some move reaches the exact score")
    }

    /// Non-losing moves as single landing cells, most new threats first, centre first among
    /// equals. Unused slots are `None`.
    fn ordered_moves(&self, geometry: &Geometry, board: &Board, candidates: u64) -> [Option<u64>; 12] {
        let mut moves = [None; 12];
        let mut threat_counts = [0u32; 12];
        let mut count = 0;
        for &column in &geometry.column_order[..geometry.width] {
            let cell = candidates & geometry.column_masks[column];
            if cell == 0 {
                continue;
            }
            let threats = geometry.winning_cells(board.current | cell, board.mask | cell).count_ones();
            // Insertion sort, stable: a move goes after the moves with as many threats.
            let mut slot = count;
            while slot > 0 && threat_counts[slot - 1] < threats {
                moves[slot] = moves[slot - 1];
                threat_counts[slot] = threat_counts[slot - 1];
                slot -= 1;
            }
            moves[slot] = Some(cell);
            threat_counts[slot] = threats;
            count += 1;
        }
        moves
    }

    /// Negamax with alpha-beta within `(alpha, beta)`. The side to move must not have a winning
    /// move (callers only reach positions after non-losing moves). Fails soft.
    fn negamax(
        &mut self,
        geometry: &Geometry,
        board: &Board,
        mut alpha: i32,
        mut beta: i32,
        limits: &SolveLimits,
    ) -> Result<i32, Aborted> {
        debug_assert!(alpha < beta);
        debug_assert!(board.winning_moves(geometry) == 0);
        // 1. Count the node and honour the limits.
        self.nodes += 1;
        if self.nodes >= self.node_limit
            || (self.nodes.is_multiple_of(STOP_CHECK_INTERVAL)
                && limits.stop.is_some_and(|stop| stop.load(Ordering::Relaxed)))
        {
            return Err(Aborted);
        }

        // 2. Moves that do not hand the opponent an immediate win; none means we lose next move.
        let candidates = board.non_losing_moves(geometry);
        if candidates == 0 {
            return Ok(-board.free_cells / 2);
        }
        // With at most two free cells left and no immediate win on either side, it is a draw.
        if board.free_cells <= 2 {
            return Ok(0);
        }

        // 3. Bounds from the rules: the opponent cannot win with his next piece, and we cannot
        //    win with this one.
        let lowest = -(board.free_cells - 2) / 2;
        if alpha < lowest {
            alpha = lowest;
            if alpha >= beta {
                return Ok(alpha);
            }
        }
        let highest = (board.free_cells - 1) / 2;
        if beta > highest {
            beta = highest;
            if alpha >= beta {
                return Ok(beta);
            }
        }

        // 4. Bounds from the transposition table.
        let key = board.key(geometry);
        match self.table.get(key) {
            (Some(lower), _) if alpha < lower => {
                alpha = lower;
                if alpha >= beta {
                    return Ok(alpha);
                }
            }
            (_, Some(upper)) if beta > upper => {
                beta = upper;
                if alpha >= beta {
                    return Ok(beta);
                }
            }
            _ => {}
        }

        // 5. Search the moves, most promising first; store what we learn.
        for cell in self.ordered_moves(geometry, board, candidates).iter().flatten() {
            let child = board.after(*cell, geometry);
            let score = -self.negamax(geometry, &child, -beta, -alpha, limits)?;
            if score >= beta {
                self.table.store_lower(key, score);
                return Ok(score);
            }
            alpha = alpha.max(score);
        }
        self.table.store_upper(key, alpha);
        Ok(alpha)
    }
}

/// One line of a test set, solved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestLineResult {
    /// 1-based line number in the file.
    pub line_number: usize,
    /// The move string as read (1-based column digits).
    pub moves: String,
    /// The score the file gives.
    pub expected: i32,
    /// The score found.
    pub score: i32,
    /// A move reaching the score, when the run was asked to find one.
    pub best_move: Option<Column>,
    /// Nodes visited.
    pub nodes: u64,
    /// Wall-clock time of the solve alone.
    pub time: Duration,
}

/// The result of a whole test set.
#[derive(Clone, Debug, Default)]
pub struct TestSetReport {
    /// Every line solved, in file order.
    pub solved: Vec<TestLineResult>,
    /// Lines that could not be read or solved: (1-based line number, reason).
    pub rejected: Vec<(usize, String)>,
}

impl TestSetReport {
    /// Lines whose score matched.
    pub fn correct(&self) -> usize {
        self.solved.iter().filter(|line| line.score == line.expected).count()
    }

    /// Mean solve time per solved line.
    pub fn mean_time(&self) -> Duration {
        let total: Duration = self.solved.iter().map(|line| line.time).sum();
        total / self.solved.len().max(1) as u32
    }

    /// Mean nodes per solved line.
    pub fn mean_nodes(&self) -> f64 {
        self.solved.iter().map(|line| line.nodes as f64).sum::<f64>() / self.solved.len().max(1) as f64
    }
}

impl std::fmt::Display for TestSetReport {
    /// The summary: correct count, mean time, mean nodes, then the rejected lines.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}/{} correct, mean time {:.3} ms, mean nodes {:.1}",
            self.correct(),
            self.solved.len(),
            self.mean_time().as_secs_f64() * 1e3,
            self.mean_nodes()
        )?;
        if !self.rejected.is_empty() {
            write!(f, ", {} rejected", self.rejected.len())?;
        }
        for (line_number, reason) in &self.rejected {
            write!(f, "\nline {line_number}: {reason}")?;
        }
        Ok(())
    }
}

/// Solves every `moves score` line of a Pons test set (1-based column digits from the empty
/// board of `config`, then the expected score), clearing the table before each line and timing
/// the solve alone, as Pons' benchmark does. With `find_best_move` each line also gets a move
/// reaching its score (by [`Solver::solve`]; the nodes and time then include that search);
/// without it only the score is computed (by [`Solver::score`], the figures Pons reports).
/// `on_line` sees each solved line as it finishes (for progress output). Malformed lines, illegal
/// move strings, finished games and solves cut by `limits` are reported in
/// [`TestSetReport::rejected`], never panicked on. Blank lines are skipped.
pub fn run_test_set(
    text: &str,
    config: &Connect4Config,
    solver: &mut Solver,
    limits: &SolveLimits,
    find_best_move: bool,
    mut on_line: impl FnMut(&TestLineResult),
) -> TestSetReport {
    let mut report = TestSetReport::default();
    for (index, line) in text.lines().enumerate() {
        let line_number = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        match solve_test_line(line, config, solver, limits, find_best_move) {
            Ok(mut result) => {
                result.line_number = line_number;
                on_line(&result);
                report.solved.push(result);
            }
            Err(reason) => report.rejected.push((line_number, reason)),
        }
    }
    report
}

fn solve_test_line(
    line: &str,
    config: &Connect4Config,
    solver: &mut Solver,
    limits: &SolveLimits,
    find_best_move: bool,
) -> Result<TestLineResult, String> {
    let mut fields = line.split_whitespace();
    let (Some(moves), Some(expected), None) = (fields.next(), fields.next(), fields.next()) else {
        return Err(format!("expected `moves score`, got {line:?}"));
    };
    let expected: i32 = expected.parse().map_err(|_| format!("bad score {expected:?}"))?;
    let mut position = Connect4::new(config);
    for (ply, digit) in moves.chars().enumerate() {
        let column = digit
            .to_digit(10)
            .filter(|&d| d >= 1 && (d as usize) <= config.size().0)
            .ok_or_else(|| format!("bad column {digit:?} at move {}", ply + 1))?;
        position.play(Column(column as u8 - 1)).map_err(|error| format!("move {} ({digit}): {error}", ply + 1))?;
    }
    solver.clear();
    let start = Instant::now();
    let (score, best_move, nodes) = if find_best_move {
        let result = solver.solve(&position, limits).map_err(|error| error.to_string())?;
        (result.score, Some(result.best_move), result.nodes)
    } else {
        let (score, nodes) = solver.score(&position, limits).map_err(|error| error.to_string())?;
        (score, None, nodes)
    };
    let time = start.elapsed();
    Ok(TestLineResult { line_number: 0, moves: moves.to_string(), expected, score, best_move, nodes, time })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Outcome;
    use rand::{Rng, SeedableRng};

    fn config(width: usize, height: usize, blocked: &str) -> Connect4Config {
        let mut config = Connect4Config::default();
        config.set_size(width, height).unwrap();
        config.set_param("blocked", blocked).unwrap();
        config
    }

    fn position_after(config: &Connect4Config, moves: &str) -> Connect4 {
        let mut position = Connect4::new(config);
        for digit in moves.chars() {
            position.play(Column(digit.to_digit(10).unwrap() as u8 - 1)).unwrap();
        }
        position
    }

    /// Plain negamax over the rules module, no pruning: the reference for the score.
    fn minimax(position: &Connect4) -> i32 {
        let free = position.free_cells() as i32;
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        let mut best = i32::MIN;
        for mv in moves {
            let mut child = position.clone();
            child.play_unchecked(mv);
            let score = match child.outcome() {
                Some(Outcome::Win(_)) => (free + 1) / 2,
                Some(Outcome::Draw) => 0,
                None => -minimax(&child),
            };
            best = best.max(score);
        }
        best
    }

    /// Solves the 20 lines of `text` with best moves, checks every score, and checks that each
    /// best move reaches the score (the reply position scores its negation).
    fn check_test_set(text: &str) {
        let classic = Connect4Config::default();
        let mut solver = Solver::new(20);
        let limits = SolveLimits::default();
        let report = run_test_set(text, &classic, &mut solver, &limits, true, |_| {});
        assert!(report.rejected.is_empty(), "{report}");
        assert_eq!(report.solved.len(), 20);
        for line in &report.solved {
            assert_eq!(line.score, line.expected, "line {}: {}", line.line_number, line.moves);
            let mut position = position_after(&classic, &line.moves);
            let free = position.free_cells() as i32;
            position.play(line.best_move.unwrap()).unwrap();
            let reached = match position.outcome() {
                Some(Outcome::Win(_)) => (free + 1) / 2,
                Some(Outcome::Draw) => 0,
                None => -solver.score(&position, &limits).unwrap().0,
            };
            assert_eq!(reached, line.score, "best move of line {}: {}", line.line_number, line.moves);
        }
    }

    #[test]
    fn blog_examples() {
        let classic = Connect4Config::default();
        let mut solver = Solver::new(20);
        let limits = SolveLimits::default();
        assert_eq!(solver.score(&position_after(&classic, "4455"), &limits).unwrap().0, 18);
        assert_eq!(solver.score(&position_after(&classic, "44455554221"), &limits).unwrap().0, -15);
        let result = solver.solve(&position_after(&classic, "4455"), &limits).unwrap();
        assert_eq!(result.score, 18);
        // Red (to move) wins with its 4th stone by making an open three on the bottom row.
        assert!([Column(2), Column(5)].contains(&result.best_move), "{result:?}");
    }

    #[test]
    fn pons_end_game_set() {
        check_test_set(include_str!("../../tests/data/connect4/Test_L3_R1_first20"));
    }

    #[test]
    fn pons_middle_game_sets() {
        check_test_set(include_str!("../../tests/data/connect4/Test_L2_R1_first20"));
        check_test_set(include_str!("../../tests/data/connect4/Test_L2_R2_first20"));
    }

    #[test]
    fn pons_opening_set() {
        check_test_set(include_str!("../../tests/data/connect4/Test_L1_R1_first20"));
    }

    #[test]
    fn small_boards_match_tromps_results() {
        // John Tromp's table of solved board sizes (tromp.github.io/c4/c4.html): 4x4, 5x4, 4x5,
        // 5x5 and 7x4 are draws, 6x4 is a second-player win.
        let mut solver = Solver::new(20);
        let limits = SolveLimits::default();
        for (width, height, sign) in [(4, 4, 0), (5, 4, 0), (4, 5, 0), (7, 4, 0), (6, 4, -1), (5, 5, 0)] {
            let (score, _) = solver.score(&Connect4::new(&config(width, height, "")), &limits).unwrap();
            assert_eq!(score.signum(), sign, "{width}x{height}: score {score}");
        }
    }

    #[test]
    fn solver_equals_minimax_on_small_boards() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(42);
        let mut solver = Solver::new(16);
        let limits = SolveLimits::default();
        for blocked in ["", "b2", "c1,a4", "a1,b1,c1"] {
            let config = config(4, 4, blocked);
            let mut tried = 0;
            while tried < 40 {
                let mut position = Connect4::new(&config);
                for _ in 0..rng.random_range(3..9) {
                    let mut moves = Vec::new();
                    position.legal_moves(&mut moves);
                    if moves.is_empty() {
                        break;
                    }
                    position.play_unchecked(moves[rng.random_range(0..moves.len())]);
                }
                if position.outcome().is_some() {
                    continue;
                }
                tried += 1;
                let expected = minimax(&position);
                let result = solver.solve(&position, &limits).unwrap();
                assert_eq!(result.score, expected, "blocked {blocked:?}\n{}", position.board_text());
                // The best move really reaches the score.
                let mut child = position.clone();
                child.play(result.best_move).unwrap();
                let reached = match child.outcome() {
                    Some(Outcome::Win(_)) => (position.free_cells() as i32 + 1) / 2,
                    Some(Outcome::Draw) => 0,
                    None => -minimax(&child),
                };
                assert_eq!(reached, expected, "best move {:?}\n{}", result.best_move, position.board_text());
            }
        }
    }

    #[test]
    fn set_up_positions_with_uneven_counts_are_solved_too() {
        // White moved first twice (GTP set-up): the score still counts free cells.
        let mut rng = rand::rngs::SmallRng::seed_from_u64(5);
        let mut solver = Solver::new(16);
        for _ in 0..20 {
            let mut position = Connect4::new(&config(4, 4, "c2"));
            for _ in 0..6 {
                let mut moves = Vec::new();
                position.legal_moves(&mut moves);
                let color =
                    if rng.random_range(0..2) == 0 { crate::games::Color::Black } else { crate::games::Color::White };
                let _ = position.play_as(color, moves[rng.random_range(0..moves.len())]);
                if position.outcome().is_some() {
                    break;
                }
            }
            if position.outcome().is_some() {
                continue;
            }
            let (score, _) = solver.score(&position, &SolveLimits::default()).unwrap();
            assert_eq!(score, minimax(&position), "\n{}", position.board_text());
        }
    }

    #[test]
    fn limits_stop_the_search() {
        let position = Connect4::new(&Connect4Config::default());
        let mut solver = Solver::new(16);
        let limited = SolveLimits { node_limit: Some(10_000), stop: None };
        assert_eq!(solver.solve(&position, &limited), Err(SolveError::NodeLimit(10_000)));
        let stop = AtomicBool::new(true);
        let stopped = SolveLimits { node_limit: None, stop: Some(&stop) };
        assert!(matches!(solver.solve(&position, &stopped), Err(SolveError::Stopped(_))));
        // The solver is still usable afterwards.
        let (score, _) =
            solver.score(&position_after(&Connect4Config::default(), "4455"), &SolveLimits::default()).unwrap();
        assert_eq!(score, 18);
        let big = Connect4::new(&config(8, 8, ""));
        assert_eq!(solver.solve(&big, &SolveLimits::default()), Err(SolveError::Unsupported));
    }

    #[test]
    fn malformed_lines_are_reported_not_panicked_on() {
        let text = "4455 18\n\n44x 3\n4455\n4444444 1\n4455 eighteen\n12 3 4\n44455554221 -15\n";
        let mut solver = Solver::new(16);
        let report =
            run_test_set(text, &Connect4Config::default(), &mut solver, &SolveLimits::default(), false, |_| {});
        assert_eq!(report.solved.len(), 2);
        assert_eq!(report.correct(), 2);
        let rejected: Vec<usize> = report.rejected.iter().map(|(line, _)| *line).collect();
        assert_eq!(rejected, vec![3, 4, 5, 6, 7]);
    }

    /// Solves the empty 7x6 board: the first player wins with the last of his 21 pieces, score 1
    /// (Allis, Allen; Pons' solver agrees). Minutes of work: run with
    /// `cargo test --release --lib solvers::connect4::tests::empty_board -- --ignored --nocapture`.
    #[test]
    #[ignore = "minutes of work"]
    fn empty_board() {
        let mut solver = Solver::new(DEFAULT_TABLE_LOG2);
        let start = Instant::now();
        let empty = Connect4::new(&Connect4Config::default());
        let (score, nodes) = solver.score(&empty, &SolveLimits::default()).unwrap();
        println!("empty 7x6: score {score}, {nodes} nodes, {:.1} s", start.elapsed().as_secs_f64());
        assert_eq!(score, 1);
    }

    /// Prints mean time and nodes for Pons' full sets when they are present (../shared/data).
    /// Run with `cargo test --release --lib solvers::connect4 -- --ignored --nocapture`.
    #[test]
    #[ignore = "benchmark: minutes, needs the shared data sets"]
    fn benchmark_pons_sets() {
        let directory = std::env::var("PONDER_C4_DATA").unwrap_or_else(|_| "/work/shared/data/connect4".to_string());
        let mut solver = Solver::new(DEFAULT_TABLE_LOG2);
        for (name, lines) in
            [("Test_L3_R1", 1000), ("Test_L2_R1", 1000), ("Test_L2_R2", 1000), ("Test_L1_R1", 100), ("Test_L1_R2", 100)]
        {
            let Ok(text) = std::fs::read_to_string(format!("{directory}/{name}")) else {
                println!("{name}: not found");
                continue;
            };
            let text: String = text.lines().take(lines).map(|line| format!("{line}\n")).collect();
            let report =
                run_test_set(&text, &Connect4Config::default(), &mut solver, &SolveLimits::default(), false, |_| {});
            println!("{name} (first {lines}): {report}");
        }
    }
}
