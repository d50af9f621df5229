//! `ponder swap-table --game hex`: the table behind the swap rule in play
//! ([`crate::knowledge::hex_swap`], whose docs give the file format).
//!
//! **Which stones to swap** comes from exactly solved boards: a file of first-move outcomes
//! (`board,cell,winner`, as `tests/data/hex/first-move-outcomes-8x8.csv`) gives, for each cell
//! of a solved board, whether a first stone there wins. A board the file covers takes those
//! labels as they are; a larger board takes, for each cell, the label of the cell of the largest
//! solved board that lies at the same distances from the nearest edges: the outer rows and
//! columns keep their distance to their edge (up to half the solved board's side, less one),
//! the inner ones map to the solved board's middle. On small boards the first stones that lose
//! are those near the edges (the first player's own edges above all), which this keeps, and
//! the interior wins. (Search values cannot draw this line: a one-thread search of tens of
//! thousands of playouts rates nearly every first stone on 11x11 between 40% and 52%.)
//!
//! **How strong each stone is** comes from the engine's search: the position after the stone
//! (second player to move, no swap) is searched on one thread at a fixed visit count, and the
//! table keeps the first player's win rate that the search reports; the opening is the stone
//! rated best among those not swapped. A stone and its 180-degree rotation make the same game,
//! so one of each pair is searched; the searches are seeded per size and cell and run in
//! parallel, so the table depends only on the options, the outcome file and the engine.

use std::fmt::Write as _;
use std::path::PathBuf;

use rayon::prelude::*;

use crate::engine::Session;
use crate::games::Color;
use crate::knowledge::hex_swap::{self, SwapTable, format_cell, parse_cell};
use crate::protocol::command::{Command, ParamRequest};
use crate::solvers::hex_solver::outcome_lines;

/// What `ponder swap-table` is asked to make.
#[derive(Clone, Debug)]
pub struct SwapTableOptions {
    pub sizes: Vec<usize>,
    /// The first-move outcomes of solved boards (CSV text).
    pub solved: String,
    /// Playouts of each first stone's search.
    pub visits: u64,
    pub seed: u64,
    pub out: PathBuf,
}

/// The exact outcomes of one solved board: whether a first stone on each cell wins.
#[derive(Clone, Debug, PartialEq)]
pub struct SolvedBoard {
    pub size: usize,
    pub first_player_wins: Vec<bool>,
}

/// Labels every stone, searches them, writes the table and returns a summary line per size.
///
/// # Errors
/// A message when the options are out of range, the outcome file is malformed or covers no
/// board, a search command fails or the file cannot be written.
pub fn run_swap_table(options: &SwapTableOptions) -> Result<Vec<String>, String> {
    if options.sizes.is_empty() || options.sizes.iter().any(|size| !(2..=hex_swap::MAX_SIZE).contains(size)) {
        return Err(format!("expected board sizes from 2 to {}", hex_swap::MAX_SIZE));
    }
    if options.visits == 0 {
        return Err("expected --visits > 0".to_string());
    }
    let solved = parse_solved_boards(&options.solved)?;
    let largest = solved.iter().max_by_key(|board| board.size).ok_or("the outcome file covers no whole board")?;
    let started = std::time::Instant::now();
    let mut sizes = options.sizes.clone();
    sizes.sort_unstable();
    sizes.dedup();
    let mut text = format!(
        "# ponder swap-table hex format 1: sizes {}, visits {}, seed {}, labels from solved {}\n\
         # size cell swap first_player_win_rate\n",
        sizes.iter().map(usize::to_string).collect::<Vec<_>>().join(","),
        options.visits,
        options.seed,
        solved.iter().map(|board| format!("{0}x{0}", board.size)).collect::<Vec<_>>().join(",")
    );
    for &size in &sizes {
        let labels = match solved.iter().find(|board| board.size == size) {
            Some(board) => board.first_player_wins.clone(),
            None => carried_labels(largest, size),
        };
        let values = search_values(size, options.visits, options.seed)?;
        for cell in 0..size * size {
            writeln!(text, "{size} {} {} {:.4}", format_cell(cell, size), u8::from(labels[cell]), values[cell])
                .expect("writing to a String");
        }
    }
    let table = SwapTable::parse(&text)?;
    std::fs::write(&options.out, &text).map_err(|e| format!("{}: {e}", options.out.display()))?;
    let mut summaries: Vec<String> = sizes
        .iter()
        .map(|&size| {
            let swapped = (0..size * size).filter(|&cell| table.swaps(size, cell) == Some(true)).count();
            let opening = table.balanced_opening(size).map_or("none".to_string(), |cell| {
                let value = table.first_stone(size, cell).map_or(0.5, |stone| stone.value);
                format!("{} (rated {value:.3})", format_cell(cell, size))
            });
            format!("{size}x{size}: swaps {swapped} of {} first stones, opens {opening}", size * size)
        })
        .collect();
    summaries.push(format!("wrote {} in {:.1}s", options.out.display(), started.elapsed().as_secs_f64()));
    Ok(summaries)
}

/// The whole boards of a first-move outcome file (its lines as
/// [`outcome_lines`] reads them); a board is kept when every cell has an outcome.
///
/// # Errors
/// The first malformed line, by number.
pub fn parse_solved_boards(text: &str) -> Result<Vec<SolvedBoard>, String> {
    let mut boards: Vec<(usize, Vec<Option<bool>>)> = Vec::new();
    for (number, fields) in outcome_lines(text) {
        let [board, cell, winner, ..] = fields[..] else {
            return Err(format!("line {number}: expected 'board,cell,winner', not '{}'", fields.join(",")));
        };
        let size = board
            .split_once('x')
            .filter(|(width, height)| width == height)
            .and_then(|(width, _)| width.parse::<usize>().ok())
            .filter(|size| (1..=hex_swap::MAX_SIZE).contains(size))
            .ok_or_else(|| format!("line {number}: '{board}' is not a square board such as 8x8"))?;
        let cell = parse_cell(cell, size).ok_or_else(|| format!("line {number}: '{cell}' is not a cell of {board}"))?;
        let first_player_wins = match winner.to_ascii_lowercase().as_str() {
            "black" | "b" => true,
            "white" | "w" => false,
            _ => return Err(format!("line {number}: winner '{winner}' is neither black nor white")),
        };
        let at = match boards.iter().position(|(known, _)| *known == size) {
            Some(at) => at,
            None => {
                boards.push((size, vec![None; size * size]));
                boards.len() - 1
            }
        };
        boards[at].1[cell] = Some(first_player_wins);
    }
    Ok(boards
        .into_iter()
        .filter_map(|(size, cells)| {
            let first_player_wins = cells.into_iter().collect::<Option<Vec<bool>>>()?;
            Some(SolvedBoard { size, first_player_wins })
        })
        .collect())
}

/// The labels of a `size` board carried over from `solved` by each cell's distances to the
/// edges (see the module docs). A stone and its 180-degree rotation make the same game, so the
/// rotation takes the label of the first of the two; on an odd board the middle row and column
/// have no middle line of their own on an even solved board, and this keeps them symmetric.
pub fn carried_labels(solved: &SolvedBoard, size: usize) -> Vec<bool> {
    let coordinate = |x: usize| carried_coordinate(x, size, solved.size);
    let cells = size * size;
    (0..cells)
        .map(|cell| {
            let cell = cell.min(cells - 1 - cell);
            let (column, row) = (coordinate(cell % size), coordinate(cell / size));
            solved.first_player_wins[row * solved.size + column]
        })
        .collect()
}

/// A row or column `x` of a `size` board on a `solved` board: as far from the same edge when
/// it is within the solved board's edge band (half its side, less one), else the middle line on
/// its side of the centre.
fn carried_coordinate(x: usize, size: usize, solved: usize) -> usize {
    let band = (solved / 2).saturating_sub(1);
    let from_far_edge = size - 1 - x;
    if x < band {
        x
    } else if from_far_edge < band {
        solved - 1 - from_far_edge
    } else if 2 * x < size - 1 {
        band.min(solved - 1)
    } else {
        (solved - 1 - band).min(solved - 1)
    }
}

/// The search's rating of every first stone of a `size` board.
fn search_values(size: usize, visits: u64, seed: u64) -> Result<Vec<f64>, String> {
    let cells = size * size;
    // One search per pair of a stone and its rotation (the centre of an odd board is its own
    // rotation).
    let searched: Vec<usize> = (0..cells).filter(|&cell| cell <= cells - 1 - cell).collect();
    let values = searched
        .par_iter()
        .map(|&cell| first_player_value(size, cell, visits, seed))
        .collect::<Result<Vec<f64>, String>>()?;
    let mut by_cell = vec![0.0; cells];
    for (&cell, &value) in searched.iter().zip(&values) {
        by_cell[cell] = value;
        by_cell[cells - 1 - cell] = value;
    }
    Ok(by_cell)
}

/// The first player's win rate after a first stone on `cell`, by a one-thread search of
/// `visits` playouts for the second player: 1 when it resigns (the solver proved the stone
/// wins), 0 when the solver answers with a proven win.
fn first_player_value(size: usize, cell: usize, visits: u64, seed: u64) -> Result<f64, String> {
    let mut session = Session::new("hex").map_err(|e| e.to_string())?;
    let mut run = |command: Command| session.execute(command).map_err(|e| e.to_string());
    run(Command::BoardSize { width: size, height: size })?;
    let search_seed = seed ^ ((size as u64) << 32) ^ cell as u64;
    for (name, value) in [
        ("threads", "1".to_string()),
        ("seed", search_seed.to_string()),
        ("max_time", "0".to_string()),
        ("max_visits", visits.to_string()),
    ] {
        run(Command::ParamSearch(ParamRequest::Set(name.to_string(), value)))?;
    }
    run(Command::Play { color: Color::Black, mv: format_cell(cell, size) })?;
    let reply = run(Command::RegGenMove(Color::White))?;
    if reply == "resign" {
        return Ok(1.0);
    }
    Ok(session.last_search().map_or(0.0, |search| 1.0 - search.value))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOLVED_6X6: &str = include_str!("../../tests/data/hex/first-move-outcomes-6x6.csv");
    const SOLVED_8X8: &str = include_str!("../../tests/data/hex/first-move-outcomes-8x8.csv");

    #[test]
    fn solved_boards_keep_their_labels_and_larger_boards_carry_them_by_edge_distance() {
        let boards = parse_solved_boards(SOLVED_8X8).unwrap();
        assert_eq!(boards.len(), 1);
        let solved = &boards[0];
        assert_eq!(solved.size, 8);
        assert_eq!(carried_labels(solved, 8), solved.first_player_wins, "a solved board keeps its labels");
        let wins = |cell: &str| solved.first_player_wins[parse_cell(cell, 8).unwrap()];
        for size in [9, 11, 13] {
            let labels = carried_labels(solved, size);
            let at = |cell: &str| labels[parse_cell(cell, size).unwrap()];
            // Corners and edge cells keep their place; the interior is the 8x8 middle.
            let last = (b'a' + size as u8 - 1) as char;
            assert_eq!(at("a1"), wins("a1"));
            assert_eq!(at(&format!("{last}1")), wins("h1"));
            assert_eq!(at(&format!("a{size}")), wins("a8"));
            assert_eq!(at("b2"), wins("b2"));
            assert_eq!(at(&format!("{}{}", (b'a' + size as u8 / 2) as char, size / 2 + 1)), wins("e5"));
            // The rotation that maps the board onto itself maps the labels too (the 8x8 file
            // is filled in by it).
            let cells = size * size;
            assert!((0..cells).all(|cell| labels[cell] == labels[cells - 1 - cell]), "size {size}");
        }
    }

    #[test]
    fn malformed_outcome_files_are_refused_and_partial_boards_dropped() {
        for (text, expected) in [
            ("6x6,a1\n", "line 1: expected 'board,cell,winner', not '6x6,a1'"),
            ("6x7,a1,black\n", "line 1: '6x7' is not a square board such as 8x8"),
            ("3x3,d1,black\n", "line 1: 'd1' is not a cell of 3x3"),
            ("3x3,a1,red\n", "line 1: winner 'red' is neither black nor white"),
        ] {
            assert_eq!(parse_solved_boards(text), Err(expected.to_string()), "{text:?}");
        }
        let partial = parse_solved_boards("2x2,a1,white\n2x2,b1,black\n").unwrap();
        assert!(partial.is_empty(), "half a board is no solved board");
    }

    #[test]
    fn the_table_is_reproducible_symmetric_and_follows_the_labels() {
        let dir = std::env::temp_dir().join(format!("ponder-swap-table-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let options = SwapTableOptions {
            sizes: vec![7, 6, 7],
            solved: SOLVED_6X6.to_string(),
            visits: 200,
            seed: 7,
            out: dir.join("a.swap"),
        };
        let summaries = run_swap_table(&options).unwrap();
        assert_eq!(summaries.len(), 3, "{summaries:?}");
        let again = SwapTableOptions { out: dir.join("b.swap"), ..options.clone() };
        run_swap_table(&again).unwrap();
        let text = std::fs::read_to_string(&options.out).unwrap();
        assert_eq!(text, std::fs::read_to_string(&again.out).unwrap(), "same options, same bytes");
        assert!(
            text.starts_with(
                "# ponder swap-table hex format 1: sizes 6,7, visits 200, seed 7, labels from solved 6x6\n"
            )
        );
        let table = SwapTable::parse(&text).unwrap();
        assert_eq!(table.sizes().collect::<Vec<_>>(), vec![6, 7]);
        let solved = &parse_solved_boards(SOLVED_6X6).unwrap()[0];
        for (size, labels) in [(6, solved.first_player_wins.clone()), (7, carried_labels(solved, 7))] {
            let cells = size * size;
            assert_eq!(labels.len(), cells);
            for (cell, &label) in labels.iter().enumerate() {
                assert_eq!(table.swaps(size, cell), Some(label));
                assert_eq!(
                    table.first_stone(size, cell).unwrap().value,
                    table.first_stone(size, cells - 1 - cell).unwrap().value
                );
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn out_of_range_options_are_refused() {
        let out = std::env::temp_dir().join("ponder-never-written.swap");
        for (sizes, visits, solved) in [
            (vec![], 10, SOLVED_6X6),
            (vec![1], 10, SOLVED_6X6),
            (vec![26], 10, SOLVED_6X6),
            (vec![5], 0, SOLVED_6X6),
            (vec![5], 10, ""),
        ] {
            let options = SwapTableOptions { sizes, solved: solved.to_string(), visits, seed: 1, out: out.clone() };
            assert!(run_swap_table(&options).is_err());
        }
        assert!(!out.exists());
    }
}
