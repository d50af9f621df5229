//! The swap rule in play. For each board size it covers, the table says which first stones
//! win for the first player (those the second player swaps) and how ponder's own search rates
//! each (the first player's win rate after it). Made by `ponder swap-table`
//! ([`crate::train::hex_swap_table`]): the win/loss labels are exact on solved boards and carried
//! over to larger boards by a cell's distances to the edges; the ratings come from the search.
//! The first player opens with the best-rated stone among those not swapped: a stone the
//! opponent should leave, and the strongest such, so about even either way.
//!
//! # File format (text, version 1)
//!
//! Lines starting with `#` are comments; the first says how the table was made. Every other
//! line is one first stone:
//!
//! ```text
//! <size> <cell> <swap: 1 if the stone wins for the first player, else 0> <first player's win rate by the search, 0 to 1>
//! ```
//!
//! for example `11 f6 1 0.4812`. A size present in the file lists every cell of its board once;
//! cells are in Hex notation (`a1` top left, letters for columns).

use std::sync::OnceLock;

use crate::games::CellNames;

/// The shipped table (see `weights/README.md`).
static EMBEDDED_TABLE: &str = include_str!("../../weights/hex.swap");

/// The largest board side the table may cover (that of the game's board).
pub const MAX_SIZE: usize = 25;

/// One first stone's entry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FirstStone {
    /// Whether it wins for the first player, so the second player swaps it.
    pub swap: bool,
    /// The first player's win rate after it, as the search judged.
    pub value: f64,
}

/// The first stones of every covered board size.
#[derive(Clone, Debug, PartialEq)]
pub struct SwapTable {
    /// Indexed by board side; for a covered size, one entry per cell index
    /// (`row * size + column`).
    stones_by_size: Vec<Option<Vec<FirstStone>>>,
}

impl SwapTable {
    /// Reads the text format above.
    ///
    /// # Errors
    /// The first malformed line, by number and what is wrong with it, or a size whose cells are
    /// not each listed exactly once.
    pub fn parse(text: &str) -> Result<SwapTable, String> {
        let mut stones_by_size: Vec<Option<Vec<Option<FirstStone>>>> = vec![None; MAX_SIZE + 1];
        for (index, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let number = index + 1;
            let (size, cell, stone) = parse_line(line).map_err(|problem| format!("line {number}: {problem}"))?;
            let cells = stones_by_size[size].get_or_insert_with(|| vec![None; size * size]);
            if cells[cell].replace(stone).is_some() {
                return Err(format!("line {number}: {} is listed twice for size {size}", line_cell(line)));
            }
        }
        let stones_by_size = stones_by_size
            .into_iter()
            .enumerate()
            .map(|(size, cells)| {
                cells
                    .map(|cells| {
                        let missing = cells.iter().filter(|stone| stone.is_none()).count();
                        if missing > 0 {
                            return Err(format!("size {size}: {missing} cells have no entry"));
                        }
                        Ok(cells.into_iter().flatten().collect())
                    })
                    .transpose()
            })
            .collect::<Result<_, String>>()?;
        Ok(SwapTable { stones_by_size })
    }

    /// The entry of a first stone on `cell` (`row * size + column`) of a `size` x `size` board;
    /// `None` when the table does not cover the size.
    pub fn first_stone(&self, size: usize, cell: usize) -> Option<FirstStone> {
        self.stones(size)?.get(cell).copied()
    }

    /// Whether the second player should swap a first stone on `cell`. `None` when the size is
    /// not covered.
    pub fn swaps(&self, size: usize, cell: usize) -> Option<bool> {
        self.first_stone(size, cell).map(|stone| stone.swap)
    }

    /// The first stone to open with: the one the search rates best among those not swapped
    /// (the lowest cell index among equals). `None` when the size is not covered or every stone
    /// is swapped.
    pub fn balanced_opening(&self, size: usize) -> Option<usize> {
        let stones = self.stones(size)?;
        (0..stones.len())
            .filter(|&cell| !stones[cell].swap)
            .min_by(|&a, &b| stones[b].value.total_cmp(&stones[a].value).then(a.cmp(&b)))
    }

    /// The board sizes the table covers, smallest first.
    pub fn sizes(&self) -> impl Iterator<Item = usize> + '_ {
        self.stones_by_size.iter().enumerate().filter(|(_, stones)| stones.is_some()).map(|(size, _)| size)
    }

    fn stones(&self, size: usize) -> Option<&[FirstStone]> {
        self.stones_by_size.get(size)?.as_deref()
    }
}

/// One line of the table: (size, cell index, entry).
fn parse_line(line: &str) -> Result<(usize, usize, FirstStone), String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let [size, cell, swap, value] = fields[..] else {
        return Err(format!("expected 'SIZE CELL SWAP VALUE', not '{line}'"));
    };
    let size = size
        .parse::<usize>()
        .ok()
        .filter(|size| (1..=MAX_SIZE).contains(size))
        .ok_or_else(|| format!("board size '{size}' is not a number from 1 to {MAX_SIZE}"))?;
    let cell = parse_cell(cell, size).ok_or_else(|| format!("'{cell}' is not a cell of a {size}x{size} board"))?;
    let value = value
        .parse::<f64>()
        .ok()
        .filter(|value| (0.0..=1.0).contains(value))
        .ok_or_else(|| format!("win rate '{value}' is not a number from 0 to 1"))?;
    let swap = match swap {
        "1" => true,
        "0" => false,
        _ => return Err(format!("swap '{swap}' is neither 0 nor 1")),
    };
    Ok((size, cell, FirstStone { swap, value }))
}

fn line_cell(line: &str) -> &str {
    line.split_whitespace().nth(1).unwrap_or("")
}

/// `a1`-style cell text as `row * size + column`, if it is on the board (the project's
/// letter-and-row-from-the-top names, [`CellNames::LetterFromTop`]).
pub fn parse_cell(text: &str, size: usize) -> Option<usize> {
    let (column, row) = CellNames::LetterFromTop.point_of(text, size, size)?;
    Some(row * size + column)
}

/// `row * size + column` as `a1`-style text.
pub fn format_cell(cell: usize, size: usize) -> String {
    CellNames::LetterFromTop.name_of(cell % size, cell / size, size).expect("a cell of a board up to 25 wide")
}

/// The table shipped in the binary.
///
/// # Errors
/// Why the embedded file does not parse (a build from a damaged file).
pub fn embedded() -> Result<&'static SwapTable, &'static String> {
    static TABLE: OnceLock<Result<SwapTable, String>> = OnceLock::new();
    TABLE.get_or_init(|| SwapTable::parse(EMBEDDED_TABLE)).as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2x2 table: a1 and b2 are swapped; of the others b1 is rated higher.
    const SMALL: &str = "# test table\n2 a1 1 0.8\n2 b1 0 0.45\n2 a2 0 0.3\n2 b2 1 0.4\n";

    #[test]
    fn the_table_swaps_winning_stones_and_opens_with_the_best_kept_one() {
        let table = SwapTable::parse(SMALL).unwrap();
        assert_eq!(table.sizes().collect::<Vec<_>>(), vec![2]);
        assert_eq!(table.first_stone(2, 3), Some(FirstStone { swap: true, value: 0.4 }));
        assert_eq!(table.swaps(2, 0), Some(true));
        assert_eq!(table.swaps(2, 1), Some(false));
        assert_eq!(table.balanced_opening(2), Some(1), "b1 is the best-rated stone not swapped");
        assert_eq!(table.swaps(3, 0), None, "size not covered");
        assert_eq!(table.balanced_opening(11), None);
        let all_swapped = SwapTable::parse("1 a1 1 0.9\n").unwrap();
        assert_eq!(all_swapped.balanced_opening(1), None);
    }

    #[test]
    fn malformed_tables_are_refused_with_the_line_and_the_reason() {
        let cases = [
            ("2 a1 1 0.8 extra\n", "line 1: expected 'SIZE CELL SWAP VALUE', not '2 a1 1 0.8 extra'"),
            ("26 a1 0 0.5\n", "line 1: board size '26' is not a number from 1 to 25"),
            ("# c\n2 c1 0 0.5\n", "line 2: 'c1' is not a cell of a 2x2 board"),
            ("2 a0 0 0.5\n", "line 1: 'a0' is not a cell of a 2x2 board"),
            ("2 a1 0 1.5\n", "line 1: win rate '1.5' is not a number from 0 to 1"),
            ("2 a1 0 NaN\n", "line 1: win rate 'NaN' is not a number from 0 to 1"),
            ("2 a1 yes 0.5\n", "line 1: swap 'yes' is neither 0 nor 1"),
            ("2 a1 0 0.5\n2 A1 1 0.6\n", "line 2: A1 is listed twice for size 2"),
            ("2 a1 0 0.5\n2 b2 0 0.5\n", "size 2: 2 cells have no entry"),
        ];
        for (text, expected) in cases {
            assert_eq!(SwapTable::parse(text), Err(expected.to_string()), "{text:?}");
        }
    }

    #[test]
    fn cells_round_trip_through_their_text() {
        for size in [1, 11, 25] {
            for cell in 0..size * size {
                assert_eq!(parse_cell(&format_cell(cell, size), size), Some(cell));
            }
        }
        assert_eq!(parse_cell("k11", 11), Some(120));
        assert_eq!(parse_cell("l1", 11), None);
        assert_eq!(parse_cell("a12", 11), None);
        assert_eq!(parse_cell("", 11), None);
        assert_eq!(parse_cell("é1", 11), None);
    }

    #[test]
    fn the_shipped_table_swaps_the_centre_and_opens_with_a_stone_it_keeps() {
        let table = embedded().unwrap();
        let sizes: Vec<usize> = table.sizes().collect();
        assert!(sizes.contains(&11), "the match size is covered: {sizes:?}");
        for size in sizes {
            let centre = (size / 2) * size + size / 2;
            assert_eq!(table.swaps(size, centre), Some(true), "size {size}: the centre wins");
            assert_eq!(table.swaps(size, 0), Some(false), "size {size}: the acute corner a1 loses");
            let opening = table.balanced_opening(size).unwrap();
            assert_eq!(table.swaps(size, opening), Some(false));
        }
    }
}
