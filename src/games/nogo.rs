//! NoGo: Go on an N x N board (2 <= N <= 25) where capturing is forbidden. A move that would
//! leave an opponent group without liberties (a capture) or its own group without liberties
//! (suicide) is illegal; there is no pass, and a player with no legal move loses. Black moves
//! first; cells are Go-style vertices (column letters without I, row 1 at the bottom).
//!
//! Stones are never removed, so groups only ever merge. Each group keeps its pseudo-liberties
//! (an empty cell counted once per adjacent stone of the group) as a count, a sum and a sum of
//! squares of cell indices: a group has no liberty but `p` exactly when every pseudo-liberty is
//! `p`, which holds when `sum == count * p` and `sum^2 == count * sum_of_squares`. This makes the
//! legality of a move a constant-time test.

use super::{
    Color, ConfigError, Game, GameConfig, MoveError, Outcome, Param, PlayError, Prior, format_go_vertex,
    parse_go_vertex, zobrist_keys,
};

/// The smallest board side.
pub const MIN_SIDE: usize = 2;
/// The largest board side.
pub const MAX_SIDE: usize = 25;
const MAX_CELLS: usize = MAX_SIDE * MAX_SIDE;
const WORDS: usize = MAX_CELLS.div_ceil(64);
/// No cell: marks an empty cell's group and ends neighbour lists.
const NO_CELL: u16 = u16::MAX;

/// Keys for (colour, cell), then one for White to move.
static ZOBRIST: [u64; 2 * MAX_CELLS + 1] = zobrist_keys(0x6e6f_676f_5f7a_6f62);
const WHITE_TO_MOVE_KEY: usize = 2 * MAX_CELLS;

/// Variant settings of NoGo: the board side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoGoConfig {
    side: usize,
}

impl Default for NoGoConfig {
    /// The usual 9x9 board.
    fn default() -> NoGoConfig {
        NoGoConfig { side: 9 }
    }
}

impl GameConfig for NoGoConfig {
    fn size(&self) -> (usize, usize) {
        (self.side, self.side)
    }

    /// Square boards from 2x2 to 25x25 only.
    fn set_size(&mut self, width: usize, height: usize) -> Result<(), ConfigError> {
        if width != height || !(MIN_SIDE..=MAX_SIDE).contains(&width) {
            return Err(ConfigError::UnacceptableSize);
        }
        self.side = width;
        Ok(())
    }

    fn params(&self) -> Vec<Param> {
        Vec::new()
    }

    fn set_param(&mut self, _name: &str, _value: &str) -> Result<(), ConfigError> {
        Err(ConfigError::UnknownParam)
    }
}

/// A move: the cell index `row * side + column`, row 0 at the bottom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(pub u16);

/// Pseudo-liberty statistics of one group (see the module documentation). On a 25x25 board a
/// group has at most 2,500 pseudo-liberties of index below 625, so the sum stays below 1.6e6
/// and the sum of squares below 1e9: `u16` and `u32` suffice and keep the position small.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Liberties {
    count: u16,
    sum: u32,
    sum_of_squares: u32,
}

impl Liberties {
    fn add(&mut self, cell: usize) {
        let cell = cell as u32;
        self.count += 1;
        self.sum += cell;
        self.sum_of_squares += cell * cell;
    }

    fn remove(&mut self, cell: usize) {
        let cell = cell as u32;
        self.count -= 1;
        self.sum -= cell;
        self.sum_of_squares -= cell * cell;
    }

    fn merge(&mut self, other: Liberties) {
        self.count += other.count;
        self.sum += other.sum;
        self.sum_of_squares += other.sum_of_squares;
    }

    /// The group's only liberty, when it has exactly one.
    fn sole(&self) -> Option<usize> {
        if self.count == 0 || !self.sum.is_multiple_of(self.count as u32) {
            return None;
        }
        let cell = (self.sum / self.count as u32) as usize;
        self.only(cell).then_some(cell)
    }

    /// Whether `cell` is the group's only liberty (every pseudo-liberty equals `cell`): the sum
    /// is `count * cell` and, by the equality case of Cauchy-Schwarz, all terms are equal.
    fn only(&self, cell: usize) -> bool {
        let (count, sum) = (self.count as u64, self.sum as u64);
        count > 0 && sum == count * cell as u64 && sum * sum == count * self.sum_of_squares as u64
    }
}

/// A stone considered but not played (for move priors): its group's liberties and those of the
/// opponent groups it touches, as they would be.
struct Placement {
    cell: usize,
    color: Color,
    /// Roots of the own groups the stone joins.
    joined: [u16; 4],
    /// Liberties of the group the stone would form.
    new_group: Liberties,
    /// Roots of the opponent groups the stone touches, and their liberties after it.
    touched: [u16; 4],
    touched_liberties: [Liberties; 4],
}

/// Pseudo-visits of a NoGo move prior.
const PRIOR_VISITS: u32 = 20;
/// Prior value per point of [`NoGo::option_gain`] away from an even exchange.
const PRIOR_VALUE_PER_POINT: f32 = 0.15;

/// A NoGo position. Per cell: the group it belongs to (the group's root cell) and the next stone
/// of the same group (a circular list, for relabelling on merges); per root: the group's
/// pseudo-liberties.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoGo {
    side: u8,
    stones: [[u64; WORDS]; 2],
    group: [u16; MAX_CELLS],
    next_in_group: [u16; MAX_CELLS],
    group_size: [u16; MAX_CELLS],
    liberties: [Liberties; MAX_CELLS],
    to_move: Color,
    /// Cached: `Win(opponent of to_move)` once the side to move has no legal move.
    outcome: Option<Outcome>,
    hash: u64,
}

impl NoGo {
    /// Stones on the board, both colours.
    fn stone_count(&self) -> usize {
        self.stones.iter().flatten().map(|word| word.count_ones() as usize).sum()
    }
}

fn bit(words: &[u64; WORDS], index: usize) -> bool {
    words[index / 64] >> (index % 64) & 1 != 0
}

impl NoGo {
    /// Board side.
    pub fn side(&self) -> usize {
        self.side as usize
    }

    /// The stone at zero-based `(column, row from the bottom)`, if any.
    ///
    /// # Panics
    /// When the cell is off the board.
    pub fn stone_at(&self, column: usize, row: usize) -> Option<Color> {
        assert!(column < self.side() && row < self.side(), "cell ({column}, {row}) off the board");
        self.color_at(row * self.side() + column)
    }

    /// The point at zero-based `(column, row from the bottom)`.
    pub fn point(&self, column: usize, row: usize) -> Point {
        Point((row * self.side() + column) as u16)
    }

    fn color_at(&self, cell: usize) -> Option<Color> {
        if bit(&self.stones[0], cell) {
            Some(Color::Black)
        } else if bit(&self.stones[1], cell) {
            Some(Color::White)
        } else {
            None
        }
    }

    /// The up to four orthogonal neighbours of `cell`, padded with [`NO_CELL`].
    fn neighbours(&self, cell: usize) -> [u16; 4] {
        let side = self.side();
        let (column, row) = (cell % side, cell / side);
        let mut out = [NO_CELL; 4];
        let mut count = 0;
        let mut push = |neighbour: usize| {
            out[count] = neighbour as u16;
            count += 1;
        };
        if column > 0 {
            push(cell - 1);
        }
        if column + 1 < side {
            push(cell + 1);
        }
        if row > 0 {
            push(cell - side);
        }
        if row + 1 < side {
            push(cell + side);
        }
        out
    }

    /// Whether `color` may put a stone on the empty `cell`: no adjacent opponent group loses its
    /// last liberty, and the new stone's group keeps one.
    fn is_legal_for(&self, color: Color, cell: usize) -> bool {
        let mut keeps_a_liberty = false;
        for neighbour in self.neighbours(cell) {
            if neighbour == NO_CELL {
                break;
            }
            let neighbour = neighbour as usize;
            match self.color_at(neighbour) {
                None => keeps_a_liberty = true,
                Some(owner) => {
                    let in_atari_here = self.liberties[self.group[neighbour] as usize].only(cell);
                    if owner == color {
                        keeps_a_liberty |= !in_atari_here;
                    } else if in_atari_here {
                        return false;
                    }
                }
            }
        }
        keeps_a_liberty
    }

    fn has_legal_move(&self, color: Color) -> bool {
        (0..self.side() * self.side()).any(|cell| self.color_at(cell).is_none() && self.is_legal_for(color, cell))
    }

    fn update_outcome(&mut self) {
        self.outcome = (!self.has_legal_move(self.to_move)).then_some(Outcome::Win(self.to_move.opponent()));
    }

    fn set_to_move(&mut self, color: Color) {
        if self.to_move != color {
            self.to_move = color;
            self.hash ^= ZOBRIST[WHITE_TO_MOVE_KEY];
        }
    }

    /// Puts a `color` stone on the empty `cell` and merges groups; no legality check.
    fn put_stone(&mut self, color: Color, cell: usize) {
        self.stones[color.index()][cell / 64] |= 1 << (cell % 64);
        self.hash ^= ZOBRIST[color.index() * MAX_CELLS + cell];
        self.group[cell] = cell as u16;
        self.next_in_group[cell] = cell as u16;
        self.group_size[cell] = 1;
        self.liberties[cell] = Liberties::default();
        let neighbours = self.neighbours(cell);
        // 1. Every empty neighbour is a pseudo-liberty of the new stone (before any merge, while
        //    the stone is still its own root).
        for &neighbour in neighbours.iter().take_while(|&&n| n != NO_CELL) {
            if self.color_at(neighbour as usize).is_none() {
                self.liberties[cell].add(neighbour as usize);
            }
        }
        // 2. Every adjacent stone's group loses `cell` as a pseudo-liberty; own groups merge.
        for &neighbour in neighbours.iter().take_while(|&&n| n != NO_CELL) {
            let neighbour = neighbour as usize;
            if let Some(owner) = self.color_at(neighbour) {
                let root = self.group[neighbour] as usize;
                self.liberties[root].remove(cell);
                if owner == color {
                    self.merge(self.group[cell] as usize, root);
                }
            }
        }
    }

    /// Merges the groups with roots `a` and `b` (the same group is left alone), relabelling the
    /// smaller one.
    fn merge(&mut self, a: usize, b: usize) {
        if a == b {
            return;
        }
        let (big, small) = if self.group_size[a] >= self.group_size[b] { (a, b) } else { (b, a) };
        let mut stone = small;
        loop {
            self.group[stone] = big as u16;
            stone = self.next_in_group[stone] as usize;
            if stone == small {
                break;
            }
        }
        // Splice the two circular lists.
        self.next_in_group.swap(big, small);
        self.group_size[big] += self.group_size[small];
        let absorbed = self.liberties[small];
        self.liberties[big].merge(absorbed);
    }

    /// The liberties `color`'s group would have after a `color` stone on the empty `cell`: the
    /// cell's empty neighbours and the liberties of the own groups it joins, less `cell` (once
    /// per adjacent own stone, as each counted it once).
    fn liberties_after(&self, color: Color, cell: usize) -> Liberties {
        let mut liberties = Liberties::default();
        let mut joined = [NO_CELL; 4];
        for (slot, neighbour) in self.neighbours(cell).into_iter().take_while(|&n| n != NO_CELL).enumerate() {
            let neighbour = neighbour as usize;
            match self.color_at(neighbour) {
                None => liberties.add(neighbour),
                Some(owner) if owner == color => {
                    let root = self.group[neighbour];
                    if !joined.contains(&root) {
                        joined[slot] = root;
                        liberties.merge(self.liberties[root as usize]);
                    }
                    liberties.remove(cell);
                }
                Some(_) => {}
            }
        }
        liberties
    }

    /// What a `color` stone on the empty `cell` would change, without playing it.
    fn placement(&self, color: Color, cell: usize) -> Placement {
        let mut placement = Placement {
            cell,
            color,
            joined: [NO_CELL; 4],
            new_group: self.liberties_after(color, cell),
            touched: [NO_CELL; 4],
            touched_liberties: [Liberties::default(); 4],
        };
        for (slot, neighbour) in self.neighbours(cell).into_iter().take_while(|&n| n != NO_CELL).enumerate() {
            let neighbour = neighbour as usize;
            let Some(owner) = self.color_at(neighbour) else { continue };
            let root = self.group[neighbour];
            if owner == color {
                placement.joined[slot] = root;
            } else if let Some(index) = placement.touched.iter().position(|&r| r == root) {
                placement.touched_liberties[index].remove(cell);
            } else {
                placement.touched[slot] = root;
                placement.touched_liberties[slot] = self.liberties[root as usize];
                placement.touched_liberties[slot].remove(cell);
            }
        }
        placement
    }

    /// Whether `color` could play the empty `cell` after `placement` (`cell` is not the placed
    /// one): [`NoGo::is_legal_for`] on the board with the placed stone.
    fn is_legal_after(&self, placement: &Placement, color: Color, cell: usize) -> bool {
        let mut keeps_a_liberty = false;
        for neighbour in self.neighbours(cell) {
            if neighbour == NO_CELL {
                break;
            }
            let neighbour = neighbour as usize;
            let (owner, liberties) = if neighbour == placement.cell {
                (placement.color, placement.new_group)
            } else {
                let Some(owner) = self.color_at(neighbour) else {
                    keeps_a_liberty = true;
                    continue;
                };
                let root = self.group[neighbour];
                let liberties = if owner == placement.color && placement.joined.contains(&root) {
                    placement.new_group
                } else if let Some(index) = placement.touched.iter().position(|&r| r == root) {
                    placement.touched_liberties[index]
                } else {
                    self.liberties[root as usize]
                };
                (owner, liberties)
            };
            let in_atari_here = liberties.only(cell);
            if owner == color {
                keeps_a_liberty |= !in_atari_here;
            } else if in_atari_here {
                return false;
            }
        }
        keeps_a_liberty
    }

    /// How a move of the side to move on the empty `cell` changes the difference between its
    /// playable points and the opponent's: -1 for the point itself, +1 when the opponent could
    /// play it too, then the change on every point whose legality the move can affect (its
    /// empty neighbours, and the sole liberty of each group it joins, forms or touches).
    ///
    /// NoGo ends when one side runs out of moves, so points only one side can play are that
    /// side's reserve: a move that takes away an opponent's point or makes a point of its own is
    /// worth more than one that uses up a point only the mover could play.
    fn option_gain(&self, cell: usize) -> i32 {
        let me = self.to_move;
        let opponent = me.opponent();
        let placement = self.placement(me, cell);
        let mut gain = i32::from(self.is_legal_for(opponent, cell)) - 1;
        let mut affected = [NO_CELL; 16];
        let mut count = 0;
        let mut add = |point: usize| {
            if point != cell && !affected[..count].contains(&(point as u16)) {
                affected[count] = point as u16;
                count += 1;
            }
        };
        for neighbour in self.neighbours(cell).into_iter().take_while(|&n| n != NO_CELL) {
            if self.color_at(neighbour as usize).is_none() {
                add(neighbour as usize);
            }
        }
        if let Some(point) = placement.new_group.sole() {
            add(point);
        }
        for slot in 0..4 {
            if placement.touched[slot] != NO_CELL
                && let Some(point) = placement.touched_liberties[slot].sole()
            {
                add(point);
            }
            if placement.joined[slot] != NO_CELL
                && let Some(point) = self.liberties[placement.joined[slot] as usize].sole()
            {
                add(point);
            }
        }
        for &point in &affected[..count] {
            let point = point as usize;
            let mine = i32::from(self.is_legal_after(&placement, me, point)) - i32::from(self.is_legal_for(me, point));
            let theirs = i32::from(self.is_legal_after(&placement, opponent, point))
                - i32::from(self.is_legal_for(opponent, point));
            gain += mine - theirs;
        }
        gain
    }

    /// The hash recomputed from the stones, for checking the incremental one.
    pub fn hash_from_scratch(&self) -> u64 {
        let mut hash = if self.to_move == Color::White { ZOBRIST[WHITE_TO_MOVE_KEY] } else { 0 };
        for cell in 0..self.side() * self.side() {
            if let Some(color) = self.color_at(cell) {
                hash ^= ZOBRIST[color.index() * MAX_CELLS + cell];
            }
        }
        hash
    }
}

impl Game for NoGo {
    type Move = Point;
    type Config = NoGoConfig;

    fn plies_left_bound(&self) -> Option<usize> {
        let cells = self.side as usize * self.side as usize;
        Some(cells - self.stone_count())
    }

    /// NoGo ends when a side has no safe point, usually with about 0.7 of the board filled.
    fn expected_plies_left(&self) -> usize {
        let cells = self.side as usize * self.side as usize;
        let stones = self.stone_count();
        super::typical_plies_left(cells * 7 / 10, stones, 10, cells - stones)
    }

    fn stone_at_point(&self, column: usize, row_from_top: usize) -> Option<Color> {
        (column < self.side() && row_from_top < self.side())
            .then(|| self.stone_at(column, self.side() - 1 - row_from_top))
            .flatten()
    }

    fn new(config: &NoGoConfig) -> NoGo {
        NoGo {
            side: config.side as u8,
            stones: [[0; WORDS]; 2],
            group: [NO_CELL; MAX_CELLS],
            next_in_group: [NO_CELL; MAX_CELLS],
            group_size: [0; MAX_CELLS],
            liberties: [Liberties::default(); MAX_CELLS],
            to_move: Color::Black,
            // Every board from 2x2 up has a legal first move.
            outcome: None,
            hash: 0,
        }
    }

    fn to_move(&self) -> Color {
        self.to_move
    }

    fn legal_moves(&self, out: &mut Vec<Point>) {
        if self.outcome.is_some() {
            return;
        }
        for cell in 0..self.side() * self.side() {
            if self.color_at(cell).is_none() && self.is_legal_for(self.to_move, cell) {
                out.push(Point(cell as u16));
            }
        }
    }

    fn is_legal(&self, point: Point) -> bool {
        let cell = point.0 as usize;
        self.outcome.is_none()
            && cell < self.side() * self.side()
            && self.color_at(cell).is_none()
            && self.is_legal_for(self.to_move, cell)
    }

    fn play_unchecked(&mut self, point: Point) {
        debug_assert!(self.is_legal(point), "illegal NoGo move {point:?}");
        let color = self.to_move;
        self.put_stone(color, point.0 as usize);
        self.set_to_move(color.opponent());
        self.update_outcome();
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    /// Reads a Go-style vertex. NoGo has no pass, so `pass` is not a move here.
    ///
    /// # Errors
    /// [`MoveError::Syntax`] for text that is not a vertex (`pass` included),
    /// [`MoveError::OffBoard`] for a vertex outside the board.
    fn parse_move(&self, text: &str) -> Result<Point, MoveError> {
        let (column, row) = parse_go_vertex(text.trim(), self.side(), self.side())?;
        Ok(self.point(column, row))
    }

    fn format_move(&self, point: Point) -> String {
        let cell = point.0 as usize;
        format_go_vertex(cell % self.side(), cell / self.side())
    }

    fn board_text(&self) -> String {
        super::go_board_text(self.side(), self.side(), |column, row| super::stone_symbol(self.stone_at(column, row)))
    }

    /// Stones may be set up in any order (GTP set-up), so any colour may be handed the turn;
    /// the new side to move loses at once when it has no legal move.
    fn give_turn_to(&mut self, color: Color) -> Result<(), PlayError> {
        if self.outcome.is_some() {
            return Err(PlayError::GameOver);
        }
        self.set_to_move(color);
        self.update_outcome();
        Ok(())
    }

    /// Random legal moves that keep each side's reserve (points the opponent cannot play) for
    /// last, as a Go playout keeps its eyes: each move tries the empty cells in a random order (a
    /// partial Fisher-Yates shuffle) and plays the first one both sides could play, else the
    /// first one only the mover can play. The scan itself finds the end (no legal move), so
    /// the per-move end test of `play_unchecked` is skipped. Leaves the final position.
    fn playout<R: rand::Rng>(&mut self, rng: &mut R) -> Outcome {
        let mut empties: Vec<u16> =
            (0..self.side() * self.side()).filter(|&cell| self.color_at(cell).is_none()).map(|c| c as u16).collect();
        loop {
            if let Some(outcome) = self.outcome {
                return outcome;
            }
            let color = self.to_move;
            let mut contested = None;
            let mut reserve = None;
            for tried in 0..empties.len() {
                let pick = rng.random_range(tried..empties.len());
                empties.swap(tried, pick);
                let cell = empties[tried] as usize;
                if self.is_legal_for(color, cell) {
                    if self.is_legal_for(color.opponent(), cell) {
                        contested = Some(tried);
                        break;
                    }
                    reserve = reserve.or(Some(tried));
                }
            }
            match contested.or(reserve) {
                Some(slot) => {
                    let cell = empties.swap_remove(slot);
                    self.put_stone(color, cell as usize);
                    self.set_to_move(color.opponent());
                }
                None => self.outcome = Some(Outcome::Win(color.opponent())),
            }
        }
    }

    /// Priors from [`NoGo::option_gain`]: even exchanges stay at 0.5, a move that gains points
    /// of play over the opponent is tried early, one that spends a reserve late.
    fn move_priors(&self, moves: &[Point], priors: &mut [Prior]) {
        for (&point, prior) in moves.iter().zip(priors.iter_mut()) {
            let gain = self.option_gain(point.0 as usize) as f32;
            *prior = Prior::new(PRIOR_VISITS, (0.5 + PRIOR_VALUE_PER_POINT * gain).clamp(0.05, 0.95));
        }
    }

    const SUPPORTS_RAVE: bool = true;

    fn amaf_owner(&self, point: Point) -> Option<Color> {
        let cell = point.0 as usize;
        (cell < self.side() * self.side()).then(|| self.color_at(cell)).flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::perft;
    use rand::{Rng, SeedableRng};

    fn board(side: usize) -> NoGo {
        let mut config = NoGoConfig::default();
        config.set_size(side, side).unwrap();
        NoGo::new(&config)
    }

    /// A deliberately plain NoGo: a cell array and flood-filled liberties.
    #[derive(Clone)]
    struct PlainNoGo {
        side: usize,
        cells: Vec<Option<Color>>,
        to_move: Color,
    }

    impl PlainNoGo {
        fn new(side: usize) -> PlainNoGo {
            PlainNoGo { side, cells: vec![None; side * side], to_move: Color::Black }
        }

        fn neighbours(&self, cell: usize) -> Vec<usize> {
            let (x, y) = (cell % self.side, cell / self.side);
            let mut out = Vec::new();
            if x > 0 {
                out.push(cell - 1);
            }
            if x + 1 < self.side {
                out.push(cell + 1);
            }
            if y > 0 {
                out.push(cell - self.side);
            }
            if y + 1 < self.side {
                out.push(cell + self.side);
            }
            out
        }

        fn has_liberty(&self, start: usize) -> bool {
            let color = self.cells[start];
            let mut seen = vec![false; self.cells.len()];
            let mut stack = vec![start];
            seen[start] = true;
            while let Some(cell) = stack.pop() {
                for n in self.neighbours(cell) {
                    if self.cells[n].is_none() {
                        return true;
                    }
                    if self.cells[n] == color && !seen[n] {
                        seen[n] = true;
                        stack.push(n);
                    }
                }
            }
            false
        }

        fn legal_moves(&self) -> Vec<usize> {
            (0..self.cells.len())
                .filter(|&cell| {
                    if self.cells[cell].is_some() {
                        return false;
                    }
                    let mut after = self.clone();
                    after.cells[cell] = Some(self.to_move);
                    after.has_liberty(cell)
                        && self.neighbours(cell).into_iter().all(|n| after.cells[n].is_none() || after.has_liberty(n))
                })
                .collect()
        }

        fn play(&mut self, cell: usize) {
            self.cells[cell] = Some(self.to_move);
            self.to_move = self.to_move.opponent();
        }

        fn perft(&self, depth: u32) -> u64 {
            if depth == 0 {
                return 1;
            }
            let moves = self.legal_moves();
            moves
                .iter()
                .map(|&cell| {
                    let mut child = self.clone();
                    child.play(cell);
                    child.perft(depth - 1)
                })
                .sum()
        }
    }

    /// Whether the side to move wins with perfect play.
    fn side_to_move_wins(position: &NoGo) -> bool {
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        moves.into_iter().any(|mv| {
            let mut child = position.clone();
            child.play_unchecked(mv);
            !side_to_move_wins(&child)
        })
    }

    #[test]
    fn perft_matches_a_plain_flood_fill_implementation() {
        for (side, depth) in [(2, 4), (3, 6), (4, 4), (5, 3)] {
            let ours = board(side);
            let plain = PlainNoGo::new(side);
            for d in 0..=depth {
                assert_eq!(perft(&ours, d), plain.perft(d), "{side}x{side} depth {d}");
            }
        }
        // Small counts by hand: on 2x2 every first move is legal (4), and every second move too
        // (4 * 3 = 12). Third moves: after a diagonal reply (a1 b2) both b1 and a2 are legal;
        // after an adjacent reply (a1 b1) a2 is legal but b2 would capture b1. So each first
        // move has 2 * 1 + 1 * 2 = 4 continuations at depth 3: 16 in all.
        assert_eq!(perft(&board(2), 1), 4);
        assert_eq!(perft(&board(2), 2), 12);
        assert_eq!(perft(&board(2), 3), 16);
    }

    #[test]
    fn random_games_agree_with_the_plain_implementation() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
        for side in [3, 5, 7, 9] {
            for _ in 0..30 {
                let mut ours = board(side);
                let mut plain = PlainNoGo::new(side);
                loop {
                    let mut moves = Vec::new();
                    ours.legal_moves(&mut moves);
                    let mut cells: Vec<usize> = moves.iter().map(|p| p.0 as usize).collect();
                    cells.sort_unstable();
                    assert_eq!(cells, plain.legal_moves());
                    assert_eq!(ours.hash(), ours.hash_from_scratch());
                    if cells.is_empty() {
                        assert_eq!(ours.outcome(), Some(Outcome::Win(ours.to_move().opponent())));
                        break;
                    }
                    assert_eq!(ours.outcome(), None);
                    let cell = cells[rng.random_range(0..cells.len())];
                    ours.play(Point(cell as u16)).unwrap();
                    plain.play(cell);
                }
            }
        }
    }

    #[test]
    fn tiny_boards_are_first_player_wins() {
        // 2x2 by hand: after Black a1, White b2 lets Black b1, after which White's a2 would
        // capture (and be suicide); White b1 lets Black a2 and White's b2 is illegal again.
        assert!(side_to_move_wins(&board(2)));
    }

    #[test]
    fn captures_and_suicide_are_illegal() {
        let mut position = board(3);
        // Black a1; White b1 takes a liberty; Black c2; White a2 would capture a1 (illegal).
        for text in ["a1", "b1", "c2"] {
            let mv = position.parse_move(text).unwrap();
            position.play(mv).unwrap();
        }
        let capture = position.parse_move("a2").unwrap();
        assert_eq!(position.play(capture), Err(PlayError::Illegal));
        // Suicide: Black b2, White a1, Black c1, White a3, Black b1 (a1 keeps a2).
        let mut position = board(3);
        for text in ["b2", "a1", "c1", "a3", "b1"] {
            let mv = position.parse_move(text).unwrap();
            position.play(mv).unwrap();
        }
        // White a2 would join a1 a2 a3, which keeps the liberty b3: legal. For Black (handed the
        // turn) a2 would take a1's last liberty: a capture, illegal.
        assert!(position.is_legal(position.parse_move("a2").unwrap()));
        let mut black_to_move = position.clone();
        black_to_move.give_turn_to(Color::Black).unwrap();
        assert!(!black_to_move.is_legal(black_to_move.parse_move("a2").unwrap()));
        assert_eq!(black_to_move.hash(), black_to_move.hash_from_scratch());
        // White c3, then Black b3 takes a3's liberty b3 (a3 keeps a2, c3 keeps c2).
        for text in ["c3", "b3"] {
            let mv = position.parse_move(text).unwrap();
            position.play(mv).unwrap();
        }
        // White's only empty cells are a2 (a1 a2 a3 without a liberty) and c2 (c2 c3 without a
        // liberty): both suicide, so White cannot move and loses.
        assert_eq!(position.outcome(), Some(Outcome::Win(Color::Black)), "\n{}", position.board_text());
        assert_eq!(position.play(position.parse_move("a2").unwrap()), Err(PlayError::GameOver));
    }

    #[test]
    fn no_pass_and_vertices() {
        let position = board(9);
        assert_eq!(position.parse_move("pass"), Err(MoveError::Syntax));
        assert_eq!(position.parse_move("j9"), Ok(position.point(8, 8)));
        assert_eq!(position.parse_move("k1"), Err(MoveError::OffBoard));
        assert_eq!(position.format_move(position.point(8, 0)), "J1");
        let mut config = NoGoConfig::default();
        assert_eq!(config.set_size(9, 7), Err(ConfigError::UnacceptableSize));
        assert_eq!(config.set_size(1, 1), Err(ConfigError::UnacceptableSize));
        config.set_size(25, 25).unwrap();
        let big = NoGo::new(&config);
        let mut moves = Vec::new();
        big.legal_moves(&mut moves);
        assert_eq!(moves.len(), 625);
    }

    /// Prints the playout rate on the empty 9x9 board. Run with
    /// `cargo test --release --lib games::nogo::tests::playout_speed -- --ignored --nocapture`.
    #[test]
    #[ignore = "measurement, prints only"]
    fn playout_speed() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
        let start = std::time::Instant::now();
        let count = 100_000;
        let mut black_wins = 0;
        for _ in 0..count {
            let mut position = board(9);
            if position.playout(&mut rng) == Outcome::Win(Color::Black) {
                black_wins += 1;
            }
        }
        let seconds = start.elapsed().as_secs_f64();
        println!("{:.0} playouts/s, Black won {black_wins} of {count}", count as f64 / seconds);
    }

    /// The legality after a considered stone agrees with the board after playing it, on every
    /// empty point, and the option gain is the change of the legal-point difference when the
    /// move touches nothing far away.
    #[test]
    fn considered_stones_match_played_ones() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(5);
        for side in [3, 5, 9] {
            for _ in 0..20 {
                let mut position = board(side);
                while position.outcome().is_none() {
                    let mut moves = Vec::new();
                    position.legal_moves(&mut moves);
                    let me = position.to_move();
                    let count = |p: &NoGo, color: Color| {
                        (0..side * side).filter(|&c| p.color_at(c).is_none() && p.is_legal_for(color, c)).count() as i32
                    };
                    let before = count(&position, me) - count(&position, me.opponent());
                    for &mv in &moves {
                        let cell = mv.0 as usize;
                        let mut after = position.clone();
                        after.put_stone(me, cell);
                        for color in [me, me.opponent()] {
                            let placement = position.placement(color, cell);
                            let mut placed = position.clone();
                            placed.put_stone(color, cell);
                            for point in (0..side * side).filter(|&p| p != cell && position.color_at(p).is_none()) {
                                assert_eq!(
                                    position.is_legal_after(&placement, color, point),
                                    placed.is_legal_for(color, point),
                                );
                                assert_eq!(
                                    position.is_legal_after(&placement, color.opponent(), point),
                                    placed.is_legal_for(color.opponent(), point),
                                );
                            }
                        }
                        // Every point whose legality changes is one the gain looks at, so the gain
                        // is the exact change of the difference.
                        let after_difference = count(&after, me) - count(&after, me.opponent());
                        assert_eq!(
                            position.option_gain(cell),
                            after_difference - before,
                            "\n{}",
                            position.board_text()
                        );
                    }
                    let mv = moves[rng.random_range(0..moves.len())];
                    position.play(mv).unwrap();
                }
            }
        }
    }

    #[test]
    fn priors_prefer_taking_a_point_over_spending_a_reserve() {
        // White has an eye at a1 (b1 and a2 White, each with other liberties): a1 is White's
        // reserve, illegal for Black (it would capture). White to move: its priors rank a1
        // (spending the reserve) below an open point.
        let mut position = board(5);
        for text in ["e5", "b1", "e4", "a2", "d5"] {
            position.play(position.parse_move(text).unwrap()).unwrap();
        }
        let reserve = position.parse_move("a1").unwrap();
        let open = position.parse_move("c3").unwrap();
        assert!(position.is_legal(reserve) && !position.is_legal_for(Color::Black, reserve.0 as usize));
        let mut priors = [Prior::NONE; 2];
        position.move_priors(&[reserve, open], &mut priors);
        assert!(priors[0].value < 0.5 && priors[1].value >= 0.5, "{priors:?}");
    }

    #[test]
    fn playouts_end_with_a_stuck_player_losing() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(9);
        for side in [2, 5, 9, 19] {
            for _ in 0..20 {
                let mut position = board(side);
                let outcome = position.playout(&mut rng);
                assert_eq!(position.outcome(), Some(outcome));
                let mut moves = Vec::new();
                position.legal_moves(&mut moves);
                assert!(moves.is_empty());
                assert_eq!(outcome, Outcome::Win(position.to_move().opponent()));
                assert_eq!(position.hash(), position.hash_from_scratch());
            }
        }
    }
}
