//! `ponder selfplay --game hex`: games of the engine against itself, searched at a fixed visit
//! count on one thread, written as game records for the move-pattern fit (`ponder train --game
//! hex`, [`super::hex_fit`]). The patterns learn which move the search chose, so they distil the
//! search's choices into priors (as a policy is trained on a search's moves).
//!
//! # Shard format (text, version 1)
//!
//! One file per shard, `hex<SIZE>-s<SEED>-<SHARD>.txt`. Lines starting with `#` are comments; the
//! first says how the shard was made. Every other line is one game:
//!
//! ```text
//! <game number> <winner: B|W|?> <random moves R> <move> <move> ...
//! ```
//!
//! Moves are cells in Hex notation (`f6`), Black first, alternating. The first `R` moves were
//! drawn at random to vary the openings and are not the engine's choice; every later move is
//! the search's. The winner is the side that did not resign (or whose edges are joined); `?`
//! when the game reached the move limit. A game's moves depend only on the run's seed, the
//! game's number, the size and the visits (one search thread, the search seeded per game), so a
//! shard's bytes depend only on those and the games it holds.
//!
//! # The games
//!
//! A game opens with 1 or 2 uniformly random stones (half the games each), then the engine plays
//! both sides with its default settings (priors, solver, in-tree knowledge) at `visits`
//! playouts per move, keeping its tree between moves, until a side resigns a proven loss.

use std::path::{Path, PathBuf};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::engine::Session;
use crate::games::Color;
use crate::protocol::command::{Command, ParamRequest};

/// The most random stones that open a game.
pub const MAX_RANDOM_OPENING: usize = 2;

/// What `ponder selfplay --game hex` is asked to make.
#[derive(Clone, Debug)]
pub struct HexSelfplayOptions {
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
    /// The leading moves that were drawn at random.
    pub random_moves: usize,
    pub moves: Vec<String>,
}

/// Writes the shards; returns a one-line summary per shard.
///
/// # Errors
/// A message when the options are out of range, a search command fails or a file cannot be
/// written.
pub fn run_selfplay(options: &HexSelfplayOptions) -> Result<Vec<String>, String> {
    if options.shards == 0 || options.games == 0 || options.shards > options.games {
        return Err("expected 1 <= shards <= games".to_string());
    }
    if !(2..=19).contains(&options.size) || options.visits == 0 {
        return Err("expected --size 2 to 19 and --visits > 0".to_string());
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
        let path = options.out_dir.join(format!("hex{}-s{}-{shard:04}.txt", options.size, options.seed));
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

/// The text of a shard holding games `games`.
fn shard_text(options: &HexSelfplayOptions, games: std::ops::Range<usize>) -> Result<String, String> {
    let mut text = format!(
        "# ponder selfplay hex format 1: size {}, seed {}, games {}..{}, visits {}, random opening 1..={}\n",
        options.size, options.seed, games.start, games.end, options.visits, MAX_RANDOM_OPENING
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
    Ok(GameRecord { size, number, winner, random_moves, moves })
}

/// The board side a shard's first line gives.
fn shard_size(first_line: &str) -> Option<usize> {
    let rest = first_line.strip_prefix("# ponder selfplay hex format 1: size ")?;
    rest.split(',').next()?.parse().ok()
}

/// Seeds of a game: its random opening's generator and its search, from the run seed and the
/// game's number (SplitMix64 steps, so nearby numbers give unrelated seeds).
fn game_seed(seed: u64, game: usize, stream: u64) -> u64 {
    let mut z = seed ^ (game as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ stream.wrapping_mul(0xd1b5_4a32_d192_ed03);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Plays game number `game` of the run.
fn play_game(options: &HexSelfplayOptions, game: usize) -> Result<GameRecord, String> {
    let mut session = Session::new("hex").map_err(|e| e.to_string())?;
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
    let mut rng = SmallRng::seed_from_u64(game_seed(options.seed, game, 0));
    let random_moves = rng.random_range(1..=MAX_RANDOM_OPENING);
    let cells = options.size * options.size;
    let mut taken = Vec::new();
    let mut moves = Vec::new();
    let mut color = Color::Black;
    while taken.len() < random_moves {
        let cell = rng.random_range(0..cells);
        if taken.contains(&cell) {
            continue;
        }
        taken.push(cell);
        let mv = format!("{}{}", (b'a' + (cell % options.size) as u8) as char, cell / options.size + 1);
        run(Command::Play { color, mv: mv.clone() })?;
        moves.push(mv);
        color = color.opponent();
    }
    let mut winner = None;
    while moves.len() < cells {
        let reply = run(Command::GenMove(color))?;
        if reply == "resign" {
            winner = Some(color.opponent());
            break;
        }
        moves.push(reply);
        color = color.opponent();
    }
    if winner.is_none() && moves.len() == cells {
        // A full board always has a winner: the side that moved last joined its edges, or the
        // other did before; the loser's genmove says which.
        winner = Some(color.opponent());
    }
    Ok(GameRecord { size: options.size, number: game, winner, random_moves, moves })
}

/// The game records of every shard file (`*.txt`) of `dir`, in file-name order, with the hash
/// of their bytes (FNV-1a 64 over each file's name and contents, in that order).
///
/// # Errors
/// A message when the directory cannot be read or a line is malformed.
pub fn load_records(dir: &Path) -> Result<(Vec<GameRecord>, u64, usize), String> {
    use crate::knowledge::weights_format::{FNV_OFFSET, fnv1a};
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("{}: no shard files (*.txt)", dir.display()));
    }
    let mut hash = FNV_OFFSET;
    let mut records = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        hash = fnv1a(hash, name.as_bytes());
        hash = fnv1a(hash, text.as_bytes());
        let size = shard_size(text.lines().next().unwrap_or_default())
            .ok_or_else(|| format!("{}: not a hex self-play shard (first line)", path.display()))?;
        for (number, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            records.push(parse_record(line, size).map_err(|e| format!("{}:{}: {e}", path.display(), number + 1))?);
        }
    }
    Ok((records, hash, files.len()))
}

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
        };
        assert_eq!(format_record(&record), "7 W 1 a1 f6 e7");
        assert_eq!(parse_record(&format_record(&record), 11).unwrap(), record);
        assert!(parse_record("7 X 1 a1", 11).is_err());
        assert!(parse_record("7 B 3 a1", 11).is_err());
        assert!(parse_record("x B 0", 11).is_err());
        assert_eq!(shard_size("# ponder selfplay hex format 1: size 13, seed 1"), Some(13));
    }

    #[test]
    fn selfplay_is_reproducible_and_games_finish() {
        let dir = std::env::temp_dir().join(format!("ponder-hex-selfplay-{}", std::process::id()));
        let options = HexSelfplayOptions {
            seed: 3,
            games: 2,
            shards: 1,
            size: 5,
            visits: 200,
            only_shard: None,
            out_dir: dir.clone(),
        };
        let first = shard_text(&options, 0..2).unwrap();
        assert_eq!(first, shard_text(&options, 0..2).unwrap());
        run_selfplay(&options).unwrap();
        let (records, _, files) = load_records(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(files, 1);
        assert_eq!(records.len(), 2);
        for record in records {
            assert!(record.winner.is_some());
            assert!((1..=MAX_RANDOM_OPENING).contains(&record.random_moves));
            assert!(record.moves.len() > record.random_moves, "{record:?}");
        }
    }
}
