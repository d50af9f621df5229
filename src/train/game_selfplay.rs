//! `ponder selfplay --game hex|gomoku`: games of the engine against itself, searched at a fixed
//! visit count on one thread, written as game records for the move-prior fits (`ponder train
//! --game hex`, [`super::hex_fit`]; `ponder train --game gomoku`, [`super::gomoku_fit`]). The
//! priors learn which move the search chose, so they distil the search's choices into priors (as
//! a policy is trained on a search's moves).
//!
//! # Shard format (text, version 1)
//!
//! One file per shard, `<GAME><SIZE>-s<SEED>-<SHARD>.txt` (`hex11-s1-0000.txt`,
//! `gomoku15-s1-0000.txt`). Lines starting with `#` are comments; the first says how the shard
//! was made (`# ponder selfplay <GAME> format 1: size <SIZE>, ...`). Every other line is one game:
//!
//! ```text
//! <game number> <winner: B|W|?> <random moves R> <move> <move> ...
//! ```
//!
//! Moves are cells in the game's notation (Hex `f6`, Gomoku `H8`), Black first, alternating.
//! The first `R` moves were drawn at random to vary the openings and are not the engine's
//! choice; every later move is the search's. The winner is the side that did not resign (Hex:
//! or whose edges are joined); `?` for a drawn Gomoku game. A game's moves depend only on the
//! run's seed, the game's number, the game, the size and the visits (one search thread, the
//! search seeded per game), so a shard's bytes depend only on those and the games it holds.
//!
//! # Match records
//!
//! The fits also read the SGF files of `ponder match --sgf` from the same directories: the
//! referee marks in the root comment how many first moves were its opening (`opening moves:
//! N`), and `ponder train --learn-from NAME` learns only the moves of the player whose `PB` or
//! `PW` holds NAME, so games against a stronger engine teach its choices.
//!
//! # The games
//!
//! Hex opens with 1 or 2 uniformly random stones (half the games each); Gomoku with 2 to 4
//! stones drawn uniformly from the 7x7 square around the centre (Black, White, ...), so the
//! openings differ but stay playable. Then the engine plays both sides with its default
//! settings (priors, solvers, threat search, the refutation check) at `visits` playouts per
//! move, keeping its tree between moves, until a side resigns or the board is full.

use std::path::{Path, PathBuf};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::engine::Session;
use crate::games::{Color, format_go_vertex};
use crate::protocol::command::{Command, ParamRequest};

/// The games whose self-play records a fit learns from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordGame {
    Hex,
    Gomoku,
}

impl RecordGame {
    /// The `set_game` name, also the shard files' prefix.
    pub fn name(self) -> &'static str {
        match self {
            RecordGame::Hex => "hex",
            RecordGame::Gomoku => "gomoku",
        }
    }

    /// The game named `name` (any case), if it has self-play records.
    pub fn from_name(name: &str) -> Option<RecordGame> {
        [RecordGame::Hex, RecordGame::Gomoku].into_iter().find(|game| game.name().eq_ignore_ascii_case(name))
    }

    /// The usual board side: 11 for Hex, 15 for Gomoku.
    pub fn default_size(self) -> usize {
        match self {
            RecordGame::Hex => 11,
            RecordGame::Gomoku => 15,
        }
    }

    /// The fewest and the most random stones that open a game.
    pub fn random_opening(self) -> (usize, usize) {
        match self {
            RecordGame::Hex => (1, 2),
            RecordGame::Gomoku => (2, 4),
        }
    }

    fn sizes(self) -> std::ops::RangeInclusive<usize> {
        match self {
            RecordGame::Hex => 2..=19,
            // The random opening's 7x7 square must fit.
            RecordGame::Gomoku => 7..=25,
        }
    }

    /// Cells a random opening stone is drawn from, as (column, row from 0).
    fn opening_cells(self, size: usize) -> Vec<(usize, usize)> {
        let range = match self {
            RecordGame::Hex => 0..size,
            RecordGame::Gomoku => size / 2 - 3..size / 2 + 4,
        };
        range.clone().flat_map(|row| range.clone().map(move |column| (column, row))).collect()
    }

    fn format_cell(self, (column, row): (usize, usize)) -> String {
        match self {
            RecordGame::Hex => format!("{}{}", (b'a' + column as u8) as char, row + 1),
            RecordGame::Gomoku => format_go_vertex(column, row),
        }
    }
}

/// What `ponder selfplay --game hex|gomoku` is asked to make.
#[derive(Clone, Debug)]
pub struct SelfplayOptions {
    pub game: RecordGame,
    pub seed: u64,
    pub games: usize,
    pub shards: usize,
    /// Board side.
    pub size: usize,
    /// Playouts per searched move.
    pub visits: u64,
    /// Only these shards (all when `None`): shards are independent, so machines or processes
    /// can each make some.
    pub only_shard: Option<usize>,
    pub out_dir: PathBuf,
}

/// One game record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// Board side (from the shard's first line).
    pub size: usize,
    pub number: usize,
    pub winner: Option<Color>,
    /// The leading moves that were drawn at random (or, in a match record, the referee's
    /// opening).
    pub random_moves: usize,
    pub moves: Vec<String>,
    /// The side whose moves are the choices to learn from; `None` for both (self-play).
    pub chooser: Option<Color>,
}

impl GameRecord {
    /// Whether the move at `ply`, made by `mover`, is a choice the fits learn from: past the
    /// random opening and by the side learned from.
    pub fn is_choice(&self, ply: usize, mover: Color) -> bool {
        ply >= self.random_moves && self.chooser.is_none_or(|chooser| chooser == mover)
    }
}

/// Writes the shards; returns a one-line summary per shard.
///
/// # Errors
/// A message when the options are out of range, a search command fails or a file cannot be
/// written.
pub fn run_selfplay(options: &SelfplayOptions) -> Result<Vec<String>, String> {
    if options.shards == 0 || options.games == 0 || options.shards > options.games {
        return Err("expected 1 <= shards <= games".to_string());
    }
    let sizes = options.game.sizes();
    if !sizes.contains(&options.size) || options.visits == 0 {
        return Err(format!("expected --size {} to {} and --visits > 0", sizes.start(), sizes.end()));
    }
    std::fs::create_dir_all(&options.out_dir).map_err(|e| format!("{}: {e}", options.out_dir.display()))?;
    let mut summaries = Vec::new();
    for shard in 0..options.shards {
        if options.only_shard.is_some_and(|only| only != shard) {
            continue;
        }
        let first = shard * options.games / options.shards;
        let end = (shard + 1) * options.games / options.shards;
        let started = std::time::Instant::now();
        let text = shard_text(options, first..end)?;
        let name = format!("{}{}-s{}-{shard:04}.txt", options.game.name(), options.size, options.seed);
        let path = options.out_dir.join(name);
        std::fs::write(&path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
        let moves: usize = text.lines().filter(|l| !l.starts_with('#')).map(|l| l.split(' ').count() - 3).sum();
        summaries.push(format!(
            "{}: games {first}..{end}, {moves} moves, {:.1}s",
            path.display(),
            started.elapsed().as_secs_f64()
        ));
    }
    Ok(summaries)
}

/// The first line of a shard, up to the size.
fn shard_prefix(game: RecordGame) -> String {
    format!("# ponder selfplay {} format 1: size ", game.name())
}

/// The text of a shard holding games `games`.
fn shard_text(options: &SelfplayOptions, games: std::ops::Range<usize>) -> Result<String, String> {
    let (fewest, most) = options.game.random_opening();
    let mut text = format!(
        "{}{}, seed {}, games {}..{}, visits {}, random opening {fewest}..={most}\n",
        shard_prefix(options.game),
        options.size,
        options.seed,
        games.start,
        games.end,
        options.visits,
    );
    for game in games {
        text.push_str(&format_record(&play_game(options, game)?));
        text.push('\n');
    }
    Ok(text)
}

/// One record as a shard line.
pub fn format_record(record: &GameRecord) -> String {
    let winner = match record.winner {
        Some(Color::Black) => "B",
        Some(Color::White) => "W",
        None => "?",
    };
    let mut line = format!("{} {winner} {}", record.number, record.random_moves);
    for mv in &record.moves {
        line.push(' ');
        line.push_str(mv);
    }
    line
}

/// Reads a shard line back, a game on a `size` board.
///
/// # Errors
/// A message saying what is wrong with the line.
pub fn parse_record(line: &str, size: usize) -> Result<GameRecord, String> {
    let mut words = line.split_ascii_whitespace();
    let mut next = |what: &str| words.next().ok_or_else(|| format!("missing {what}"));
    let number = next("game number")?.parse().map_err(|_| "bad game number".to_string())?;
    let winner = match next("winner")? {
        "B" => Some(Color::Black),
        "W" => Some(Color::White),
        "?" => None,
        other => return Err(format!("bad winner '{other}'")),
    };
    let random_moves = next("random moves")?.parse().map_err(|_| "bad random move count".to_string())?;
    let moves: Vec<String> = words.map(str::to_string).collect();
    if random_moves > moves.len() {
        return Err("more random moves than moves".to_string());
    }
    Ok(GameRecord { size, number, winner, random_moves, moves, chooser: None })
}

/// The board side a shard's first line gives, if it is a shard of `game`.
fn shard_size(game: RecordGame, first_line: &str) -> Option<usize> {
    let rest = first_line.strip_prefix(&shard_prefix(game))?;
    rest.split(',').next()?.parse().ok()
}

/// Writes `records` (games of `game` on a `size` board) into `dir` as shard 0 of a run with
/// seed 0, named and headed as [`run_selfplay`] names and heads its shards: test data for the
/// fits.
#[cfg(test)]
pub fn write_test_shard(dir: &Path, game: RecordGame, size: usize, records: &[GameRecord]) {
    let mut text = format!("{}{size}, seed 0, games 0..{}\n", shard_prefix(game), records.len());
    for record in records {
        text.push_str(&format_record(record));
        text.push('\n');
    }
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(format!("{}{size}-s0-0000.txt", game.name())), text).unwrap();
}

/// `count` freestyle Gomoku games on 11x11 for the fits' tests, each from `first` (a random cell
/// when `None`) and then `choose`'s move from the position, its legal moves and the games'
/// generator, until a five or `max_moves` stones: self-play-like records (one opening move, no
/// chooser) whose winner is the five's colour.
#[cfg(test)]
pub fn scripted_gomoku_games(
    count: usize,
    seed: u64,
    first: Option<&str>,
    max_moves: usize,
    mut choose: impl FnMut(&crate::games::mnk::Mnk, &[crate::games::mnk::Cell], &mut SmallRng) -> crate::games::mnk::Cell,
) -> Vec<GameRecord> {
    use crate::games::mnk::{Cell, Mnk, MnkConfig};
    use crate::games::{Game, GameConfig, Outcome};
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut config = MnkConfig::gomoku();
    config.set_size(11, 11).unwrap();
    (0..count)
        .map(|number| {
            let mut position = Mnk::new(&config);
            let first = match first {
                Some(text) => position.parse_move(text).unwrap(),
                None => Cell(rng.random_range(0..121)),
            };
            let mut moves = vec![position.format_move(first)];
            position.play(first).unwrap();
            let mut legal = Vec::new();
            while position.outcome().is_none() && moves.len() < max_moves {
                legal.clear();
                position.legal_moves(&mut legal);
                let mv = choose(&position, &legal, &mut rng);
                moves.push(position.format_move(mv));
                position.play(mv).unwrap();
            }
            let winner = match position.outcome() {
                Some(Outcome::Win(color)) => Some(color),
                _ => None,
            };
            GameRecord { size: 11, number, winner, random_moves: 1, moves, chooser: None }
        })
        .collect()
}

/// Seeds of a game: its random opening's generator and its search, from the run seed and the
/// game's number (SplitMix64 steps, so nearby numbers give unrelated seeds).
fn game_seed(seed: u64, game: usize, stream: u64) -> u64 {
    let mut z = seed ^ (game as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ stream.wrapping_mul(0xd1b5_4a32_d192_ed03);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The random opening of game number `game`: distinct cells drawn uniformly from the game's
/// opening area.
fn random_opening(options: &SelfplayOptions, game: usize) -> Vec<String> {
    let mut rng = SmallRng::seed_from_u64(game_seed(options.seed, game, 0));
    let (fewest, most) = options.game.random_opening();
    let count = rng.random_range(fewest..=most);
    let cells = options.game.opening_cells(options.size);
    let mut taken = Vec::new();
    while taken.len() < count {
        let cell = cells[rng.random_range(0..cells.len())];
        if !taken.contains(&cell) {
            taken.push(cell);
        }
    }
    taken.into_iter().map(|cell| options.game.format_cell(cell)).collect()
}

/// Plays game number `game` of the run.
fn play_game(options: &SelfplayOptions, game: usize) -> Result<GameRecord, String> {
    let mut session = Session::new(options.game.name()).map_err(|e| e.to_string())?;
    let mut run = |command: Command| session.execute(command).map_err(|e| e.to_string());
    run(Command::BoardSize { width: options.size, height: options.size })?;
    let search_seed = game_seed(options.seed, game, 1);
    for (name, value) in [
        ("threads", "1".to_string()),
        ("seed", search_seed.to_string()),
        ("max_time", "0".to_string()),
        ("max_visits", options.visits.to_string()),
    ] {
        run(Command::ParamSearch(ParamRequest::Set(name.to_string(), value)))?;
    }
    let mut moves = random_opening(options, game);
    let random_moves = moves.len();
    let mut color = Color::Black;
    for mv in &moves {
        run(Command::Play { color, mv: mv.clone() })?;
        color = color.opponent();
    }
    let cells = options.size * options.size;
    let mut winner = None;
    while moves.len() < cells {
        let reply = run(Command::GenMove(color))?;
        if reply == "resign" {
            winner = Some(color.opponent());
            break;
        }
        if reply == "pass" {
            // A finished Gomoku game without a winner.
            break;
        }
        moves.push(reply);
        color = color.opponent();
    }
    if winner.is_none() && moves.len() == cells && options.game == RecordGame::Hex {
        // A full Hex board always has a winner: the side that moved last joined its edges, or
        // the other did before; the loser's genmove says which.
        winner = Some(color.opponent());
    }
    Ok(GameRecord { size: options.size, number: game, winner, random_moves, moves, chooser: None })
}

/// The held-out records of `game` in `test` (read as [`load_records`] reads them) turned into
/// a fit's samples by `samples`, with the report line that names them (`unit`: what a sample
/// is).
///
/// # Errors
/// The messages of [`load_records`] and of `samples`.
pub fn held_out_samples<T>(
    game: RecordGame,
    test: &Path,
    learn_from: Option<&str>,
    unit: &str,
    samples: impl FnOnce(&[GameRecord]) -> Result<Vec<T>, String>,
) -> Result<(Vec<T>, String), String> {
    let (records, hash, _) = load_records(game, test, learn_from)?;
    let held_out = samples(&records)?;
    let line =
        format!("held-out {} ({} games, hash {hash:016x}), {} {unit}", test.display(), records.len(), held_out.len());
    Ok((held_out, line))
}

/// The game records of `dir`, in file-name order: every self-play shard (`*.txt`), whose
/// moves past the random opening are all choices, and every match record of `game` (`*.sgf`:
/// one game as `ponder match --sgf` writes them, or a collection of games as c-gomoku-cli's
/// `-sgf` does), whose moves past the referee's opening are choices of the player named
/// `learn_from` (a case-insensitive part of `PB` or `PW`; both players' when `None`). The
/// opening is the root comment's `opening moves: N` line, else the first moves commented
/// `opening move` (c-gomoku-cli's mark). Returns the records, the hash of the files' bytes
/// (FNV-1a 64 over each file's name and contents, in that order) and the number of files.
///
/// # Errors
/// A message when the directory cannot be read, a line or record is malformed, a match record
/// has no opening mark, or `learn_from` names neither of its players.
pub fn load_records(
    game: RecordGame,
    dir: &Path,
    learn_from: Option<&str>,
) -> Result<(Vec<GameRecord>, u64, usize), String> {
    use crate::knowledge::weights_format::{FNV_OFFSET, fnv1a};
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt" || ext == "sgf"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("{}: no shard files (*.txt) or match records (*.sgf)", dir.display()));
    }
    let mut hash = FNV_OFFSET;
    let mut records = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        hash = fnv1a(hash, name.as_bytes());
        hash = fnv1a(hash, text.as_bytes());
        if path.extension().is_some_and(|ext| ext == "sgf") {
            // One record per game tree: a file of `ponder match --sgf` holds one, c-gomoku-cli's
            // `-sgf` file every game of a run.
            for (index, tree) in crate::sgf::game_trees(&text).into_iter().enumerate() {
                let number = records.len();
                let record = match_record(game, tree, number, learn_from)
                    .map_err(|e| format!("{} (game {}): {e}", path.display(), index + 1))?;
                records.push(record);
            }
            continue;
        }
        let size = shard_size(game, text.lines().next().unwrap_or_default())
            .ok_or_else(|| format!("{}: not a {} self-play shard (first line)", path.display(), game.name()))?;
        for (number, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            records.push(parse_record(line, size).map_err(|e| format!("{}:{}: {e}", path.display(), number + 1))?);
        }
    }
    Ok((records, hash, files.len()))
}

/// A match record (SGF text) of `game` as game record number `number`, learning from the
/// player named `learn_from` (see [`load_records`]).
fn match_record(game: RecordGame, text: &str, number: usize, learn_from: Option<&str>) -> Result<GameRecord, String> {
    use crate::engine::{game_of_record, load_record};
    let record = crate::sgf::Record::from_sgf(text).map_err(|e| e.to_string())?;
    let entry = game_of_record(&record, game.name())?;
    if entry.name != game.name() {
        return Err(format!("a {} record, not {}", entry.name, game.name()));
    }
    let (width, height) = record.size;
    if width != height {
        return Err(format!("a {width}x{height} board (the fits take square boards)"));
    }
    if !record.setup.is_empty() {
        return Err("set-up stones (the fits replay moves from an empty board)".to_string());
    }
    let random_moves = match record.opening_moves() {
        Some(count) => count,
        None => commented_opening_moves(text)
            .filter(|&count| count > 0)
            .ok_or("no 'opening moves' line in the root comment and no move commented 'opening move'")?,
    };
    // Replaying checks every move and names it in the game's notation.
    let board = load_record(&record, None, game.name(), &crate::search::SearchParams::default())?;
    let moves: Vec<String> = board.moves_with_colors().into_iter().map(|(_, text)| text).collect();
    if random_moves > moves.len() {
        return Err("more opening moves than moves".to_string());
    }
    let winner = match record.result.as_deref().map(|result| result.get(..2)) {
        Some(Some("B+")) => Some(Color::Black),
        Some(Some("W+")) => Some(Color::White),
        _ => None,
    };
    let chooser = match learn_from {
        None => None,
        Some(player) => {
            let plays = |name: &Option<String>| {
                name.as_deref().is_some_and(|name| name.to_ascii_lowercase().contains(&player.to_ascii_lowercase()))
            };
            match (plays(&record.black_name), plays(&record.white_name)) {
                (true, true) => None,
                (true, false) => Some(Color::Black),
                (false, true) => Some(Color::White),
                (false, false) => return Err(format!("'{player}' is neither player (PB, PW)")),
            }
        }
    };
    Ok(GameRecord { size: width, number, winner, random_moves, moves, chooser })
}

/// How many first moves c-gomoku-cli marked as its opening: it comments each of them
/// `opening move` (and the engines' moves with their times).
fn commented_opening_moves(text: &str) -> Option<usize> {
    let nodes = crate::sgf::parse_main_line(text).ok()?;
    Some(nodes.iter().skip(1).take_while(|node| node.value("C") == Some(OPENING_MOVE_COMMENT)).count())
}

/// c-gomoku-cli's comment on a move of its opening.
const OPENING_MOVE_COMMENT: &str = "opening move";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_bad_lines_are_refused() {
        let record = GameRecord {
            size: 11,
            number: 7,
            winner: Some(Color::White),
            random_moves: 1,
            moves: vec!["a1".into(), "f6".into(), "e7".into()],
            chooser: None,
        };
        assert_eq!(format_record(&record), "7 W 1 a1 f6 e7");
        assert_eq!(parse_record(&format_record(&record), 11).unwrap(), record);
        assert!(parse_record("7 X 1 a1", 11).is_err());
        assert!(parse_record("7 B 3 a1", 11).is_err());
        assert!(parse_record("x B 0", 11).is_err());
        assert_eq!(shard_size(RecordGame::Hex, "# ponder selfplay hex format 1: size 13, seed 1"), Some(13));
        assert_eq!(shard_size(RecordGame::Gomoku, "# ponder selfplay hex format 1: size 13, seed 1"), None);
        assert_eq!(shard_size(RecordGame::Gomoku, "# ponder selfplay gomoku format 1: size 15, seed 1"), Some(15));
    }

    /// A Hex match record on 5x5 between `black` and `white`, its first `opening` moves marked
    /// as the referee's.
    fn hex_match_record(black: &str, white: &str, opening: Option<usize>) -> String {
        use crate::sgf::{Record, SgfMove, game_numbers};
        let mut record = Record::new(game_numbers::HEX, (5, 5));
        record.rules = Some("hex allow_swap=0".to_string());
        record.black_name = Some(black.to_string());
        record.white_name = Some(white.to_string());
        record.result = Some("W+R".to_string());
        record.comment = Some("resignation".to_string());
        let cells = [(0, 4), (2, 2), (1, 2), (2, 1), (3, 1)];
        let mut color = Color::Black;
        for (column, row) in cells {
            record.moves.push((color, SgfMove::Point { column, row }));
            color = color.opponent();
        }
        if let Some(count) = opening {
            record.mark_opening(count);
        }
        record.to_sgf()
    }

    #[test]
    fn match_records_load_beside_shards_with_the_named_players_moves_as_choices() {
        let dir = std::env::temp_dir().join(format!("ponder-match-records-{}", std::process::id()));
        let shard = GameRecord {
            size: 5,
            number: 0,
            winner: Some(Color::Black),
            random_moves: 1,
            moves: vec!["a1".into(), "c3".into()],
            chooser: None,
        };
        write_test_shard(&dir, RecordGame::Hex, 5, std::slice::from_ref(&shard));
        std::fs::write(dir.join("game-0001.sgf"), hex_match_record("ponder 0.1.0", "MoHex 2.0", Some(1))).unwrap();
        let (records, hash, files) = load_records(RecordGame::Hex, &dir, Some("mohex")).unwrap();
        assert_eq!(files, 2);
        assert_eq!(records[1], shard);
        let game = &records[0];
        assert_eq!(game.moves, ["a5", "c3", "b3", "c2", "d2"]);
        assert_eq!((game.random_moves, game.winner, game.chooser), (1, Some(Color::White), Some(Color::White)));
        let choices: Vec<usize> =
            (0..5).filter(|&ply| game.is_choice(ply, [Color::Black, Color::White][ply % 2])).collect();
        assert_eq!(choices, [1, 3]);
        // Without a name both players' moves are choices; the same bytes give the same hash.
        let (records, same_hash, _) = load_records(RecordGame::Hex, &dir, None).unwrap();
        assert_eq!((records[0].chooser, same_hash), (None, hash));
        let refused = |learn_from, text: String| {
            std::fs::write(dir.join("game-0001.sgf"), text).unwrap();
            load_records(RecordGame::Hex, &dir, learn_from).unwrap_err()
        };
        let error = refused(Some("gnugo"), hex_match_record("ponder", "MoHex", Some(1)));
        assert!(error.ends_with("game-0001.sgf (game 1): 'gnugo' is neither player (PB, PW)"), "{error}");
        let error = refused(None, hex_match_record("ponder", "MoHex", None));
        assert!(
            error.ends_with("no 'opening moves' line in the root comment and no move commented 'opening move'"),
            "{error}"
        );
        let error = refused(None, hex_match_record("ponder", "MoHex", Some(9)));
        assert!(error.ends_with("more opening moves than moves"), "{error}");
        let error = refused(None, "(;FF[4]GM[4]SZ[15]C[opening moves: 0];B[hh])".to_string());
        assert!(error.ends_with("a gomoku record, not hex"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_c_gomoku_cli_collection_loads_game_by_game_with_its_commented_opening() {
        // As c-gomoku-cli's `-sgf` writes a run: every game in one file, the opening's moves
        // commented `opening move`, the engines' moves with their times, a draw as `RE[0]`.
        let games = "(;FF[4]GM[4]GN[1]EV[rapfi x ponder]RO[1.1]RU[0]SZ[15]PB[rapfi]PW[ponder]RE[B+1]TE[Black win]\n\
                     ;B[hh]C[opening move];W[ii]C[opening move];B[hi]C[opening move]\n\
                     ;W[hg]C[480ms];B[hj]C[120ms])\n\n\
                     (;FF[4]GM[4]GN[2]EV[ponder x rapfi]RO[1.2]RU[0]SZ[15]PB[ponder]PW[rapfi]RE[0]TE[Draw]\n\
                     ;B[hh]C[opening move];W[ii]C[opening move]\n;B[jj]C[2000ms];W[kk]C[121ms])\n";
        let dir = std::env::temp_dir().join(format!("ponder-gomocup-records-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("games.sgf"), games).unwrap();
        let (records, _, files) = load_records(RecordGame::Gomoku, &dir, Some("rapfi")).unwrap();
        assert_eq!(files, 1);
        let summary: Vec<_> =
            records.iter().map(|r| (r.number, r.random_moves, r.winner, r.chooser, r.moves.len())).collect();
        assert_eq!(summary, [(0, 3, Some(Color::Black), Some(Color::Black), 5), (1, 2, None, Some(Color::White), 4)],);
        assert_eq!(records[0].moves[..3], ["H8", "J7", "H7"]);
        // A game of the file that is refused is named by its place in the file.
        std::fs::write(dir.join("games.sgf"), format!("{games}(;FF[4]GM[4]SZ[15]PB[a]PW[rapfi];B[hh];W[ii])")).unwrap();
        let error = load_records(RecordGame::Gomoku, &dir, Some("rapfi")).unwrap_err();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            error.ends_with(
                "games.sgf (game 3): no 'opening moves' line in the root comment and no move commented 'opening move'"
            ),
            "{error}"
        );
    }

    fn selfplay_is_reproducible(game: RecordGame, size: usize, visits: u64) -> Vec<GameRecord> {
        let dir = std::env::temp_dir().join(format!("ponder-{}-selfplay-{}", game.name(), std::process::id()));
        let options = SelfplayOptions {
            game,
            seed: 3,
            games: 2,
            shards: 1,
            size,
            visits,
            only_shard: None,
            out_dir: dir.clone(),
        };
        let first = shard_text(&options, 0..2).unwrap();
        assert_eq!(first, shard_text(&options, 0..2).unwrap());
        run_selfplay(&options).unwrap();
        let (records, _, files) = load_records(game, &dir, None).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(files, 1);
        assert_eq!(records.len(), 2);
        let (fewest, most) = game.random_opening();
        for record in &records {
            assert!((fewest..=most).contains(&record.random_moves));
        }
        // The engine played (a game may also end at once: a Hex side the solver proves lost
        // after the random opening resigns).
        assert!(records.iter().any(|record| record.moves.len() > record.random_moves), "{records:?}");
        records
    }

    #[test]
    fn hex_selfplay_is_reproducible_and_games_finish() {
        for record in selfplay_is_reproducible(RecordGame::Hex, 9, 200) {
            assert!(record.winner.is_some());
        }
    }

    #[test]
    fn gomoku_selfplay_is_reproducible_and_openings_stay_central() {
        for record in selfplay_is_reproducible(RecordGame::Gomoku, 9, 100) {
            // On 9x9 the opening square is columns B to H (no I) and rows 2 to 8.
            for mv in &record.moves[..record.random_moves] {
                assert!(!mv.starts_with('A') && !mv.starts_with('J') && mv[1..] != *"1" && mv[1..] != *"9", "{mv}");
            }
        }
    }
}
