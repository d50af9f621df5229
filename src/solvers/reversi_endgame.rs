//! Exact Reversi endgame solver, in the manner of Edax's endgame search.
//!
//! Scores are final disc differences for the side to move with the empty squares going to the
//! winner (the FFO/Edax/WOF convention, as [`Reversi::final_margin_for_black`]): always even,
//! from -64 to 64.
//!
//! The search is a fail-soft negamax alpha-beta over raw (player, opponent) bitboards:
//! - from 18 empties (`GUESS_EMPTIES`) a short midgame search with the trained evaluation
//!   ([`crate::search::reversi_alphabeta`]) guesses the root's score and best move; the root
//!   then searches an aspiration window around the guess, re-searching on the side it fails;
//! - the root and the principal variation use PVS (window on the first move, null windows
//!   with a re-search on the others), which yields the exact score and a best move;
//! - nodes with more than [`SHALLOW_EMPTIES`] empties use a null-window search with a shared
//!   transposition table (Zobrist keys), enhanced transposition cutoff, stability cutoffs, the
//!   table move searched before the others are even scored, then fastest-first move ordering
//!   (opponent mobility with corners counted twice, corners and parity) or, in big subtrees,
//!   ordering by shallow searches;
//! - nodes with few empties skip the table: at 7 empties the moves are sorted by the
//!   opponent's mobility alone, below that empties are tried in quadrant-parity order (odd
//!   quadrants first); stability cutoffs still apply, and the last two empties have dedicated
//!   code that counts the last flip directly;
//! - with two or more threads, nodes with at least [`SPLIT_EMPTIES`] empties split
//!   Young-Brothers-Wait style: the first move is searched alone, the others in parallel
//!   (rayon), handed out best first to whichever thread is free, and a cutoff in one aborts
//!   its siblings. Null-window nodes, principal-variation nodes and the root all split.

use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use crate::games::reversi::{Reversi, ReversiMove, flipped_discs, legal_move_mask};
use crate::games::{Color, Game, zobrist_keys};
use crate::knowledge::reversi_eval::{self, Evaluator, WEIGHT_UNIT};
use crate::search::reversi_alphabeta::{MidgameLimits, search_midgame};

/// Nodes with at most this many empties are searched without the transposition table and
/// without sorting (Edax uses the same bound).
pub const SHALLOW_EMPTIES: u32 = 7;

/// Shallow nodes with at least this many empties try their moves fastest first (fewest
/// replies for the opponent), parity and square class only breaking ties: one mobility count
/// per move, no table, and far fewer nodes below than the parity order alone.
const SHALLOW_SORT_EMPTIES: u32 = 7;

/// Nodes with at least this many empties may split among threads.
pub const SPLIT_EMPTIES: u32 = 12;

/// Null-window nodes with at least this many empties look their children up in the table
/// before searching them (enhanced transposition cutoff). 11 rather than 12 since the look-ups
/// are prefetched: 1.4% fewer nodes on FFO #40-#49 and no longer slower.
const ETC_EMPTIES: u32 = 11;

/// Null-window nodes with at least this many empties (and fewer than [`ETC_EMPTIES`]) ask for
/// their children's table entries before searching any child, so that the entries of later
/// siblings are loaded by the time they are searched (their own prefetch comes too late to
/// hide a miss).
const PREFETCH_CHILDREN_EMPTIES: u32 = 9;

/// Nodes with at least this many empties order their moves by a shallow search of each
/// child ([`Worker::sort_search`]) instead of the child's mobility alone: a better order there
/// saves far more nodes below than the look-ahead costs (about 30% fewer on FFO #40-#45).
const SORT_SEARCH_EMPTIES: u32 = 15;

/// From this many empties the sorting search looks two plies ahead of the child, not one.
const DEEPER_SORT_SEARCH_EMPTIES: u32 = 19;

/// Sorting-search leaves with at least this many empties are scored by the trained evaluation:
/// it orders better than [`static_value`] but costs far more, which pays only in big subtrees.
const EVALUATION_ORDER_EMPTIES: u32 = 17;

/// From this many empties the root guesses its score by a midgame search and searches an
/// aspiration window around the guess first.
const GUESS_EMPTIES: u32 = 18;

/// The guessing midgame search looks this many plies fewer ahead than the endgame, at most
/// [`GUESS_MAX_DEPTH`], and stops after [`GUESS_MAX_NODES`] nodes at 24 empties, half as many
/// for each empty fewer (the solve itself shrinks faster than that).
const GUESS_DEPTH_REDUCTION: u32 = 14;
const GUESS_MAX_DEPTH: u32 = 10;
const GUESS_MAX_NODES: u64 = 400_000;

/// The aspiration window reaches this far on either side of the guess: odd, so that the
/// guess and the even scores next to it lie inside.
const ASPIRATION_MARGIN: i32 = 3;

/// Nodes with at least this many empties check the stop and abort flags.
const ABORT_CHECK_EMPTIES: u32 = 10;

/// Scores beyond every final score, for initial windows.
const SCORE_INFINITY: i32 = 65;

/// How a solve is run.
#[derive(Clone, Copy, Debug)]
pub struct SolveOptions<'a> {
    /// Worker threads; 1 searches on the calling thread, more use a rayon pool of that size.
    pub threads: usize,
    /// The transposition table holds `2^table_bits` entries of 16 bytes (22: 64 MiB).
    pub table_bits: u32,
    /// Set from another thread to stop the solve early; it then returns `None`.
    pub stop: Option<&'a AtomicBool>,
}

impl Default for SolveOptions<'_> {
    fn default() -> Self {
        SolveOptions { threads: 1, table_bits: 22, stop: None }
    }
}

/// The exact result of a solved position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndgameResult {
    /// Final disc difference for the side to move under perfect play, empties to the winner.
    pub score: i32,
    /// A move reaching `score` ([`ReversiMove::PASS`] when the side to move must pass); `None`
    /// when the game is already over.
    pub best_move: Option<ReversiMove>,
    /// Positions visited.
    pub nodes: u64,
}

/// Solves `position` exactly: its final score for the side to move and a best move.
///
/// Blocks until solved. Returns `None` only when `options.stop` was set before the end. With
/// `options.threads > 1` the search runs in a fresh rayon pool of that many threads.
pub fn solve_endgame(position: &Reversi, options: &SolveOptions) -> Option<EndgameResult> {
    let never = AtomicBool::new(false);
    let table = TranspositionTable::new(options.table_bits.clamp(10, 30));
    let shared = Shared {
        table: &table,
        nodes: AtomicU64::new(0),
        parallel: options.threads > 1,
        evaluator: reversi_eval::embedded().ok(),
    };
    let stop = Abort { flag: options.stop.unwrap_or(&never), parent: None };
    let run = || {
        let mut worker = Worker { shared: &shared, nodes: 0 };
        let answer = worker.solve_root(position.player_discs(), position.opponent_discs(), &stop);
        worker.flush();
        answer
    };
    let answer = if options.threads > 1 {
        match rayon::ThreadPoolBuilder::new().num_threads(options.threads).build() {
            Ok(pool) => pool.install(run),
            Err(_) => run(),
        }
    } else {
        run()
    };
    if stop.is_set() {
        return None;
    }
    let (score, best_move) = answer;
    Some(EndgameResult { score, best_move, nodes: shared.nodes.load(Ordering::Relaxed) })
}

// ---------------------------------------------------------------------------------------------
// Board tables.

const CORNERS: u64 = 0x8100_0000_0000_0081;

/// The quadrant masks: a1-d4, e1-h4, a5-d8, e5-h8.
const QUADRANTS: [u64; 4] =
    [0x0000_0000_0f0f_0f0f, 0x0000_0000_f0f0_f0f0, 0x0f0f_0f0f_0000_0000, 0xf0f0_f0f0_0000_0000];

/// Squares whose 8-neighbourhood is `NEIGHBOURS[square]`: a move is possible only next to an
/// opponent disc.
const NEIGHBOURS: [u64; 64] = build_neighbours();

const fn build_neighbours() -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut square = 0;
    while square < 64 {
        let (x, y) = ((square % 8) as i32, (square / 8) as i32);
        let mut dy = -1;
        while dy <= 1 {
            let mut dx = -1;
            while dx <= 1 {
                let (nx, ny) = (x + dx, y + dy);
                if (dx != 0 || dy != 0) && nx >= 0 && nx < 8 && ny >= 0 && ny < 8 {
                    table[square] |= 1u64 << (ny * 8 + nx);
                }
                dx += 1;
            }
            dy += 1;
        }
        square += 1;
    }
    table
}

/// Square classes in the order the shallow search tries them: corners, A and B edge squares,
/// inner squares, C squares, X squares (Edax orders its empties the same way).
const SQUARE_CLASSES: [u64; 5] = [
    CORNERS,
    0x3c00_8181_8181_003c,
    0x0000_3c3c_3c3c_0000 | 0x003c_4242_4242_3c00,
    0x4281_0000_0000_8142,
    0x0042_0000_0000_4200,
];

/// Small bonuses by square class for sorting moves at deep nodes.
const SQUARE_BONUS: [i32; 5] = [6, 4, 3, 1, 0];

/// The 15 diagonals in each direction, for full-line detection.
const DIAGONALS_A1_H8: [u64; 15] = build_diagonals(1);
const DIAGONALS_H1_A8: [u64; 15] = build_diagonals(-1);

const fn build_diagonals(slope: i32) -> [u64; 15] {
    let mut table = [0u64; 15];
    let mut square = 0;
    while square < 64 {
        let (x, y) = ((square % 8), (square / 8));
        // Along a1-h8 diagonals y - x is constant; along h1-a8 ones y + x is.
        let index = if slope == 1 { y - x + 7 } else { y + x };
        table[index as usize] |= 1u64 << square;
        square += 1;
    }
    table
}

/// `LEAVES_*[direction][k]`: the squares from which `2^k` steps along the diagonal leave the
/// board, towards higher bits (direction 0) and towards lower ones (direction 1). The a1-h8
/// diagonal steps by 9 bits, the h1-a8 one by 7.
const LEAVES_A1_H8: [[u64; 3]; 2] = [build_leaves(1, 1), build_leaves(-1, -1)];
const LEAVES_H1_A8: [[u64; 3]; 2] = [build_leaves(-1, 1), build_leaves(1, -1)];

const fn build_leaves(dx: i32, dy: i32) -> [u64; 3] {
    let mut table = [0u64; 3];
    let mut k = 0;
    while k < 3 {
        let distance = 1 << k;
        let mut square = 0;
        while square < 64 {
            let (x, y) = (square % 8 + dx * distance, square / 8 + dy * distance);
            if x < 0 || x >= 8 || y < 0 || y >= 8 {
                table[k] |= 1u64 << square;
            }
            square += 1;
        }
        k += 1;
    }
    table
}

/// The squares of `filled` whose whole diagonal (stepping by `shift` bits) is filled: each
/// side of the square is checked by doubling the known-full run, 1, 2, then 4 squares at a
/// time, a step that leaves the board counting as full.
fn full_diagonals(filled: u64, shift: u32, leaves: &[[u64; 3]; 2]) -> u64 {
    let [up, down] = leaves;
    let mut towards_higher = filled;
    let mut towards_lower = filled;
    for k in 0..3 {
        towards_higher &= towards_higher >> (shift << k) | up[k];
        towards_lower &= towards_lower << (shift << k) | down[k];
    }
    towards_higher & towards_lower
}

/// Zobrist keys per (colour, square), folded into one table per byte of a bitboard so a key
/// costs 16 look-ups: `ZOBRIST_BYTES[8 * side + byte][value]` is the XOR of the keys of the
/// squares set in `value`.
static ZOBRIST_BYTES: [[u64; 256]; 16] = build_zobrist_bytes();

const fn build_zobrist_bytes() -> [[u64; 256]; 16] {
    let keys: [u64; 128] = zobrist_keys(0x656e_6467_616d_6521);
    let mut table = [[0u64; 256]; 16];
    let mut part = 0;
    while part < 16 {
        let mut value = 0;
        while value < 256 {
            let mut key = 0;
            let mut bit = 0;
            while bit < 8 {
                if value >> bit & 1 != 0 {
                    key ^= keys[part * 8 + bit];
                }
                bit += 1;
            }
            table[part][value] = key;
            value += 1;
        }
        part += 1;
    }
    table
}

fn zobrist_key(player: u64, opponent: u64) -> u64 {
    let mut key = 0;
    for byte in 0..8 {
        key ^= ZOBRIST_BYTES[byte][(player >> (8 * byte)) as usize & 0xff];
        key ^= ZOBRIST_BYTES[8 + byte][(opponent >> (8 * byte)) as usize & 0xff];
    }
    key
}

/// Minimum alpha (by empties) from which a stability cutoff can succeed (Edax's thresholds).
const STABILITY_THRESHOLD: [i32; 65] = [
    99, 99, 99, 99, 6, 8, 10, 12, 14, 16, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 48, 50, 50, 52,
    52, 54, 54, 56, 56, 58, 58, 60, 60, 62, 62, 64, 64, 64, 64, 64, 64, 64, 64, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99,
];

// ---------------------------------------------------------------------------------------------
// Stability.

/// `EDGE_STABLE[player * 256 + opponent]`: the player discs of an 8-square edge that no
/// sequence of moves on that edge can flip.
fn edge_stability_table() -> &'static [u8] {
    static TABLE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = vec![0u8; 256 * 256];
        let mut known = vec![false; 256 * 256];
        for player in 0..256usize {
            for opponent in 0..256usize {
                if player & opponent == 0 {
                    edge_stable(player as u8, opponent as u8, &mut table, &mut known);
                }
            }
        }
        table
    })
}

/// Discs flipped along one 8-square line when `player` places on `square`.
fn line_flips(player: u8, opponent: u8, square: u32) -> u8 {
    let mut flipped = 0u8;
    for step in [1i32, -1] {
        let mut run = 0u8;
        let mut at = square as i32 + step;
        while (0..8).contains(&at) {
            let bit = 1u8 << at;
            if opponent & bit != 0 {
                run |= bit;
            } else {
                if player & bit != 0 {
                    flipped |= run;
                }
                break;
            }
            at += step;
        }
    }
    flipped
}

/// Stable player discs of an edge: those that stay the player's after any placement on any
/// empty square by either side, recursively. A placement that flips nothing along the edge is
/// included, since it may be legal through another direction.
fn edge_stable(player: u8, opponent: u8, table: &mut [u8], known: &mut [bool]) -> u8 {
    let index = (player as usize) << 8 | opponent as usize;
    if known[index] {
        return table[index];
    }
    let mut stable = player;
    let mut empties = !(player | opponent);
    while empties != 0 && stable != 0 {
        let square = empties.trailing_zeros();
        empties &= empties - 1;
        let bit = 1u8 << square;
        let flipped = line_flips(player, opponent, square);
        stable &= edge_stable(player | bit | flipped, opponent & !flipped, table, known);
        let flipped = line_flips(opponent, player, square);
        stable &= edge_stable(player & !flipped, opponent | bit | flipped, table, known);
    }
    known[index] = true;
    table[index] = stable;
    stable
}

/// Bits of column `a` (after shifting a column there) gathered into a byte, row 1 in bit 0.
fn column_to_byte(bits: u64) -> usize {
    ((bits & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56) as usize
}

/// A byte spread onto column `a`, bit k to row k + 1.
fn byte_to_column(byte: u8) -> u64 {
    COLUMN_OF_BYTE[byte as usize]
}

/// [`byte_to_column`] as a table: a loop over the bits cost a tenth of the stability count.
const COLUMN_OF_BYTE: [u64; 256] = build_column_of_byte();

const fn build_column_of_byte() -> [u64; 256] {
    let mut table = [0u64; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut bit = 0;
        while bit < 8 {
            if byte >> bit & 1 != 0 {
                table[byte] |= 1u64 << (8 * bit);
            }
            bit += 1;
        }
        byte += 1;
    }
    table
}

/// A subset of the player's discs that can never be flipped: stable edge discs, then interior
/// discs that, along each of the four lines through them, either sit on a full line or touch a
/// stable disc of their own.
fn stable_discs(player: u64, opponent: u64) -> u64 {
    let edges = edge_stability_table();
    let edge = |p: usize, o: usize| edges[p << 8 | o];
    let mut stable = u64::from(edge(player as usize & 0xff, opponent as usize & 0xff))
        | u64::from(edge((player >> 56) as usize, (opponent >> 56) as usize)) << 56;
    let left = edge(column_to_byte(player), column_to_byte(opponent));
    let right = edge(column_to_byte(player >> 7), column_to_byte(opponent >> 7));
    stable |= byte_to_column(left) | byte_to_column(right) << 7;

    let filled = player | opponent;
    let mut full_row = filled & filled >> 1;
    full_row &= full_row >> 2;
    full_row &= full_row >> 4;
    let full_row = (full_row & 0x0101_0101_0101_0101).wrapping_mul(0xff);
    let mut full_column = filled & filled.rotate_right(8);
    full_column &= full_column.rotate_right(16);
    full_column &= full_column.rotate_right(32);
    let full_a1_h8 = full_diagonals(filled, 9, &LEAVES_A1_H8);
    let full_h1_a8 = full_diagonals(filled, 7, &LEAVES_H1_A8);

    // Interior squares only: their neighbours all lie on the board, so plain shifts are exact.
    let interior = player & 0x007e_7e7e_7e7e_7e00;
    stable |= interior & full_row & full_column & full_a1_h8 & full_h1_a8;
    loop {
        let grown = interior
            & (full_row | stable << 1 | stable >> 1)
            & (full_column | stable << 8 | stable >> 8)
            & (full_a1_h8 | stable << 9 | stable >> 9)
            & (full_h1_a8 | stable << 7 | stable >> 7);
        if grown & !stable == 0 {
            return stable;
        }
        stable |= grown;
    }
}

// ---------------------------------------------------------------------------------------------
// Transposition table.

/// A lock-free table of (key, bounds, best move) entries shared by all threads. Each entry is
/// two atomic words, the key stored XOR-ed with the data, so a torn write reads as a miss.
struct TranspositionTable {
    words: Vec<AtomicU64>,
    /// The first word of bucket 0: buckets start on a cache line, so that a probe costs one
    /// miss, not two (the allocator only aligns the vector to 16 bytes).
    first_word: usize,
    bucket_mask: usize,
}

/// Words (two per entry, two entries per bucket) in a 64-byte cache line.
const WORDS_PER_CACHE_LINE: usize = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TableEntry {
    lower: i32,
    upper: i32,
    best_square: u8,
    empties: u8,
}

const NO_SQUARE: u8 = 255;

impl TableEntry {
    fn pack(self) -> u64 {
        (self.lower as i8 as u8 as u64)
            | (self.upper as i8 as u8 as u64) << 8
            | (self.best_square as u64) << 16
            | (self.empties as u64) << 24
    }

    fn unpack(data: u64) -> TableEntry {
        TableEntry {
            lower: i32::from(data as u8 as i8),
            upper: i32::from((data >> 8) as u8 as i8),
            best_square: (data >> 16) as u8,
            empties: (data >> 24) as u8,
        }
    }
}

/// Asks Linux to back the table's allocation (untouched as yet) with 2 MiB pages: a probe
/// lands anywhere in 64 MiB, and with 4 KiB pages nearly every probe also missed the address
/// translation cache, a page walk costlier than the cache miss itself (measured on FFO #40-#44).
/// Only a hint: where the system refuses, the table works the same on small pages.
#[cfg(target_os = "linux")]
fn request_huge_pages(words: &Vec<AtomicU64>) {
    const HUGE_PAGE_BYTES: usize = 2 << 20;
    /// `MADV_HUGEPAGE` of Linux's `<sys/mman.h>`.
    const MADV_HUGEPAGE: i32 = 14;
    unsafe extern "C" {
        fn madvise(address: *mut std::ffi::c_void, length: usize, advice: i32) -> i32;
    }
    let start = words.as_ptr() as usize;
    let end = start + words.capacity() * size_of::<AtomicU64>();
    // Whole huge pages inside the allocation only: the advice applies to whole pages.
    let first_page = start.next_multiple_of(HUGE_PAGE_BYTES);
    if end > first_page + HUGE_PAGE_BYTES {
        let length = (end - first_page) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
        // SAFETY: madvise only changes how the kernel backs the given range, which lies inside
        // an allocation this vector owns; MADV_HUGEPAGE never changes the memory's contents,
        // and a failure (an older kernel, huge pages disabled) leaves everything as it was.
        unsafe { madvise(first_page as *mut std::ffi::c_void, length, MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn request_huge_pages(_words: &Vec<AtomicU64>) {}

impl TranspositionTable {
    /// `2^bits` entries in buckets of two.
    fn new(bits: u32) -> TranspositionTable {
        let entries = 1usize << bits;
        let length = 2 * entries + WORDS_PER_CACHE_LINE;
        let mut words: Vec<AtomicU64> = Vec::with_capacity(length);
        // Before the first write: the kernel picks the page size when a page is first touched.
        request_huge_pages(&words);
        words.extend((0..length).map(|_| AtomicU64::new(0)));
        let misalignment = words.as_ptr() as usize / size_of::<AtomicU64>() % WORDS_PER_CACHE_LINE;
        let first_word = (WORDS_PER_CACHE_LINE - misalignment) % WORDS_PER_CACHE_LINE;
        TranspositionTable { words, first_word, bucket_mask: (entries / 2) - 1 }
    }

    fn bucket_start(&self, key: u64) -> usize {
        self.first_word + 4 * (key as usize & self.bucket_mask)
    }

    fn slot(&self, key: u64, way: usize) -> (&AtomicU64, &AtomicU64) {
        let base = self.bucket_start(key) + 2 * way;
        (&self.words[base], &self.words[base + 1])
    }

    /// Asks the processor to start loading the bucket of `key`: a probe of a big table
    /// misses the cache, and issuing the load early overlaps the miss with other work (about
    /// a seventh of the solver's time went to waiting on table loads).
    #[inline]
    fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let address = self.words[self.bucket_start(key)].as_ptr().cast::<i8>();
            // SAFETY: SSE is part of the x86-64 baseline, and a prefetch only hints the cache:
            // it never faults or changes memory, whatever the address (here an element of the table).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(address) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    fn probe(&self, key: u64) -> Option<TableEntry> {
        (0..2).find_map(|way| {
            let (check, data) = self.slot(key, way);
            let data = data.load(Ordering::Relaxed);
            (check.load(Ordering::Relaxed) ^ data == key && data != 0).then(|| TableEntry::unpack(data))
        })
    }

    /// Stores `entry`, merging with an entry of the same key, otherwise replacing the bucket's
    /// entry with fewer empties.
    fn store(&self, key: u64, mut entry: TableEntry) {
        let mut victim = 0;
        let mut victim_empties = u8::MAX;
        for way in 0..2 {
            let (check, data) = self.slot(key, way);
            let data = data.load(Ordering::Relaxed);
            if check.load(Ordering::Relaxed) ^ data == key && data != 0 {
                let old = TableEntry::unpack(data);
                entry.lower = entry.lower.max(old.lower);
                entry.upper = entry.upper.min(old.upper);
                if entry.lower > entry.upper {
                    // Bounds from different threads' windows disagree only through a race;
                    // keep the new result alone.
                    return self.write(key, way, entry);
                }
                if entry.best_square == NO_SQUARE {
                    entry.best_square = old.best_square;
                }
                return self.write(key, way, entry);
            }
            let empties = if data == 0 { 0 } else { TableEntry::unpack(data).empties };
            if empties < victim_empties || (empties == victim_empties && way == 1) {
                victim = way;
                victim_empties = empties;
            }
        }
        self.write(key, victim, entry);
    }

    fn write(&self, key: u64, way: usize, entry: TableEntry) {
        let (check, data) = self.slot(key, way);
        let packed = entry.pack();
        data.store(packed, Ordering::Relaxed);
        check.store(key ^ packed, Ordering::Relaxed);
    }
}

// ---------------------------------------------------------------------------------------------
// Search.

/// A chain of flags: the caller's stop flag at the root, one more per parallel split. A search
/// below a split stops when any flag up the chain is set.
struct Abort<'a> {
    flag: &'a AtomicBool,
    parent: Option<&'a Abort<'a>>,
}

impl Abort<'_> {
    fn is_set(&self) -> bool {
        let mut link = Some(self);
        while let Some(abort) = link {
            if abort.flag.load(Ordering::Relaxed) {
                return true;
            }
            link = abort.parent;
        }
        false
    }
}

struct Shared<'a> {
    table: &'a TranspositionTable,
    nodes: AtomicU64,
    parallel: bool,
    /// The trained evaluation, which scores the leaves of the sorting searches when it loads
    /// (as Edax orders its endgame moves); [`static_value`] otherwise.
    evaluator: Option<&'static Evaluator>,
}

struct Worker<'a> {
    shared: &'a Shared<'a>,
    nodes: u64,
}

/// One move of a sorted move list.
#[derive(Clone, Copy, Default)]
struct ScoredMove {
    order: i32,
    square: u8,
    flipped: u64,
}

/// The final score for `player` when neither side can move, empties to the winner.
fn final_score(player: u64, empties: u32) -> i32 {
    let empties = empties as i32;
    let difference = 2 * player.count_ones() as i32 + empties - 64;
    match difference.signum() {
        1 => difference + empties,
        -1 => difference - empties,
        _ => 0,
    }
}

/// `LINE_FLIP_COUNT[position][pattern]`: on a full 8-square line whose `mover` discs are the
/// bits of `pattern` and every other square but `position` is the other side's, how many discs
/// a placement on `position` flips along the line. Squares off a short diagonal read as
/// not-mover and never end a run, so they never count as flips.
const LINE_FLIP_COUNT: [[u8; 256]; 8] = build_line_flip_count();

const fn build_line_flip_count() -> [[u8; 256]; 8] {
    let mut table = [[0u8; 256]; 8];
    let mut position = 0;
    while position < 8 {
        let mut pattern = 0;
        while pattern < 256 {
            let mut count = 0;
            // Towards higher positions, then towards lower ones.
            let mut at = position + 1;
            while at < 8 && pattern >> at & 1 == 0 {
                at += 1;
            }
            if at < 8 {
                count += at - position - 1;
            }
            let mut at = position as i32 - 1;
            while at >= 0 && pattern >> at & 1 == 0 {
                at -= 1;
            }
            if at >= 0 {
                count += position - at as usize - 1;
            }
            table[position][pattern] = count as u8;
            pattern += 1;
        }
        position += 1;
    }
    table
}

/// The a1-h8 and h1-a8 diagonals through each square.
const DIAGONAL_THROUGH: [[u64; 2]; 64] = build_diagonal_through();

const fn build_diagonal_through() -> [[u64; 2]; 64] {
    let mut table = [[0u64; 2]; 64];
    let mut square = 0;
    while square < 64 {
        let (x, y) = (square % 8, square / 8);
        table[square] = [DIAGONALS_A1_H8[y + 7 - x], DIAGONALS_H1_A8[y + x]];
        square += 1;
    }
    table
}

/// How many discs `mover` flips by playing the board's last empty square, every other square
/// being the other side's: four line look-ups instead of a full flip computation.
#[inline]
fn count_last_flips(mover: u64, square: usize) -> i32 {
    let (column, row) = (square & 7, square >> 3);
    // A diagonal holds one square per row, each in a different column: multiplying by the
    // all-rows constant adds them into the top byte without carries, bit = column.
    let gather_columns = |line: u64| (line.wrapping_mul(0x0101_0101_0101_0101) >> 56) as usize;
    let [down, up] = DIAGONAL_THROUGH[square];
    let flips = LINE_FLIP_COUNT[column][(mover >> (8 * row)) as usize & 0xff]
        + LINE_FLIP_COUNT[row][column_to_byte(mover >> column)]
        + LINE_FLIP_COUNT[column][gather_columns(mover & down)]
        + LINE_FLIP_COUNT[column][gather_columns(mover & up)];
    i32::from(flips)
}

/// The score when `player` faces the single empty `square`: whoever can play it does, the side
/// to move first. Fail-soft against `alpha`: when the player cannot play and even the best case
/// (nobody can) is at most `alpha`, that bound is returned without looking at the opponent.
fn solve_last(player: u64, square: usize, alpha: i32) -> i32 {
    let discs = player.count_ones() as i32;
    let flipped = count_last_flips(player, square);
    if flipped != 0 {
        return 2 * (discs + 1 + flipped) - 64;
    }
    // The opponent flips at least one disc, or nobody plays: either way no better than this.
    let no_move_score = if 2 * discs > 63 { 2 * discs - 62 } else { 2 * discs - 64 };
    if no_move_score <= alpha {
        return no_move_score;
    }
    let flipped = count_last_flips(!(player | 1u64 << square), square);
    if flipped != 0 {
        return 2 * (discs - flipped) - 64;
    }
    no_move_score
}

/// Quadrant parity: the squares of every quadrant holding an odd number of empties. The
/// empties are XOR-folded so that bits 0, 4, 32 and 36 end up holding each quadrant's parity.
fn quadrant_parity(empties: u64) -> u64 {
    let mut folded = empties ^ empties >> 16;
    folded ^= folded >> 8;
    folded ^= folded >> 2;
    folded ^= folded >> 1;
    ((folded & 1) * QUADRANTS[0])
        | ((folded >> 4 & 1) * QUADRANTS[1])
        | ((folded >> 32 & 1) * QUADRANTS[2])
        | ((folded >> 36 & 1) * QUADRANTS[3])
}

/// Every square next to a disc of `discs` (8-neighbourhood), `discs` excluded or not.
fn neighbourhood(discs: u64) -> u64 {
    let sideways = (discs << 1 & 0xfefe_fefe_fefe_fefe) | (discs >> 1 & 0x7f7f_7f7f_7f7f_7f7f);
    let row = discs | sideways;
    sideways | row << 8 | row >> 8
}

/// Own corners and own edge discs touching an own corner: a cheap stability count.
fn corner_stability(discs: u64) -> u32 {
    let corners = discs & CORNERS;
    let touching = (corners << 1 & 0x0200_0000_0000_0002)
        | (corners >> 1 & 0x4000_0000_0000_0040)
        | (corners << 8 & 0x0000_0000_0000_8100)
        | (corners >> 8 & 0x0081_0000_0000_0000);
    (corners | (touching & discs)).count_ones()
}

/// The quadrant mask of `square`.
fn quadrant_of(square: usize) -> u64 {
    QUADRANTS[(square >> 4 & 2) | (square >> 2 & 1)]
}

/// Sort bonus by square: the class order of [`SQUARE_CLASSES`] as [`SQUARE_BONUS`].
const SQUARE_BONUS_BY_SQUARE: [i32; 64] = build_square_bonus();

const fn build_square_bonus() -> [i32; 64] {
    let mut table = [0; 64];
    let mut square = 0;
    while square < 64 {
        let mut class = 0;
        while SQUARE_CLASSES[class] >> square & 1 == 0 {
            class += 1;
        }
        table[square] = SQUARE_BONUS[class];
        square += 1;
    }
    table
}

/// Bounds of [`static_value`].
const SEARCH_INFINITY: i32 = 1 << 20;

/// A cheap static estimate for the side to move, for move ordering only: weighted mobility,
/// corner stability and potential mobility, each as a difference with the opponent.
fn static_value(player: u64, opponent: u64) -> i32 {
    let ours = legal_move_mask(player, opponent);
    let theirs = legal_move_mask(opponent, player);
    let mobility = (ours.count_ones() + (ours & CORNERS).count_ones()) as i32
        - (theirs.count_ones() + (theirs & CORNERS).count_ones()) as i32;
    let empty = !(player | opponent);
    let potential =
        (neighbourhood(opponent) & empty).count_ones() as i32 - (neighbourhood(player) & empty).count_ones() as i32;
    let corners = corner_stability(player) as i32 - corner_stability(opponent) as i32;
    8 * mobility + 2 * potential + 16 * corners
}

/// Fills `list` with the moves in `moves` and their flips, unscored; returns the count.
fn list_moves(player: u64, opponent: u64, mut moves: u64, list: &mut [ScoredMove; 40]) -> usize {
    let mut count = 0;
    while moves != 0 {
        let square = moves.trailing_zeros() as usize;
        moves &= moves - 1;
        list[count] = ScoredMove { order: 0, square: square as u8, flipped: flipped_discs(player, opponent, square) };
        count += 1;
    }
    count
}

impl Worker<'_> {
    fn flush(&mut self) {
        self.shared.nodes.fetch_add(self.nodes, Ordering::Relaxed);
        self.nodes = 0;
    }

    /// The exact score and a best move of the root position.
    fn solve_root(&mut self, player: u64, opponent: u64, stop: &Abort) -> (i32, Option<ReversiMove>) {
        let empties = 64 - (player | opponent).count_ones();
        self.nodes += 1;
        // 1. Finished games and forced passes.
        let moves = legal_move_mask(player, opponent);
        if moves == 0 {
            if legal_move_mask(opponent, player) == 0 {
                return (final_score(player, empties), None);
            }
            let score = -self.pvs(opponent, player, -SCORE_INFINITY, SCORE_INFINITY, empties, stop);
            return (score, Some(ReversiMove::PASS));
        }
        // 2. Order the moves as at any node, first by a table-free quick look; in big
        //    endgames a midgame search of the root guesses the score and puts its move first.
        let mut list = [ScoredMove::default(); 40];
        let guess = self.midgame_guess(player, opponent, empties);
        let guessed_square = guess.map_or(NO_SQUARE, |(_, square)| square);
        let count = self.order_moves(player, opponent, moves, guessed_square, empties, &mut list);
        list[..count].sort_by_key(|mv| -mv.order);
        // 3. Aspiration around the guess.
        let (score, square) =
            self.aspiration_search(player, opponent, &mut list[..count], guess.map(|(score, _)| score), empties, stop);
        (score, Some(ReversiMove::square(square as usize)))
    }

    /// The exact score and a best square of the root whose sorted moves are `list`. A window
    /// around `guess` proves the exact score when it lies inside; otherwise the bound found
    /// sets the window of a re-search on that side. Wrong moves are then refuted by narrow
    /// windows, never solved with the full one. Garbage once `stop` is set.
    fn aspiration_search(
        &mut self,
        player: u64,
        opponent: u64,
        list: &mut [ScoredMove],
        guess: Option<i32>,
        empties: u32,
        stop: &Abort,
    ) -> (i32, u8) {
        let (mut alpha, mut beta) = match guess {
            Some(score) => (score - ASPIRATION_MARGIN, score + ASPIRATION_MARGIN),
            None => (-SCORE_INFINITY, SCORE_INFINITY),
        };
        loop {
            let (score, square) = self.root_window(player, opponent, list, alpha, beta, empties, stop);
            if stop.is_set() {
                return (score, square);
            }
            if score <= alpha && alpha > -SCORE_INFINITY {
                (alpha, beta) = (-SCORE_INFINITY, score + 1);
            } else if score >= beta && beta < SCORE_INFINITY {
                (alpha, beta) = (score - 1, SCORE_INFINITY);
            } else {
                return (score, square);
            }
            // The re-search starts with the move that set the bound.
            if let Some(index) = list.iter().position(|mv| mv.square == square) {
                list[..=index].rotate_right(1);
            }
        }
    }

    /// A guess of the root's score (even, in discs) and best square by a midgame search with
    /// the trained evaluation; `None` for small endgames or without the evaluation.
    fn midgame_guess(&mut self, player: u64, opponent: u64, empties: u32) -> Option<(i32, u8)> {
        let evaluator = self.shared.evaluator?;
        if empties < GUESS_EMPTIES {
            return None;
        }
        let position = Reversi::from_bitboards(player, opponent, Color::Black)?;
        let never = AtomicBool::new(false);
        let limits = MidgameLimits {
            max_nodes: Some(GUESS_MAX_NODES >> 24u32.saturating_sub(empties)),
            ..MidgameLimits::to_depth((empties - GUESS_DEPTH_REDUCTION).min(GUESS_MAX_DEPTH), &never)
        };
        let result = search_midgame(&position, evaluator, &limits)?;
        self.nodes += result.nodes;
        let square = result.best_move.index()? as u8;
        // Scores are even: round to the nearest even number of discs.
        let discs = result.score.clamp(-64 * WEIGHT_UNIT, 64 * WEIGHT_UNIT) as f64 / WEIGHT_UNIT as f64;
        Some(((discs / 2.0).round() as i32 * 2, square))
    }

    /// PVS over the sorted root moves within (alpha, beta): the first with the window, the
    /// others by null window first, in parallel when allowed. Fail-soft: the best score and
    /// its square.
    #[allow(clippy::too_many_arguments)]
    fn root_window(
        &mut self,
        player: u64,
        opponent: u64,
        list: &[ScoredMove],
        window_alpha: i32,
        beta: i32,
        empties: u32,
        stop: &Abort,
    ) -> (i32, u8) {
        let child = |mv: &ScoredMove| (opponent & !mv.flipped, player | mv.flipped | 1u64 << mv.square);
        let (child_player, child_opponent) = child(&list[0]);
        let first = -self.pvs(child_player, child_opponent, -beta, -window_alpha, empties - 1, stop);
        if first >= beta {
            return (first, list[0].square);
        }
        let best = Mutex::new((first, list[0].square));
        let alpha = AtomicI32::new(first.max(window_alpha));
        let search_other = |worker: &mut Worker, mv: &ScoredMove| {
            let (child_player, child_opponent) = child(mv);
            let current = alpha.load(Ordering::Relaxed);
            if current >= beta.min(64) || stop.is_set() {
                return;
            }
            let mut score = -worker.nws(child_player, child_opponent, -current - 1, empties - 1, stop);
            if score > current && score < beta && !stop.is_set() {
                score = -worker.pvs(child_player, child_opponent, -beta, -current, empties - 1, stop);
            }
            if stop.is_set() {
                return;
            }
            let mut best = best.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if score > best.0 {
                *best = (score, mv.square);
                alpha.fetch_max(score, Ordering::Relaxed);
            }
        };
        if self.shared.parallel {
            in_order_on_idle_threads(self.shared, &list[1..], stop, search_other);
        } else {
            for mv in &list[1..] {
                search_other(self, mv);
            }
        }
        best.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Depth-limited fail-soft alpha-beta over the trained evaluation or [`static_value`]
    /// (finished games score far beyond either), for ordering the moves of big subtrees. Its nodes count as solver nodes.
    fn sort_search(&mut self, player: u64, opponent: u64, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if depth == 0 {
            return match self.shared.evaluator {
                Some(evaluator) if (player | opponent).count_ones() <= 64 - EVALUATION_ORDER_EMPTIES => {
                    evaluator.evaluate(player, opponent)
                }
                _ => static_value(player, opponent),
            };
        }
        let mut moves = legal_move_mask(player, opponent);
        if moves == 0 {
            if legal_move_mask(opponent, player) == 0 {
                return 1000 * final_score(player, 64 - (player | opponent).count_ones());
            }
            return -self.sort_search(opponent, player, depth - 1, -beta, -alpha);
        }
        let mut best = -SEARCH_INFINITY;
        while moves != 0 {
            let square = moves.trailing_zeros() as usize;
            moves &= moves - 1;
            let flipped = flipped_discs(player, opponent, square);
            let score =
                -self.sort_search(opponent & !flipped, player | flipped | 1u64 << square, depth - 1, -beta, -alpha);
            if score > best {
                best = score;
                if score >= beta {
                    break;
                }
                alpha = alpha.max(score);
            }
        }
        best
    }

    /// Fills `list` with the moves in `moves` and their sort keys, the table move first;
    /// returns the count.
    fn order_moves(
        &mut self,
        player: u64,
        opponent: u64,
        moves: u64,
        table_square: u8,
        empties: u32,
        list: &mut [ScoredMove; 40],
    ) -> usize {
        let count = list_moves(player, opponent, moves, list);
        self.score_moves(player, opponent, empties, &mut list[..count]);
        for mv in &mut list[..count] {
            if mv.square == table_square {
                mv.order = 1 << 30;
            }
        }
        count
    }

    /// Sets the sort key of every move of `list`, the best first when sorted by decreasing key.
    fn score_moves(&mut self, player: u64, opponent: u64, empties: u32, list: &mut [ScoredMove]) {
        let parity = quadrant_parity(!(player | opponent));
        for mv in list {
            let (square, flipped) = (mv.square as usize, mv.flipped);
            let bit = 1u64 << square;
            let next_player = opponent & !flipped;
            let next_opponent = player | flipped | bit;
            mv.order = if next_player == 0 {
                1 << 29
            } else if empties >= SORT_SEARCH_EMPTIES {
                // Big subtrees: the opponent's outlook after a shallow look-ahead, the parity
                // and square class only breaking ties.
                let depth = if empties >= DEEPER_SORT_SEARCH_EMPTIES { 2 } else { 1 };
                let value = self.sort_search(next_player, next_opponent, depth, -SEARCH_INFINITY, SEARCH_INFINITY);
                let parity_bonus = if parity & bit == 0 { 0 } else { 4 };
                -(value << 8) + parity_bonus + SQUARE_BONUS_BY_SQUARE[square]
            } else {
                // Fastest first: few replies for the opponent (corners count twice), then
                // our safe corner discs, then few empties next to our discs (the opponent's
                // potential mobility), then parity and the square's class (Edax's weights).
                let replies = legal_move_mask(next_player, next_opponent);
                let mobility = (replies.count_ones() + (replies & CORNERS).count_ones()) as i32;
                let empty_after = !(next_player | next_opponent);
                let potential = neighbourhood(next_opponent) & empty_after;
                let potential = (potential.count_ones() + (potential & CORNERS).count_ones()) as i32;
                let corners = corner_stability(next_opponent) as i32;
                let parity_bonus = if parity & bit == 0 {
                    0
                } else if empties < 12 {
                    8
                } else {
                    4
                };
                -(mobility << 15) + (corners << 11) - (potential << 5) + parity_bonus + SQUARE_BONUS_BY_SQUARE[square]
            };
        }
    }

    /// Principal-variation search with window (alpha, beta): exact inside the window,
    /// fail-soft bounds outside.
    fn pvs(&mut self, player: u64, opponent: u64, mut alpha: i32, beta: i32, empties: u32, stop: &Abort) -> i32 {
        if empties <= SHALLOW_EMPTIES {
            return self.alphabeta_small(player, opponent, alpha, beta, empties);
        }
        self.nodes += 1;
        if stop.is_set() {
            return alpha;
        }
        // 1. Passes and the end of the game.
        let moves = legal_move_mask(player, opponent);
        if moves == 0 {
            if legal_move_mask(opponent, player) == 0 {
                return final_score(player, empties);
            }
            return -self.pvs(opponent, player, -beta, -alpha, empties, stop);
        }
        // 2. Transposition table: bounds narrow the window.
        let key = zobrist_key(player, opponent);
        let mut table_square = NO_SQUARE;
        if let Some(entry) = self.shared.table.probe(key) {
            if entry.lower >= beta {
                return entry.lower;
            }
            if entry.upper <= alpha || entry.lower == entry.upper {
                return entry.upper;
            }
            table_square = entry.best_square;
        }
        let original_alpha = alpha;
        // 3. Sorted moves: full window on the first, null windows and re-searches after. In big
        //    endgames without a table move the midgame search picks the first.
        if table_square == NO_SQUARE
            && let Some((_, square)) = self.midgame_guess(player, opponent, empties)
        {
            table_square = square;
        }
        let mut list = [ScoredMove::default(); 40];
        let count = self.order_moves(player, opponent, moves, table_square, empties, &mut list);
        list[..count].sort_by_key(|mv| -mv.order);
        let mut best = -SCORE_INFINITY;
        let mut best_square = NO_SQUARE;
        for (index, mv) in list[..count].iter().enumerate() {
            // Past the first move, big principal-variation nodes search the others in
            // parallel (without it, the threads starve while the search walks down the PV).
            if index == 1 && self.shared.parallel && empties >= SPLIT_EMPTIES && count > 2 {
                let (score, square) = self.split_pv(player, opponent, alpha, beta, empties, &list[1..count], stop);
                if stop.is_set() {
                    return alpha;
                }
                if score > best {
                    best = score;
                    best_square = square;
                }
                break;
            }
            let child_player = opponent & !mv.flipped;
            let child_opponent = player | mv.flipped | 1u64 << mv.square;
            let score = if index == 0 {
                -self.pvs(child_player, child_opponent, -beta, -alpha, empties - 1, stop)
            } else {
                let probe = -self.nws(child_player, child_opponent, -alpha - 1, empties - 1, stop);
                if probe > alpha && probe < beta {
                    -self.pvs(child_player, child_opponent, -beta, -alpha, empties - 1, stop)
                } else {
                    probe
                }
            };
            if stop.is_set() {
                return alpha;
            }
            if score > best {
                best = score;
                best_square = mv.square;
                if score >= beta {
                    break;
                }
                alpha = alpha.max(score);
            }
        }
        // 4. Store what the window proved.
        let (lower, upper) = if best >= beta {
            (best, 64)
        } else if best <= original_alpha {
            (-64, best)
        } else {
            (best, best)
        };
        let entry = TableEntry { lower, upper, best_square, empties: empties as u8 };
        self.shared.table.store(key, entry);
        best
    }

    /// Plain fail-soft alpha-beta for the few principal-variation nodes with few empties.
    fn alphabeta_small(&mut self, player: u64, opponent: u64, mut alpha: i32, beta: i32, empties: u32) -> i32 {
        self.nodes += 1;
        let moves = legal_move_mask(player, opponent);
        if moves == 0 {
            if legal_move_mask(opponent, player) == 0 {
                return final_score(player, empties);
            }
            return -self.alphabeta_small(opponent, player, -beta, -alpha, empties);
        }
        let mut best = -SCORE_INFINITY;
        let mut remaining = moves;
        while remaining != 0 {
            let square = remaining.trailing_zeros() as usize;
            remaining &= remaining - 1;
            let flipped = flipped_discs(player, opponent, square);
            let score = -self.alphabeta_small(
                opponent & !flipped,
                player | flipped | 1u64 << square,
                -beta,
                -alpha,
                empties - 1,
            );
            if score > best {
                best = score;
                if score >= beta {
                    break;
                }
                alpha = alpha.max(score);
            }
        }
        best
    }

    /// Null-window search: is the score above `alpha`? Returns a fail-soft bound (the exact
    /// score when it lands on `alpha` or `alpha + 1`). Garbage once `stop` is set: callers
    /// check the flag before trusting it.
    fn nws(&mut self, player: u64, opponent: u64, alpha: i32, empties: u32, stop: &Abort) -> i32 {
        if empties <= SHALLOW_EMPTIES {
            let empty_squares = !(player | opponent);
            return self.nws_shallow(player, opponent, alpha, empty_squares, quadrant_parity(empty_squares), empties);
        }
        self.nodes += 1;
        // 1. Stop and abort flags, checked where the subtree is worth it. The table entry
        //    starts loading now, while the stability cutoff and the moves are computed.
        if empties >= ABORT_CHECK_EMPTIES && stop.is_set() {
            return alpha;
        }
        let key = zobrist_key(player, opponent);
        self.shared.table.prefetch(key);
        // 2. Stability cutoff: the opponent's stable discs bound our best score.
        if alpha >= STABILITY_THRESHOLD[empties as usize] {
            let upper = 64 - 2 * stable_discs(opponent, player).count_ones() as i32;
            if upper <= alpha {
                return upper;
            }
        }
        // 3. Passes and the end of the game.
        let moves = legal_move_mask(player, opponent);
        if moves == 0 {
            if legal_move_mask(opponent, player) == 0 {
                return final_score(player, empties);
            }
            return -self.nws(opponent, player, -alpha - 1, empties, stop);
        }
        // 4. Transposition cutoff.
        let mut table_square = NO_SQUARE;
        if let Some(entry) = self.shared.table.probe(key) {
            if entry.lower > alpha {
                return entry.lower;
            }
            if entry.upper <= alpha {
                return entry.upper;
            }
            table_square = entry.best_square;
        }
        // 5. The moves and their flips, not yet scored: scoring costs a look-ahead per move
        //    from SORT_SEARCH_EMPTIES on, which the first two cutoffs below often spare.
        let mut list = [ScoredMove::default(); 40];
        let mut count = list_moves(player, opponent, moves, &mut list);
        let child = |mv: &ScoredMove| (opponent & !mv.flipped, player | mv.flipped | 1u64 << mv.square);
        // 6. Enhanced transposition cutoff: a child already known to score low enough for the
        //    opponent proves the cutoff without searching. The children's entries are all
        //    requested before the first is read, so that their cache misses overlap; smaller
        //    nodes only request them.
        if (PREFETCH_CHILDREN_EMPTIES..ETC_EMPTIES).contains(&empties) {
            for mv in &list[..count] {
                let (child_player, child_opponent) = child(mv);
                self.shared.table.prefetch(zobrist_key(child_player, child_opponent));
            }
        }
        if empties >= ETC_EMPTIES {
            let mut child_keys = [0u64; 40];
            for (mv, child_key) in list[..count].iter().zip(&mut child_keys) {
                let (child_player, child_opponent) = child(mv);
                *child_key = zobrist_key(child_player, child_opponent);
                self.shared.table.prefetch(*child_key);
            }
            for &child_key in &child_keys[..count] {
                if let Some(entry) = self.shared.table.probe(child_key)
                    && -entry.upper > alpha
                {
                    return -entry.upper;
                }
            }
        }
        let mut best = -SCORE_INFINITY;
        let mut best_square = NO_SQUARE;
        'search: {
            // 7. The table's best move alone first: it cuts off most often.
            if let Some(index) = list[..count].iter().position(|mv| mv.square == table_square) {
                let mv = list[index];
                count -= 1;
                list.swap(index, count);
                let (child_player, child_opponent) = child(&mv);
                best = -self.nws(child_player, child_opponent, -alpha - 1, empties - 1, stop);
                best_square = mv.square;
                if best > alpha {
                    break 'search;
                }
            }
            // 8. The others, best first by a lazy selection sort (a cutoff often comes early);
            //    a single move left needs no score.
            if count > 1 {
                self.score_moves(player, opponent, empties, &mut list[..count]);
            }
            let mut searched = 0;
            while searched < count {
                // Young Brothers Wait: once an eldest has not cut off, split the rest.
                if best_square != NO_SQUARE && self.shared.parallel && empties >= SPLIT_EMPTIES && count - searched >= 2
                {
                    list[searched..count].sort_by_key(|mv| -mv.order);
                    let (score, square) = self.split(player, opponent, alpha, empties, &list[searched..count], stop);
                    if score > best {
                        best = score;
                        best_square = square;
                    }
                    break;
                }
                let pick = (searched..count).max_by_key(|&i| list[i].order).unwrap_or(searched);
                list.swap(searched, pick);
                let mv = list[searched];
                searched += 1;
                let (child_player, child_opponent) = child(&mv);
                let score = -self.nws(child_player, child_opponent, -alpha - 1, empties - 1, stop);
                if score > best {
                    best = score;
                    best_square = mv.square;
                    if score > alpha {
                        break;
                    }
                }
            }
        }
        // 9. An aborted subtree proves nothing: store only complete results.
        if empties >= ABORT_CHECK_EMPTIES && stop.is_set() {
            return alpha;
        }
        let (lower, upper) = if best > alpha { (best, 64) } else { (-64, best) };
        let entry = TableEntry { lower, upper, best_square, empties: empties as u8 };
        self.shared.table.store(key, entry);
        best
    }

    /// The later moves of a principal-variation node in parallel: each a null-window probe
    /// against the best score found so far, re-searched with the window when it beats it; a
    /// move reaching `beta` aborts the others. Returns the best score and its square.
    #[allow(clippy::too_many_arguments)]
    fn split_pv(
        &mut self,
        player: u64,
        opponent: u64,
        alpha: i32,
        beta: i32,
        empties: u32,
        moves: &[ScoredMove],
        stop: &Abort,
    ) -> (i32, u8) {
        let cutoff = AtomicBool::new(false);
        let abort = Abort { flag: &cutoff, parent: Some(stop) };
        let best = Mutex::new((-SCORE_INFINITY, NO_SQUARE));
        let best_so_far = AtomicI32::new(alpha);
        in_order_on_idle_threads(self.shared, moves, &abort, |worker, mv| {
            let (child_player, child_opponent) = (opponent & !mv.flipped, player | mv.flipped | 1u64 << mv.square);
            let current = best_so_far.load(Ordering::Relaxed);
            let mut score = -worker.nws(child_player, child_opponent, -current - 1, empties - 1, &abort);
            if score > current && score < beta && !abort.is_set() {
                score = -worker.pvs(child_player, child_opponent, -beta, -current, empties - 1, &abort);
            }
            if abort.is_set() {
                return;
            }
            if score >= beta {
                cutoff.store(true, Ordering::Relaxed);
            }
            let mut best = best.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if score > best.0 {
                *best = (score, mv.square);
                best_so_far.fetch_max(score, Ordering::Relaxed);
            }
        });
        best.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Searches `moves` in parallel against `alpha`; a move proving `> alpha` aborts the
    /// others. Returns the best proven score and its square.
    fn split(
        &mut self,
        player: u64,
        opponent: u64,
        alpha: i32,
        empties: u32,
        moves: &[ScoredMove],
        stop: &Abort,
    ) -> (i32, u8) {
        let cutoff = AtomicBool::new(false);
        let abort = Abort { flag: &cutoff, parent: Some(stop) };
        let best = Mutex::new((-SCORE_INFINITY, NO_SQUARE));
        in_order_on_idle_threads(self.shared, moves, &abort, |worker, mv| {
            let score = -worker.nws(
                opponent & !mv.flipped,
                player | mv.flipped | 1u64 << mv.square,
                -alpha - 1,
                empties - 1,
                &abort,
            );
            if abort.is_set() {
                return;
            }
            if score > alpha {
                cutoff.store(true, Ordering::Relaxed);
            }
            let mut best = best.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if score > best.0 {
                *best = (score, mv.square);
            }
        });
        best.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Null-window search without table or sorting for few empties: empties are tried in odd
    /// quadrants first, by square class within.
    fn nws_shallow(
        &mut self,
        player: u64,
        opponent: u64,
        alpha: i32,
        empty_squares: u64,
        parity: u64,
        empties: u32,
    ) -> i32 {
        match empties {
            0 => return final_score(player, 0),
            1 => {
                self.nodes += 1;
                return solve_last(player, empty_squares.trailing_zeros() as usize, alpha);
            }
            2 => return self.solve_two(player, opponent, alpha, empty_squares),
            3 => return self.solve_three(player, opponent, alpha, empty_squares, parity),
            _ => {}
        }
        self.nodes += 1;
        // Stability cutoff, as in the deep search: the opponent's stable discs bound our score.
        if alpha >= STABILITY_THRESHOLD[empties as usize] {
            let upper = 64 - 2 * stable_discs(opponent, player).count_ones() as i32;
            if upper <= alpha {
                return upper;
            }
        }
        if empties >= SHALLOW_SORT_EMPTIES {
            return self.nws_shallow_sorted(player, opponent, alpha, parity);
        }
        let mut best = -SCORE_INFINITY;
        for parity_group in [parity, !parity] {
            for class in SQUARE_CLASSES {
                let mut candidates = empty_squares & parity_group & class;
                while candidates != 0 {
                    let square = candidates.trailing_zeros() as usize;
                    candidates &= candidates - 1;
                    if NEIGHBOURS[square] & opponent == 0 {
                        continue;
                    }
                    let flipped = flipped_discs(player, opponent, square);
                    if flipped == 0 {
                        continue;
                    }
                    let bit = 1u64 << square;
                    let quadrant = quadrant_of(square);
                    let score = -self.nws_shallow(
                        opponent & !flipped,
                        player | flipped | bit,
                        -alpha - 1,
                        empty_squares & !bit,
                        parity ^ quadrant,
                        empties - 1,
                    );
                    if score > best {
                        if score > alpha {
                            return score;
                        }
                        best = score;
                    }
                }
            }
        }
        if best > -SCORE_INFINITY {
            return best;
        }
        // No move: pass, or the game is over.
        if legal_move_mask(opponent, player) == 0 {
            return final_score(player, empties);
        }
        -self.nws_shallow(opponent, player, -alpha - 1, empty_squares, parity, empties)
    }

    /// [`Worker::nws_shallow`] past its stability cutoff, trying the moves fastest first.
    fn nws_shallow_sorted(&mut self, player: u64, opponent: u64, alpha: i32, parity: u64) -> i32 {
        let empty_squares = !(player | opponent);
        let empties = empty_squares.count_ones();
        let mut moves = legal_move_mask(player, opponent);
        if moves == 0 {
            if legal_move_mask(opponent, player) == 0 {
                return final_score(player, empties);
            }
            return -self.nws_shallow(opponent, player, -alpha - 1, empty_squares, parity, empties);
        }
        // At most SHALLOW_EMPTIES moves.
        let mut list = [ScoredMove::default(); SHALLOW_EMPTIES as usize];
        let mut count = 0;
        while moves != 0 {
            let square = moves.trailing_zeros() as usize;
            moves &= moves - 1;
            let flipped = flipped_discs(player, opponent, square);
            let replies = legal_move_mask(opponent & !flipped, player | flipped | 1u64 << square);
            let mobility = (replies.count_ones() + (replies & CORNERS).count_ones()) as i32;
            let parity_bonus = if parity >> square & 1 == 0 { 0 } else { 8 };
            let order = -(mobility << 4) + parity_bonus + SQUARE_BONUS_BY_SQUARE[square];
            list[count] = ScoredMove { order, square: square as u8, flipped };
            count += 1;
        }
        let mut best = -SCORE_INFINITY;
        for searched in 0..count {
            let pick = (searched..count).max_by_key(|&i| list[i].order).unwrap_or(searched);
            list.swap(searched, pick);
            let ScoredMove { square, flipped, .. } = list[searched];
            let bit = 1u64 << square;
            let score = -self.nws_shallow(
                opponent & !flipped,
                player | flipped | bit,
                -alpha - 1,
                empty_squares & !bit,
                parity ^ quadrant_of(square as usize),
                empties - 1,
            );
            if score > best {
                if score > alpha {
                    return score;
                }
                best = score;
            }
        }
        best
    }

    /// Exact score with three empties: a square alone in its quadrant (odd parity) first.
    fn solve_three(&mut self, player: u64, opponent: u64, alpha: i32, empty_squares: u64, parity: u64) -> i32 {
        self.nodes += 1;
        let mut squares = [0usize; 3];
        let mut count = 0;
        for group in [empty_squares & parity, empty_squares & !parity] {
            let mut remaining = group;
            while remaining != 0 {
                squares[count] = remaining.trailing_zeros() as usize;
                remaining &= remaining - 1;
                count += 1;
            }
        }
        let mut best = -SCORE_INFINITY;
        for square in squares {
            if NEIGHBOURS[square] & opponent == 0 {
                continue;
            }
            let flipped = flipped_discs(player, opponent, square);
            if flipped != 0 {
                let bit = 1u64 << square;
                let score =
                    -self.solve_two(opponent & !flipped, player | flipped | bit, -alpha - 1, empty_squares & !bit);
                if score > alpha {
                    return score;
                }
                best = best.max(score);
            }
        }
        if best > -SCORE_INFINITY {
            return best;
        }
        // The player passes; the opponent moves if it can.
        let mut best = SCORE_INFINITY;
        for square in squares {
            if NEIGHBOURS[square] & player == 0 {
                continue;
            }
            let flipped = flipped_discs(opponent, player, square);
            if flipped != 0 {
                let bit = 1u64 << square;
                let score = self.solve_two(player & !flipped, opponent | flipped | bit, alpha, empty_squares & !bit);
                if score <= alpha {
                    return score;
                }
                best = best.min(score);
            }
        }
        if best < SCORE_INFINITY { best } else { final_score(player, 3) }
    }

    /// Exact score with two empties.
    fn solve_two(&mut self, player: u64, opponent: u64, alpha: i32, empty_squares: u64) -> i32 {
        self.nodes += 1;
        let first = empty_squares.trailing_zeros() as usize;
        let second = 63 - empty_squares.leading_zeros() as usize;
        let mut best = -SCORE_INFINITY;
        for (square, other) in [(first, second), (second, first)] {
            if NEIGHBOURS[square] & opponent == 0 {
                continue;
            }
            let flipped = flipped_discs(player, opponent, square);
            if flipped != 0 {
                self.nodes += 1;
                let score = -solve_last(opponent & !flipped, other, -alpha - 1);
                if score > alpha {
                    return score;
                }
                best = best.max(score);
            }
        }
        if best > -SCORE_INFINITY {
            return best;
        }
        // The player passes; the opponent moves if it can.
        let mut best = SCORE_INFINITY;
        for (square, other) in [(first, second), (second, first)] {
            if NEIGHBOURS[square] & player == 0 {
                continue;
            }
            let flipped = flipped_discs(opponent, player, square);
            if flipped != 0 {
                self.nodes += 1;
                let score = solve_last(player & !flipped, other, alpha);
                if score <= alpha {
                    return score;
                }
                best = best.min(score);
            }
        }
        if best < SCORE_INFINITY { best } else { final_score(player, 2) }
    }
}

/// Searches `moves` (sorted best first) on the calling thread and the pool's idle threads:
/// each takes the next move no one has taken, so a thread that comes free searches the
/// likeliest cutoff left (a thief of a split slice would take its tail, the least likely).
/// No move is handed out once `abort` is set.
fn in_order_on_idle_threads<'a>(
    shared: &'a Shared<'a>,
    moves: &[ScoredMove],
    abort: &Abort,
    search: impl Fn(&mut Worker<'a>, &ScoredMove) + Sync,
) {
    let next = AtomicUsize::new(0);
    let take_moves = || {
        let mut worker = Worker { shared, nodes: 0 };
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            if index >= moves.len() || abort.is_set() {
                break;
            }
            search(&mut worker, &moves[index]);
        }
        worker.flush();
    };
    rayon::scope(|scope| {
        for _ in 1..moves.len().min(rayon::current_num_threads()) {
            scope.spawn(|_| take_moves());
        }
        take_moves();
    });
}

// ---------------------------------------------------------------------------------------------
// FFO test files.

/// One line of an FFO test file: the position and its expected answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FfoProblem {
    /// The position, side to move as given.
    pub position: Reversi,
    /// The exact score for the side to move.
    pub expected_score: i32,
    /// Every best move the file lists.
    pub expected_moves: Vec<ReversiMove>,
}

/// Reads one FFO line: 64 board characters (`a1`..`h8` row by row, `X` black, `O` white, `-`
/// empty), the side to move (`X`|`O`), the exact score (`+18`, `-8`, `+0`) and the best moves
/// separated by commas.
///
/// # Errors
/// A short message naming what is malformed.
pub fn parse_ffo_line(line: &str) -> Result<FfoProblem, String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let [board, side, score, moves] = fields[..] else {
        return Err(format!("expected 4 fields, found {}", fields.len()));
    };
    if board.len() != 64 {
        return Err(format!("board has {} characters, not 64", board.len()));
    }
    let (mut black, mut white) = (0u64, 0u64);
    for (index, character) in board.bytes().enumerate() {
        match character {
            b'X' | b'x' | b'*' => black |= 1 << index,
            b'O' | b'o' => white |= 1 << index,
            b'-' | b'.' => {}
            other => return Err(format!("unexpected board character {:?}", other as char)),
        }
    }
    let to_move = match side {
        "X" | "x" | "*" => Color::Black,
        "O" | "o" => Color::White,
        other => return Err(format!("side to move {other:?} is not X or O")),
    };
    let position = Reversi::from_bitboards(black, white, to_move).ok_or("overlapping discs")?;
    let expected_score: i32 =
        score.trim_start_matches('+').parse().map_err(|_| format!("score {score:?} is not a number"))?;
    let expected_moves = moves
        .split(',')
        .map(|text| position.parse_move(text).map_err(|_| format!("move {text:?} is not a square")))
        .collect::<Result<Vec<_>, _>>()?;
    // A quick sanity check that the best-move squares are empty (the square parser accepts
    // any a1..h8).
    if expected_moves.iter().any(|mv| mv.index().is_some_and(|index| (black | white) >> index & 1 != 0)) {
        return Err("a listed best move is on an occupied square".to_string());
    }
    Ok(FfoProblem { position, expected_score, expected_moves })
}

/// Totals of a batch run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BatchSummary {
    /// Lines solved.
    pub solved: usize,
    /// Lines whose score differs from the expected one, or whose move is not a listed best move.
    pub mismatches: usize,
    /// Lines that could not be read (reported, skipped).
    pub malformed: usize,
    /// Lines not finished because the stop flag was set.
    pub stopped: usize,
    /// Positions visited, all lines.
    pub nodes: u64,
    /// Wall time, all lines.
    pub seconds: f64,
}

/// Solves every problem of an FFO test file (text as in `../shared/data/reversi/ffo*.txt`)
/// and writes one line per problem: number, score, best move, nodes, seconds, with `MISMATCH`
/// when the score differs from the expected one (or the move is not a listed best move), then a
/// total line. Problems are numbered from the `#N-` of the first comment line that has one
/// (`positions #40-#59`), else from 1. Lines starting with `#` and blank lines are comments.
///
/// Never panics on malformed text: a bad line is reported as such and skipped.
///
/// # Errors
/// Only the errors of writing to `out`.
pub fn solve_ffo_file(text: &str, options: &SolveOptions, out: &mut impl Write) -> io::Result<BatchSummary> {
    let mut number = first_problem_number(text);
    let mut summary = BatchSummary::default();
    let whole = Instant::now();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let label = format!("#{number}");
        number += 1;
        let problem = match parse_ffo_line(line) {
            Ok(problem) => problem,
            Err(why) => {
                summary.malformed += 1;
                writeln!(out, "{label:<4} malformed line: {why}")?;
                continue;
            }
        };
        let started = Instant::now();
        let Some(result) = solve_endgame(&problem.position, options) else {
            summary.stopped += 1;
            writeln!(out, "{label:<4} stopped")?;
            continue;
        };
        let seconds = started.elapsed().as_secs_f64();
        summary.solved += 1;
        summary.nodes += result.nodes;
        let move_text = result.best_move.map_or("--".to_string(), |mv| problem.position.format_move(mv));
        let score_ok = result.score == problem.expected_score;
        let move_ok = result.best_move.is_none_or(|mv| problem.expected_moves.contains(&mv));
        let verdict = match (score_ok, move_ok) {
            (true, true) => String::new(),
            (false, _) => format!("  MISMATCH (expected {:+})", problem.expected_score),
            (true, false) => "  MISMATCH (move not listed)".to_string(),
        };
        if !verdict.is_empty() {
            summary.mismatches += 1;
        }
        writeln!(
            out,
            "{label:<4} {:+3} {move_text:<4} {:>14} nodes {seconds:>9.3} s {:>7.2} Mn/s{verdict}",
            result.score,
            result.nodes,
            result.nodes as f64 / seconds.max(1e-9) / 1e6
        )?;
    }
    summary.seconds = whole.elapsed().as_secs_f64();
    writeln!(
        out,
        "total: {} solved, {} mismatches, {} malformed, {} stopped, {} nodes, {:.3} s, {:.2} Mn/s",
        summary.solved,
        summary.mismatches,
        summary.malformed,
        summary.stopped,
        summary.nodes,
        summary.seconds,
        summary.nodes as f64 / summary.seconds.max(1e-9) / 1e6
    )?;
    Ok(summary)
}

/// The `N` of the first `#N-` in a comment line, else 1.
fn first_problem_number(text: &str) -> usize {
    text.lines()
        .filter(|line| line.trim_start().starts_with('#'))
        .find_map(|line| {
            let (_, after) = line.split_once(" #")?;
            let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
            after[digits.len()..].starts_with('-').then(|| digits.parse().ok()).flatten()
        })
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::reversi::ReversiConfig;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    const FFO_1_19: &str = include_str!("../../tests/data/reversi/ffo1-19.txt");

    /// Plain negamax over the public game API, no pruning: the reference.
    fn minimax(position: &Reversi) -> i32 {
        if position.outcome().is_some() {
            let margin = position.final_margin_for_black();
            return if position.to_move() == Color::Black { margin } else { -margin };
        }
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        moves
            .iter()
            .map(|&mv| {
                let mut child = position.clone();
                child.play_unchecked(mv);
                -minimax(&child)
            })
            .max()
            .expect("a running game has a move")
    }

    /// A position reached by random play with `empties` empty squares, game not over.
    fn random_position(rng: &mut SmallRng, empties: u32) -> Reversi {
        loop {
            let mut position = Reversi::new(&ReversiConfig);
            let mut moves = Vec::new();
            while position.outcome().is_none() && position.empty_squares().count_ones() > empties {
                moves.clear();
                position.legal_moves(&mut moves);
                position.play_unchecked(moves[rng.random_range(0..moves.len())]);
            }
            if position.outcome().is_none() && position.empty_squares().count_ones() == empties {
                return position;
            }
        }
    }

    fn solve(position: &Reversi, threads: usize) -> EndgameResult {
        let options = SolveOptions { threads, table_bits: 16, stop: None };
        solve_endgame(position, &options).expect("not stopped")
    }

    /// Runs `run` with what a test needs to drive a [`Worker`] directly: a small table shared
    /// without the evaluation (threads split when `parallel`) and a stop flag never set.
    fn with_worker_context<R>(parallel: bool, run: impl FnOnce(&Shared, &Abort) -> R) -> R {
        let table = TranspositionTable::new(16);
        let shared = Shared { table: &table, nodes: AtomicU64::new(0), parallel, evaluator: None };
        let never = AtomicBool::new(false);
        run(&shared, &Abort { flag: &never, parent: None })
    }

    /// The score after playing `mv`, from the mover's side, by the solver itself.
    fn score_after(position: &Reversi, mv: ReversiMove) -> i32 {
        let mut child = position.clone();
        child.play(mv).expect("a legal best move");
        if child.outcome().is_some() {
            let margin = child.final_margin_for_black();
            return if position.to_move() == Color::Black { margin } else { -margin };
        }
        -solve(&child, 1).score
    }

    #[test]
    fn solver_agrees_with_minimax_on_random_positions() {
        let mut rng = SmallRng::seed_from_u64(3);
        for round in 0..300 {
            let empties = 1 + round % 8;
            let position = random_position(&mut rng, empties);
            let exact = minimax(&position);
            let result = solve(&position, 1);
            assert_eq!(result.score, exact, "{}", position.board_text());
            let best = result.best_move.expect("a running game has a best move");
            assert_eq!(score_after(&position, best), exact, "{}", position.board_text());
        }
    }

    #[test]
    fn deep_search_agrees_with_the_shallow_one_and_threads_agree() {
        // 9 to 14 empties exercise the table, sorting, stability and the parallel split; each
        // root move's value is checked by solving the child (which recurses into the shallow
        // code proven against minimax above).
        let mut rng = SmallRng::seed_from_u64(8);
        for round in 0..24 {
            let empties = 9 + round % 6;
            let position = random_position(&mut rng, empties);
            let serial = solve(&position, 1);
            let parallel = solve(&position, 2);
            let many = solve(&position, 4);
            assert_eq!(serial.score, parallel.score);
            assert_eq!(serial.score, many.score);
            assert_eq!(score_after(&position, many.best_move.unwrap()), serial.score);
            let mut moves = Vec::new();
            position.legal_moves(&mut moves);
            let best_by_children = moves.iter().map(|&mv| score_after(&position, mv)).max();
            assert_eq!(Some(serial.score), best_by_children);
            assert_eq!(score_after(&position, serial.best_move.unwrap()), serial.score);
            assert_eq!(score_after(&position, parallel.best_move.unwrap()), serial.score);
        }
    }

    #[test]
    fn parallel_principal_variation_split_keeps_the_window_contract() {
        // split_pv on four threads against every kind of window: a score at or above beta is a
        // move reaching it, a score at or below alpha means no move beats alpha, and a score
        // inside is the exact best with a move that reaches it.
        let mut rng = SmallRng::seed_from_u64(21);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
        with_worker_context(true, |shared, stop| {
            let mut checked = 0;
            while checked < 8 {
                let position = random_position(&mut rng, 13);
                let (player, opponent) = (position.player_discs(), position.opponent_discs());
                let mut list = [ScoredMove::default(); 40];
                let count = list_moves(player, opponent, legal_move_mask(player, opponent), &mut list);
                if count < 3 {
                    continue;
                }
                checked += 1;
                let value_of = |square: u8| score_after(&position, ReversiMove::square(square as usize));
                let best_value = list[..count].iter().map(|mv| value_of(mv.square)).max().unwrap();
                for (alpha, beta) in
                    [(best_value - 1, best_value + 1), (best_value + 1, 65), (-65, best_value - 1), (-65, 65)]
                {
                    let (score, square) = pool.install(|| {
                        let mut worker = Worker { shared, nodes: 0 };
                        worker.split_pv(player, opponent, alpha, beta, 13, &list[..count], stop)
                    });
                    if score >= beta {
                        assert!(value_of(square) >= beta, "window ({alpha}, {beta}): {score} at {square}");
                    } else if score <= alpha {
                        assert!(best_value <= alpha, "window ({alpha}, {beta}): {score}, best {best_value}");
                    } else {
                        assert_eq!(score, best_value, "window ({alpha}, {beta})");
                        assert_eq!(value_of(square), best_value);
                    }
                }
            }
        });
    }

    #[test]
    fn aspiration_from_any_guess_finds_the_exact_score() {
        // Guesses far off on either side, and near: every fail-low and fail-high re-search path.
        let mut rng = SmallRng::seed_from_u64(13);
        with_worker_context(false, |shared, stop| {
            for round in 0..12 {
                let position = random_position(&mut rng, 10 + round % 4);
                let (player, opponent) = (position.player_discs(), position.opponent_discs());
                let moves = legal_move_mask(player, opponent);
                if moves == 0 {
                    continue;
                }
                let exact = solve(&position, 1).score;
                for guess in [-64, -20, exact - 2, exact, exact + 2, 20, 64] {
                    let mut worker = Worker { shared, nodes: 0 };
                    let mut list = [ScoredMove::default(); 40];
                    let empties = position.empty_squares().count_ones();
                    let count = worker.order_moves(player, opponent, moves, NO_SQUARE, empties, &mut list);
                    let (score, square) =
                        worker.aspiration_search(player, opponent, &mut list[..count], Some(guess), empties, stop);
                    assert_eq!(score, exact, "guess {guess}: {}", position.board_text());
                    assert_eq!(score_after(&position, ReversiMove::square(square as usize)), exact);
                }
            }
        });
    }

    #[test]
    fn last_flip_counts_agree_with_full_flips() {
        let mut rng = SmallRng::seed_from_u64(5);
        for _ in 0..20_000 {
            let square = rng.random_range(0..64);
            let player = rng.random::<u64>() & !(1u64 << square);
            let opponent = !(player | 1u64 << square);
            let expected = flipped_discs(player, opponent, square).count_ones() as i32;
            assert_eq!(count_last_flips(player, square), expected, "{player:#x} {square}");
        }
    }

    #[test]
    fn finished_games_and_forced_passes() {
        // Black a1, b1; White c1... nobody to outflank for Black; White cannot move either.
        let over = Reversi::from_bitboards(0b11, 1 << 63, Color::White).unwrap();
        let result = solve(&over, 1);
        assert_eq!(result, EndgameResult { score: -62, best_move: None, nodes: 1 });
        // Black b1, c1; White a1: Black must pass, White d1 wipes Black out.
        let pass = Reversi::from_bitboards(0b110, 0b1, Color::Black).unwrap();
        let result = solve(&pass, 1);
        assert_eq!(result.score, -64);
        assert_eq!(result.best_move, Some(ReversiMove::PASS));
    }

    #[test]
    fn stop_flag_returns_none() {
        let stop = AtomicBool::new(true);
        let problem = parse_ffo_line(FFO_1_19.lines().find(|l| !l.starts_with('#')).unwrap()).unwrap();
        let options = SolveOptions { threads: 1, table_bits: 16, stop: Some(&stop) };
        assert_eq!(solve_endgame(&problem.position, &options), None);
    }

    #[test]
    fn bytes_and_columns_convert_both_ways() {
        for byte in 0..=255u8 {
            let column = byte_to_column(byte);
            assert_eq!(column & !0x0101_0101_0101_0101, 0, "{byte:#x}");
            assert_eq!(column.count_ones(), byte.count_ones(), "{byte:#x}");
            assert_eq!(column_to_byte(column), byte as usize, "{byte:#x}");
            // Any column, not just a: shifted back, the other columns' bits are ignored.
            assert_eq!(column_to_byte((column << 5 | 0x4242_4242_4242_4242) >> 5), byte as usize);
        }
    }

    #[test]
    fn full_diagonals_by_shifts_agree_with_the_diagonal_masks() {
        let mut rng = SmallRng::seed_from_u64(34);
        for _ in 0..20_000 {
            // Dense boards (7 squares in 8 filled), so that full diagonals are common.
            let filled = rng.random::<u64>() | rng.random::<u64>() | rng.random::<u64>();
            let by_masks = |diagonals: &[u64; 15]| {
                diagonals.iter().filter(|&&line| filled & line == line).fold(0, |full, &line| full | line)
            };
            assert_eq!(full_diagonals(filled, 9, &LEAVES_A1_H8), by_masks(&DIAGONALS_A1_H8), "{filled:#x}");
            assert_eq!(full_diagonals(filled, 7, &LEAVES_H1_A8), by_masks(&DIAGONALS_H1_A8), "{filled:#x}");
        }
    }

    #[test]
    fn stable_discs_are_never_flipped_in_random_games() {
        let mut rng = SmallRng::seed_from_u64(21);
        let mut moves = Vec::new();
        for _ in 0..200 {
            let mut position = Reversi::new(&ReversiConfig);
            while position.outcome().is_none() {
                let mover = position.to_move();
                let stable = [
                    stable_discs(position.discs(mover), position.discs(mover.opponent())),
                    stable_discs(position.discs(mover.opponent()), position.discs(mover)),
                ];
                moves.clear();
                position.legal_moves(&mut moves);
                position.play_unchecked(moves[rng.random_range(0..moves.len())]);
                assert_eq!(position.discs(mover) & stable[0], stable[0]);
                assert_eq!(position.discs(mover.opponent()) & stable[1], stable[1]);
            }
        }
        // A full board is stable everywhere.
        assert_eq!(stable_discs(0x00ff_00ff_00ff_00ff, !0x00ff_00ff_00ff_00ff), 0x00ff_00ff_00ff_00ff);
    }

    #[test]
    fn ffo_lines_parse_and_malformed_ones_are_reported() {
        let problems: Vec<FfoProblem> =
            FFO_1_19.lines().filter(|l| !l.starts_with('#')).map(|l| parse_ffo_line(l).unwrap()).collect();
        assert_eq!(problems.len(), 19);
        assert_eq!(problems[0].expected_score, 18);
        assert_eq!(problems[0].position.format_move(problems[0].expected_moves[0]), "g8");
        assert_eq!(problems[8].position.to_move(), Color::White);
        assert_eq!(problems[8].expected_moves.len(), 2);
        for bad in
            ["", "XO", &"-".repeat(64), &format!("{} X +2 zz", "-".repeat(64)), &format!("{} Y +2 a1", "-".repeat(64))]
        {
            assert!(parse_ffo_line(bad).is_err(), "{bad:?}");
        }
        let text = "# positions #7-#8\nnot a line\n\n".to_string() + &"é".repeat(70);
        let mut out = Vec::new();
        let summary = solve_ffo_file(&text, &SolveOptions::default(), &mut out).unwrap();
        assert_eq!(summary.malformed, 2);
        let out = String::from_utf8(out).unwrap();
        assert!(out.starts_with("#7   malformed"), "{out}");
        assert!(out.contains("#8   malformed"), "{out}");
    }

    #[test]
    fn ffo_1_to_19_scores_and_best_moves() {
        // Known exact answers of the FFO suite (see tests/data/reversi/README.md). A move
        // outside the listed ones would still be right if it reaches the same score, so such a
        // move is checked by solving the position after it.
        for (index, line) in FFO_1_19.lines().filter(|l| !l.starts_with('#')).enumerate() {
            let problem = parse_ffo_line(line).unwrap();
            let options = SolveOptions { threads: 2, table_bits: 20, stop: None };
            let result = solve_endgame(&problem.position, &options).unwrap();
            assert_eq!(result.score, problem.expected_score, "FFO #{}", index + 1);
            let best = result.best_move.unwrap();
            if !problem.expected_moves.contains(&best) {
                assert_eq!(score_after(&problem.position, best), problem.expected_score, "FFO #{}", index + 1);
            }
        }
    }

    /// Prints a batch run of an FFO file from the shared data set; no assertion on time.
    /// `PONDER_FFO` (default `/work/shared/data/reversi/ffo40-59.txt`), `PONDER_FFO_LINES`
    /// (how many problems, default 10), `PONDER_THREADS` (default 1).
    #[test]
    #[ignore = "a benchmark: minutes of CPU; run by hand with --ignored --nocapture"]
    fn benchmark_ffo_file() {
        let path = std::env::var("PONDER_FFO").unwrap_or("/work/shared/data/reversi/ffo40-59.txt".to_string());
        let Ok(text) = std::fs::read_to_string(&path) else {
            println!("{path} not found: nothing to measure");
            return;
        };
        let lines: usize = std::env::var("PONDER_FFO_LINES").ok().and_then(|n| n.parse().ok()).unwrap_or(10);
        let threads: usize = std::env::var("PONDER_THREADS").ok().and_then(|n| n.parse().ok()).unwrap_or(1);
        let mut kept = 0;
        let text: String = text
            .lines()
            .filter(|line| {
                let problem = !line.starts_with('#') && !line.trim().is_empty();
                kept += usize::from(problem);
                !problem || kept <= lines
            })
            .map(|line| format!("{line}\n"))
            .collect();
        let options = SolveOptions { threads, ..SolveOptions::default() };
        println!("{path}: {lines} problems, {threads} thread(s)");
        let summary = solve_ffo_file(&text, &options, &mut std::io::stdout()).unwrap();
        assert_eq!(summary.mismatches, 0);
    }
}
