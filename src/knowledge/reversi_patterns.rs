//! The board patterns of the Reversi evaluation, in the tradition of Logistello, NTest and Edax.
//!
//! A pattern is an ordered list of squares; a configuration of it reads each square as empty
//! (0), a disc of the side to move (1) or of the opponent (2) and forms the base-3 number with
//! the first square as the lowest digit. Every base pattern below is placed on the board in all
//! eight images under the board's symmetries (rotations and reflections), and the eight images
//! share one weight table. An image that covers the same squares as another in a different order
//! (the edge read from either end) is kept as well: the sum over all eight images then maps onto
//! itself under every symmetry, so the evaluation of a position equals that of its symmetric
//! images by construction, whatever the weights.
//!
//! Besides the patterns the evaluation has a few numeric features ([`NUMERIC_FEATURES`]):
//! a constant, the mobility of each side and the parity of the empties.

use crate::games::reversi::legal_move_mask;

/// A base pattern: its name and squares as `(column, row)` with `a1` = (0, 0).
pub struct BasePattern {
    pub name: &'static str,
    pub squares: &'static [(u8, u8)],
}

/// The base patterns, each with its eight images on the board.
pub const BASE_PATTERNS: [BasePattern; 11] = [
    BasePattern {
        name: "corner3x3",
        squares: &[(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1), (0, 2), (1, 2), (2, 2)],
    },
    BasePattern {
        name: "corner2x5",
        squares: &[(0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (0, 1), (1, 1), (2, 1), (3, 1), (4, 1)],
    },
    BasePattern {
        name: "edge+2x",
        squares: &[(0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (6, 0), (7, 0), (1, 1), (6, 1)],
    },
    BasePattern { name: "row2", squares: &[(0, 1), (1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (6, 1), (7, 1)] },
    BasePattern { name: "row3", squares: &[(0, 2), (1, 2), (2, 2), (3, 2), (4, 2), (5, 2), (6, 2), (7, 2)] },
    BasePattern { name: "row4", squares: &[(0, 3), (1, 3), (2, 3), (3, 3), (4, 3), (5, 3), (6, 3), (7, 3)] },
    BasePattern { name: "diagonal8", squares: &[(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, 7)] },
    BasePattern { name: "diagonal7", squares: &[(1, 0), (2, 1), (3, 2), (4, 3), (5, 4), (6, 5), (7, 6)] },
    BasePattern { name: "diagonal6", squares: &[(2, 0), (3, 1), (4, 2), (5, 3), (6, 4), (7, 5)] },
    BasePattern { name: "diagonal5", squares: &[(3, 0), (4, 1), (5, 2), (6, 3), (7, 4)] },
    BasePattern { name: "diagonal4", squares: &[(4, 0), (5, 1), (6, 2), (7, 3)] },
];

/// Number of weight tables: one per base pattern.
pub const PATTERN_COUNT: usize = BASE_PATTERNS.len();

/// Images of each base pattern on the board.
pub const IMAGES: usize = 8;

/// Pattern instances on the board: every image of every base pattern.
pub const INSTANCES: usize = PATTERN_COUNT * IMAGES;

/// The numeric features, in weight order: constant, mobility of the side to move, mobility of
/// the opponent, parity (1 when the number of empties is odd).
pub const NUMERIC_FEATURES: usize = 4;

/// The feature set's name, written into weights files so that a file made for other features
/// is refused.
pub const FEATURE_SET: &str = "reversi-patterns-1: corner3x3 corner2x5 edge+2x row2-4 diagonal4-8 x8 images; \
                               constant mobility parity";

/// The size of each base pattern's weight table: 3 to the power of its squares.
pub const fn table_size(pattern: usize) -> usize {
    3usize.pow(BASE_PATTERNS[pattern].squares.len() as u32)
}

/// The eight symmetries of the board as maps of (column, row).
const fn symmetric_square(symmetry: usize, column: u8, row: u8) -> (u8, u8) {
    let (column, row) = if symmetry & 4 != 0 { (row, column) } else { (column, row) };
    let column = if symmetry & 1 != 0 { 7 - column } else { column };
    let row = if symmetry & 2 != 0 { 7 - row } else { row };
    (column, row)
}

/// Square index (`8 * row + column`) of square `position` of image `symmetry` of `pattern`.
pub const fn instance_square(pattern: usize, symmetry: usize, position: usize) -> usize {
    let (column, row) = BASE_PATTERNS[pattern].squares[position];
    let (column, row) = symmetric_square(symmetry, column, row);
    row as usize * 8 + column as usize
}

/// `TERNARY[bits]`: the base-3 number whose digit `j` is bit `j` of `bits`, so that a pattern
/// whose squares were gathered into bits in pattern order has the index
/// `TERNARY[player] + 2 * TERNARY[opponent]`. Ten bits: the largest pattern has ten squares.
const TERNARY: [u16; 1024] = build_ternary();

const fn build_ternary() -> [u16; 1024] {
    let mut table = [0u16; 1024];
    let mut bits = 0;
    while bits < 1024 {
        let (mut value, mut power, mut bit) = (0u16, 1u16, 0);
        while bit < 10 {
            if bits >> bit & 1 != 0 {
                value += power;
            }
            power = power.wrapping_mul(3);
            bit += 1;
        }
        table[bits] = value;
        bits += 1;
    }
    table
}

/// The configuration index of every instance for the side to move's discs `player` and the
/// opponent's `opponent`: instance `pattern * IMAGES + symmetry`.
///
/// Why not square by square: this is most of the midgame search's time. Each image of a
/// pattern is read at the base pattern's own squares of the board pulled back by the image's
/// symmetry, where each base pattern is a few shifts and masks (and one multiplication for a
/// diagonal) away from its bits in pattern order.
pub fn instance_indices(player: u64, opponent: u64) -> [u32; INSTANCES] {
    let players = pulled_back_images(player);
    let opponents = pulled_back_images(opponent);
    let mut indices = [0u32; INSTANCES];
    for symmetry in 0..IMAGES {
        let player_bits = base_pattern_bits(players[symmetry]);
        let opponent_bits = base_pattern_bits(opponents[symmetry]);
        for pattern in 0..PATTERN_COUNT {
            indices[pattern * IMAGES + symmetry] = u32::from(TERNARY[player_bits[pattern] as usize])
                + 2 * u32::from(TERNARY[opponent_bits[pattern] as usize]);
        }
    }
    indices
}

/// One image of each group of images that read the same squares (in another order): the
/// instances an evaluation with folded tables reads ([`ImageGroup`]), as (pattern, symmetry).
/// An edge read from either end, or a corner block across its diagonal, is one group; 46
/// instances in all, against [`INSTANCES`].
pub fn image_groups() -> &'static [ImageGroup] {
    static GROUPS: std::sync::OnceLock<Vec<ImageGroup>> = std::sync::OnceLock::new();
    GROUPS.get_or_init(build_image_groups)
}

/// Images of one pattern reading the same squares: the image `symmetry` is read, and each
/// member's index follows from its index (see [`ImageGroup::member_index`]).
#[derive(Clone, Debug)]
pub struct ImageGroup {
    pub pattern: usize,
    pub symmetry: usize,
    /// The members' symmetries, the representative first.
    pub members: Vec<usize>,
    /// For each member, the position in the member's reading of the square at each position
    /// of the representative's reading.
    pub digit_moves: Vec<Vec<usize>>,
}

impl ImageGroup {
    /// The index of member `member` in the configuration whose representative index is `index`.
    pub fn member_index(&self, member: usize, index: u32) -> u32 {
        let mut rest = index;
        let mut moved = 0;
        for &position in &self.digit_moves[member] {
            moved += (rest % 3) * 3u32.pow(position as u32);
            rest /= 3;
        }
        moved
    }
}

fn build_image_groups() -> Vec<ImageGroup> {
    let mut groups = Vec::new();
    for (pattern, base) in BASE_PATTERNS.iter().enumerate() {
        let length = base.squares.len();
        let reading = |symmetry: usize| -> Vec<usize> {
            (0..length).map(|position| instance_square(pattern, symmetry, position)).collect()
        };
        let mut grouped = [false; IMAGES];
        for symmetry in 0..IMAGES {
            if grouped[symmetry] {
                continue;
            }
            let squares = reading(symmetry);
            let mut sorted = squares.clone();
            sorted.sort_unstable();
            let (mut members, mut digit_moves) = (Vec::new(), Vec::new());
            for (member, member_grouped) in grouped.iter_mut().enumerate().skip(symmetry) {
                let member_squares = reading(member);
                let mut member_sorted = member_squares.clone();
                member_sorted.sort_unstable();
                if *member_grouped || member_sorted != sorted {
                    continue;
                }
                *member_grouped = true;
                let moves = squares
                    .iter()
                    .map(|square| member_squares.iter().position(|s| s == square).expect("same squares"))
                    .collect();
                members.push(member);
                digit_moves.push(moves);
            }
            groups.push(ImageGroup { pattern, symmetry, members, digit_moves });
        }
    }
    groups
}

/// The representatives of [`image_groups`] as (pattern, symmetry), by symmetry: a constant, so
/// that [`representative_indices`] compiles to straight-line code (a test checks it against
/// the groups).
pub const REPRESENTATIVES: [(usize, usize); 46] = [
    (0, 0),
    (1, 0),
    (2, 0),
    (3, 0),
    (4, 0),
    (5, 0),
    (6, 0),
    (7, 0),
    (8, 0),
    (9, 0),
    (10, 0),
    (0, 1),
    (1, 1),
    (6, 1),
    (7, 1),
    (8, 1),
    (9, 1),
    (10, 1),
    (0, 2),
    (1, 2),
    (2, 2),
    (3, 2),
    (4, 2),
    (5, 2),
    (7, 2),
    (8, 2),
    (9, 2),
    (10, 2),
    (0, 3),
    (1, 3),
    (7, 3),
    (8, 3),
    (9, 3),
    (10, 3),
    (1, 4),
    (2, 4),
    (3, 4),
    (4, 4),
    (5, 4),
    (1, 5),
    (2, 5),
    (3, 5),
    (4, 5),
    (5, 5),
    (1, 6),
    (1, 7),
];

/// The configuration index of each of [`REPRESENTATIVES`], in that order.
#[inline]
pub fn representative_indices(player: u64, opponent: u64) -> [u32; REPRESENTATIVES.len()] {
    let players = pulled_back_images(player);
    let opponents = pulled_back_images(opponent);
    let mut indices = [0u32; REPRESENTATIVES.len()];
    for (slot, &(pattern, symmetry)) in indices.iter_mut().zip(&REPRESENTATIVES) {
        let player_bits = pattern_bits(pattern, players[symmetry]);
        let opponent_bits = pattern_bits(pattern, opponents[symmetry]);
        *slot = u32::from(TERNARY[player_bits as usize]) + 2 * u32::from(TERNARY[opponent_bits as usize]);
    }
    indices
}

/// Lanes of an [`IndexVector`]: the [`REPRESENTATIVES`] padded to a multiple of eight, so
/// that adding two vectors compiles to whole SIMD instructions.
pub const INDEX_LANES: usize = 48;

/// The configuration index of each of [`REPRESENTATIVES`] (lanes beyond them stay 0).
pub type IndexVector = [u16; INDEX_LANES];

/// `SQUARE_POWERS[square][lane]`: the power of 3 of `square`'s digit in representative
/// `lane`'s index, 0 where the representative does not read the square. A disc of the side
/// whose view it is adds it once, one of the other side twice.
const SQUARE_POWERS: [IndexVector; 64] = build_square_powers();

const fn build_square_powers() -> [IndexVector; 64] {
    let mut powers = [[0u16; INDEX_LANES]; 64];
    let mut lane = 0;
    while lane < REPRESENTATIVES.len() {
        let (pattern, symmetry) = REPRESENTATIVES[lane];
        let mut position = 0;
        let mut power = 1u16;
        while position < BASE_PATTERNS[pattern].squares.len() {
            powers[instance_square(pattern, symmetry, position)][lane] = power;
            power *= 3;
            position += 1;
        }
        lane += 1;
    }
    powers
}

/// The representatives' indices of a position from both sides' views, kept up to date move by
/// move as Edax does: a move changes only the few indices that read the squares it fills and
/// flips, which costs a few vector additions instead of reading every pattern anew (the
/// reading was about half of the midgame search's time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PatternViews {
    /// The side to move's discs as 1, the opponent's as 2: what the evaluation reads.
    pub player: IndexVector,
    /// The same position with the roles exchanged: the side to move's view after a pass or a
    /// move.
    pub opponent: IndexVector,
}

impl PatternViews {
    /// Both views of the side to move's discs `player` against `opponent`, read in full.
    pub fn new(player: u64, opponent: u64) -> PatternViews {
        PatternViews { player: index_vector(player, opponent), opponent: index_vector(opponent, player) }
    }

    /// The views after the side to move places a disc on `square` and flips `flipped`, from the
    /// new side to move's (the opponent's) view.
    #[inline]
    pub fn after_move(&self, square: usize, flipped: u64) -> PatternViews {
        let (mut mover, mut waiting) = (self.player, self.opponent);
        // The placed disc: digit 0 to 1 in the mover's view, 0 to 2 in the other.
        add_lanes(&mut mover, &SQUARE_POWERS[square], 1);
        add_lanes(&mut waiting, &SQUARE_POWERS[square], 2);
        // Each flipped disc: 2 to 1 in the mover's view, 1 to 2 in the other.
        let mut remaining = flipped;
        while remaining != 0 {
            let powers = &SQUARE_POWERS[remaining.trailing_zeros() as usize];
            subtract_lanes(&mut mover, powers);
            add_lanes(&mut waiting, powers, 1);
            remaining &= remaining - 1;
        }
        PatternViews { player: waiting, opponent: mover }
    }

    /// The views after a pass: the same position, the other side to move.
    pub fn after_pass(&self) -> PatternViews {
        PatternViews { player: self.opponent, opponent: self.player }
    }
}

fn index_vector(player: u64, opponent: u64) -> IndexVector {
    let mut vector = [0u16; INDEX_LANES];
    for (lane, index) in vector.iter_mut().zip(representative_indices(player, opponent)) {
        *lane = index as u16;
    }
    vector
}

#[inline(always)]
fn add_lanes(vector: &mut IndexVector, powers: &IndexVector, times: u16) {
    for (lane, power) in vector.iter_mut().zip(powers) {
        *lane = lane.wrapping_add(power.wrapping_mul(times));
    }
}

#[inline(always)]
fn subtract_lanes(vector: &mut IndexVector, powers: &IndexVector) {
    for (lane, power) in vector.iter_mut().zip(powers) {
        *lane = lane.wrapping_sub(*power);
    }
}

/// For each symmetry `s`, the bitboard whose square `p` holds what `discs` holds at
/// `symmetric_square(s, p)`: reading a base pattern's squares on it reads image `s`.
fn pulled_back_images(discs: u64) -> [u64; IMAGES] {
    // symmetric_square transposes (s & 4), then mirrors the columns (s & 1), then the rows
    // (s & 2); pulling back applies the same maps in the reverse order.
    let mut images = [0u64; IMAGES];
    for (symmetry, slot) in images.iter_mut().enumerate() {
        let mut image = discs;
        if symmetry & 2 != 0 {
            image = image.swap_bytes();
        }
        if symmetry & 1 != 0 {
            image = mirror_columns(image);
        }
        if symmetry & 4 != 0 {
            image = transpose(image);
        }
        *slot = image;
    }
    images
}

/// Column `c` to column `7 - c`: the bits of each byte reversed.
fn mirror_columns(mut board: u64) -> u64 {
    board = (board >> 1 & 0x5555_5555_5555_5555) | (board & 0x5555_5555_5555_5555) << 1;
    board = (board >> 2 & 0x3333_3333_3333_3333) | (board & 0x3333_3333_3333_3333) << 2;
    (board >> 4 & 0x0f0f_0f0f_0f0f_0f0f) | (board & 0x0f0f_0f0f_0f0f_0f0f) << 4
}

/// Square (column, row) to (row, column): three rounds of block swaps across the a1-h8
/// diagonal.
fn transpose(mut board: u64) -> u64 {
    let mut swap = 0x0f0f_0f0f_0000_0000 & (board ^ board << 28);
    board ^= swap ^ swap >> 28;
    swap = 0x3333_0000_3333_0000 & (board ^ board << 14);
    board ^= swap ^ swap >> 14;
    swap = 0x5500_5500_5500_5500 & (board ^ board << 7);
    board ^ swap ^ swap >> 7
}

/// The squares of each base pattern at its base place, as bits in pattern order (the order of
/// [`BASE_PATTERNS`]; a test checks it against a square-by-square reading).
fn base_pattern_bits(board: u64) -> [u32; PATTERN_COUNT] {
    std::array::from_fn(|pattern| pattern_bits(pattern, board))
}

/// The squares of base pattern `pattern` at its base place on `board`, as bits in pattern order.
#[inline(always)]
fn pattern_bits(pattern: usize, board: u64) -> u32 {
    // A diagonal running up and to the right from row 0 has one square per byte, at bit
    // (row + offset) of byte `row`: the multiplication adds all bytes into the top one.
    let diagonal =
        |offset: u32, mask: u64| ((board & mask).wrapping_mul(0x0101_0101_0101_0101) >> (56 + offset)) as u32;
    let row = |r: u32| (board >> (8 * r) & 0xff) as u32;
    match pattern {
        0 => (board & 0x7 | board >> 5 & 0x38 | board >> 10 & 0x1c0) as u32,
        1 => (board & 0x1f | board >> 3 & 0x3e0) as u32,
        2 => (board & 0xff | (board >> 9 & 1) << 8 | (board >> 14 & 1) << 9) as u32,
        3 => row(1),
        4 => row(2),
        5 => row(3),
        6 => diagonal(0, 0x8040_2010_0804_0201),
        7 => diagonal(1, 0x0080_4020_1008_0402),
        8 => diagonal(2, 0x0000_8040_2010_0804),
        9 => diagonal(3, 0x0000_0080_4020_1008),
        _ => diagonal(4, 0x0000_0000_8040_2010),
    }
}

/// The numeric features of a position, in [`NUMERIC_FEATURES`] order.
pub fn numeric_features(player: u64, opponent: u64) -> [f64; NUMERIC_FEATURES] {
    let empties = (!(player | opponent)).count_ones();
    [
        1.0,
        f64::from(legal_move_mask(player, opponent).count_ones()),
        f64::from(legal_move_mask(opponent, player).count_ones()),
        f64::from(empties & 1),
    ]
}

/// Game stages by empties: 1-4 empties is stage 0, ..., 57-60 stage 14.
pub const STAGES: usize = 15;

/// Empties per stage.
pub const EMPTIES_PER_STAGE: u32 = 4;

/// The stage of a position with `empties` empty squares (0 and 1-4 share stage 0).
pub fn stage_of(empties: u32) -> usize {
    (empties.saturating_sub(1) / EMPTIES_PER_STAGE).min(STAGES as u32 - 1) as usize
}

/// The empties a stage covers, fewest first.
pub fn stage_empties(stage: usize) -> std::ops::RangeInclusive<u32> {
    let low = stage as u32 * EMPTIES_PER_STAGE + 1;
    low..=low + EMPTIES_PER_STAGE - 1
}

/// The image of the bitboard `discs` under symmetry `symmetry` (0..8), as [`instance_square`]
/// maps squares.
pub fn symmetric_bitboard(discs: u64, symmetry: usize) -> u64 {
    let mut image = 0u64;
    let mut remaining = discs;
    while remaining != 0 {
        let square = remaining.trailing_zeros() as usize;
        let (column, row) = symmetric_square(symmetry, (square % 8) as u8, (square / 8) as u8);
        image |= 1u64 << (row as usize * 8 + column as usize);
        remaining &= remaining - 1;
    }
    image
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// A configuration index by reading the squares one by one: the slow reference.
    fn index_by_reading(player: u64, opponent: u64, pattern: usize, symmetry: usize) -> u32 {
        let mut index = 0;
        for position in (0..BASE_PATTERNS[pattern].squares.len()).rev() {
            let square = instance_square(pattern, symmetry, position);
            let digit = if player >> square & 1 != 0 {
                1
            } else if opponent >> square & 1 != 0 {
                2
            } else {
                0
            };
            index = index * 3 + digit;
        }
        index
    }

    /// Random disjoint disc sets for the two sides (not necessarily a reachable position).
    fn random_discs(rng: &mut impl rand::Rng) -> (u64, u64) {
        let occupied: u64 = rng.random();
        let player = occupied & rng.random::<u64>();
        (player, occupied & !player)
    }

    #[test]
    fn indices_match_a_square_by_square_reading_and_fit_their_tables() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
        for _ in 0..500 {
            let (player, opponent) = random_discs(&mut rng);
            let indices = instance_indices(player, opponent);
            for pattern in 0..PATTERN_COUNT {
                for symmetry in 0..IMAGES {
                    let index = indices[pattern * IMAGES + symmetry];
                    assert_eq!(index, index_by_reading(player, opponent, pattern, symmetry));
                    assert!((index as usize) < table_size(pattern));
                }
            }
        }
    }

    #[test]
    fn a_symmetry_permutes_the_instances_of_each_pattern() {
        // The multiset of configuration indices of one pattern's images is the same for a
        // position and its symmetric images: this is what makes the evaluation invariant.
        let mut rng = rand::rngs::SmallRng::seed_from_u64(4);
        for _ in 0..200 {
            let (player, opponent) = random_discs(&mut rng);
            let indices = instance_indices(player, opponent);
            for symmetry in 0..8 {
                let image =
                    instance_indices(symmetric_bitboard(player, symmetry), symmetric_bitboard(opponent, symmetry));
                for pattern in 0..PATTERN_COUNT {
                    let mut original: Vec<u32> = indices[pattern * IMAGES..][..IMAGES].to_vec();
                    let mut moved: Vec<u32> = image[pattern * IMAGES..][..IMAGES].to_vec();
                    original.sort_unstable();
                    moved.sort_unstable();
                    assert_eq!(original, moved, "pattern {} symmetry {symmetry}", BASE_PATTERNS[pattern].name);
                }
            }
        }
    }

    #[test]
    fn image_groups_cover_every_instance_once_and_move_digits_as_the_readings_do() {
        let groups = image_groups();
        assert_eq!(groups.len(), 46);
        let members: usize = groups.iter().map(|group| group.members.len()).sum();
        assert_eq!(members, INSTANCES);
        let mut rng = rand::rngs::SmallRng::seed_from_u64(5);
        let mut listed: Vec<(usize, usize)> = groups.iter().map(|group| (group.pattern, group.symmetry)).collect();
        let mut constant = REPRESENTATIVES.to_vec();
        listed.sort_unstable();
        constant.sort_unstable();
        assert_eq!(listed, constant);
        for _ in 0..200 {
            let (player, opponent) = random_discs(&mut rng);
            let indices = instance_indices(player, opponent);
            let representatives = representative_indices(player, opponent);
            for (&(pattern, symmetry), &index) in REPRESENTATIVES.iter().zip(&representatives) {
                assert_eq!(index, indices[pattern * IMAGES + symmetry]);
            }
            let mut seen = vec![0u32; INSTANCES];
            for group in groups {
                let index = indices[group.pattern * IMAGES + group.symmetry];
                for (member, &symmetry) in group.members.iter().enumerate() {
                    let instance = group.pattern * IMAGES + symmetry;
                    assert_eq!(group.member_index(member, index), indices[instance], "{group:?}");
                    seen[instance] += 1;
                }
            }
            assert!(seen.iter().all(|&count| count == 1));
        }
    }

    #[test]
    fn the_eight_symmetries_are_distinct_and_map_the_board_onto_itself() {
        let marker = 0b1011u64 | 1 << 17; // no symmetry fixes this shape
        let mut images: Vec<u64> = (0..8).map(|s| symmetric_bitboard(marker, s)).collect();
        assert!(images.iter().all(|image| image.count_ones() == marker.count_ones()));
        images.sort_unstable();
        images.dedup();
        assert_eq!(images.len(), 8);
    }

    #[test]
    fn stages_cover_the_empties_in_order() {
        assert_eq!(stage_of(1), 0);
        assert_eq!(stage_of(4), 0);
        assert_eq!(stage_of(5), 1);
        assert_eq!(stage_of(60), STAGES - 1);
        for stage in 0..STAGES {
            for empties in stage_empties(stage) {
                assert_eq!(stage_of(empties), stage);
            }
        }
    }
}
