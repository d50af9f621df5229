//! `ponder selfplay --game reversi`: games with randomised openings, their positions written to
//! shards with the exact solver's score where the empties allow.
//!
//! # Shard format (text, version 1)
//!
//! One file per shard, `reversi-s<SEED>-<SHARD>.txt`. Lines starting with `#` are comments; the
//! first says how the shard was made. Every other line is one position:
//!
//! ```text
//! <64 squares a1 b1 .. h1 a2 .. h8: X black, O white, - empty> <X|O: side to move> <score|?>
//! ```
//!
//! `score` is the exact final disc difference for the side to move under perfect play, empty
//! squares to the winner (the FFO convention of `ponder solve`), or `?` where the position had
//! more empties than the solver was asked to take. Positions where the side to move must pass
//! are not written. Each game draws its moves from its own generator, seeded by the run's seed
//! and the game's number, so a shard's bytes depend only on the seed, the game numbers it holds
//! and the solve limit.
//!
//! # The games
//!
//! A game opens with a random number (0 to [`MAX_RANDOM_OPENING`]) of uniformly random moves,
//! then each side plays the [`Player`]'s move, with [`RANDOM_MOVE_SHARE`] of the moves random
//! instead, so that the positions cover play of varied quality. The default player is a cheap
//! heuristic (corners first, X- and C-squares next to an empty corner avoided, the opponent's
//! mobility kept low). `--player-depth D` plays the embedded evaluation's alpha-beta move at
//! depth D instead: its games look more like those of strong players, whose positions the
//! evaluation meets in matches. Such shards depend on the weights the binary embeds, so their
//! first line names the weights' data hash.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::games::reversi::{Reversi, ReversiConfig, ReversiMove, legal_move_mask};
use crate::games::{Color, Game};
use crate::knowledge::reversi_eval::{self, Evaluator};
use crate::search::reversi_alphabeta::{MidgameLimits, search_midgame};
use crate::solvers::reversi_endgame::{SolveOptions, solve_endgame};

/// The most random moves that open a game.
pub const MAX_RANDOM_OPENING: u32 = 20;

/// The share of moves after the opening played at random.
pub const RANDOM_MOVE_SHARE: f64 = 0.1;

/// The solver's table for labelling: 2^18 entries (4 MiB), plenty for 20 empties.
const LABEL_TABLE_BITS: u32 = 18;

/// What `ponder selfplay` is asked to make.
#[derive(Clone, Debug)]
pub struct SelfplayOptions {
    pub seed: u64,
    pub games: usize,
    pub shards: usize,
    /// Positions with at most this many empties get their exact score.
    pub solve_empties: u32,
    /// Who plays the moves that are not random.
    pub player: Player,
    pub out_dir: PathBuf,
}

/// Who plays a self-play game's moves that are not random.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Player {
    /// A one-ply heuristic (corners, X- and C-squares, mobility).
    Heuristic,
    /// Alpha-beta to this depth with the embedded evaluation (no ProbCut, no time limit, so the
    /// move depends only on the position and the weights).
    Search { depth: u32 },
}

/// The deepest `--player-depth`: deeper games cost too much for data generation.
pub const MAX_PLAYER_DEPTH: u32 = 10;

/// One labelled position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Discs of the side to move.
    pub player: u64,
    pub opponent: u64,
    pub to_move: Color,
    /// The exact final disc difference for the side to move, when solved.
    pub score: Option<i32>,
}

impl Sample {
    pub fn empties(&self) -> u32 {
        (!(self.player | self.opponent)).count_ones()
    }
}

/// Writes the shards; returns a one-line summary per shard.
///
/// # Errors
/// A message when the options are out of range or a file cannot be written.
pub fn run_selfplay(options: &SelfplayOptions) -> Result<Vec<String>, String> {
    if options.shards == 0 || options.games == 0 || options.shards > options.games {
        return Err("expected 1 <= shards <= games".to_string());
    }
    if options.solve_empties > 24 {
        return Err(format!("--solve-empties {}: at most 24", options.solve_empties));
    }
    if let Player::Search { depth } = options.player {
        if !(1..=MAX_PLAYER_DEPTH).contains(&depth) {
            return Err(format!("--player-depth {depth}: expected 0 (the heuristic) to {MAX_PLAYER_DEPTH}"));
        }
        reversi_eval::embedded().map_err(|e| format!("embedded weights: {e}"))?;
    }
    std::fs::create_dir_all(&options.out_dir).map_err(|e| format!("{}: {e}", options.out_dir.display()))?;
    let mut summaries = Vec::new();
    for shard in 0..options.shards {
        let first = shard * options.games / options.shards;
        let end = (shard + 1) * options.games / options.shards;
        let started = std::time::Instant::now();
        let text = shard_text(options.seed, first..end, options.solve_empties, options.player);
        let path = shard_path(&options.out_dir, options.seed, shard);
        std::fs::write(&path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
        let positions = text.lines().filter(|line| !line.starts_with('#')).count();
        summaries.push(format!(
            "{}: games {first}..{end}, {positions} positions, {:.1}s",
            path.display(),
            started.elapsed().as_secs_f64()
        ));
    }
    Ok(summaries)
}

fn shard_path(dir: &Path, seed: u64, shard: usize) -> PathBuf {
    dir.join(format!("reversi-s{seed}-{shard:04}.txt"))
}

/// The text of a shard holding games `games` of the run seeded `seed`.
///
/// # Panics
/// With [`Player::Search`] when the embedded weights are damaged ([`run_selfplay`] checks them
/// first).
pub fn shard_text(seed: u64, games: std::ops::Range<usize>, solve_empties: u32, player: Player) -> String {
    let mut text = format!(
        "# ponder selfplay reversi format 1: seed {seed}, games {}..{}, solve_empties {solve_empties}, \
         random opening 0..={MAX_RANDOM_OPENING}, random share {RANDOM_MOVE_SHARE}",
        games.start, games.end
    );
    if let Player::Search { depth } = player {
        let hash = reversi_eval::embedded_header().expect("embedded weights checked").data_hash;
        write!(text, ", player search depth {depth} with the weights of data {hash:016x}")
            .expect("writing to a String");
    }
    text.push('\n');
    for game in games {
        for sample in play_game(seed, game, solve_empties, player) {
            text.push_str(&format_sample(&sample));
            text.push('\n');
        }
    }
    text
}

/// The generator of game `game` of the run seeded `seed`.
fn game_rng(seed: u64, game: usize) -> SmallRng {
    SmallRng::seed_from_u64(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (game as u64).wrapping_add(1))
}

/// Plays one game and returns its positions (those with a placement), labelled.
///
/// # Panics
/// With [`Player::Search`] when the embedded weights are damaged.
pub fn play_game(seed: u64, game: usize, solve_empties: u32, player: Player) -> Vec<Sample> {
    let evaluator = match player {
        Player::Heuristic => None,
        Player::Search { .. } => Some(reversi_eval::embedded().expect("embedded weights checked")),
    };
    let mut rng = game_rng(seed, game);
    let random_opening = rng.random_range(0..=MAX_RANDOM_OPENING);
    let mut position = Reversi::new(&ReversiConfig);
    let mut samples = Vec::new();
    let mut moves = Vec::new();
    let mut ply = 0;
    while position.outcome().is_none() {
        if position.placement_mask() != 0 {
            samples.push(label(&position, solve_empties));
        }
        moves.clear();
        position.legal_moves(&mut moves);
        let random = ply < random_opening || rng.random_bool(RANDOM_MOVE_SHARE);
        let mv = match (random, player, evaluator) {
            (true, _, _) => moves[rng.random_range(0..moves.len())],
            (false, Player::Search { depth }, Some(evaluator)) => searched_move(&position, evaluator, depth),
            _ => heuristic_move(&position, &moves, &mut rng),
        };
        position.play_unchecked(mv);
        ply += 1;
    }
    samples
}

fn label(position: &Reversi, solve_empties: u32) -> Sample {
    let score = (position.empty_squares().count_ones() <= solve_empties).then(|| {
        let options = SolveOptions { threads: 1, table_bits: LABEL_TABLE_BITS, stop: None };
        solve_endgame(position, &options).expect("nothing stops a labelling solve").score
    });
    Sample { player: position.player_discs(), opponent: position.opponent_discs(), to_move: position.to_move(), score }
}

/// The move of a fixed-depth alpha-beta search with `evaluator`.
fn searched_move(position: &Reversi, evaluator: &Evaluator, depth: u32) -> ReversiMove {
    let never = std::sync::atomic::AtomicBool::new(false);
    let limits = MidgameLimits::to_depth(depth, &never);
    search_midgame(position, evaluator, &limits).expect("a running game has a move").best_move
}

const CORNERS: u64 = 0x8100_0000_0000_0081;
/// b2, g2, b7, g7 with the corner each touches.
const X_SQUARES: [(usize, usize); 4] = [(9, 0), (14, 7), (49, 56), (54, 63)];
/// The edge squares next to a corner, with that corner.
const C_SQUARES: [(usize, usize); 8] = [(1, 0), (8, 0), (6, 7), (15, 7), (48, 56), (57, 56), (55, 63), (62, 63)];

/// The best move by a one-ply heuristic, ties broken at random.
fn heuristic_move(position: &Reversi, moves: &[ReversiMove], rng: &mut SmallRng) -> ReversiMove {
    let empty = position.empty_squares();
    let mut score = |mv: ReversiMove| -> i32 {
        let Some(square) = mv.index() else { return 0 };
        let mut after = position.clone();
        after.play_unchecked(mv);
        let replies = legal_move_mask(after.player_discs(), after.opponent_discs());
        let mut score = -3 * replies.count_ones() as i32 - 10 * (replies & CORNERS).count_ones() as i32;
        if CORNERS >> square & 1 != 0 {
            score += 30;
        }
        let next_to_empty_corner =
            |list: &[(usize, usize)]| list.iter().any(|&(near, corner)| near == square && empty >> corner & 1 != 0);
        if next_to_empty_corner(&X_SQUARES) {
            score -= 20;
        }
        if next_to_empty_corner(&C_SQUARES) {
            score -= 6;
        }
        score * 4 + rng.random_range(0..4)
    };
    let scored: Vec<(i32, ReversiMove)> = moves.iter().map(|&mv| (score(mv), mv)).collect();
    scored.iter().max_by_key(|(score, _)| *score).map(|&(_, mv)| mv).expect("a running game has a move")
}

/// One shard line for `sample`.
pub fn format_sample(sample: &Sample) -> String {
    let (black, white) = match sample.to_move {
        Color::Black => (sample.player, sample.opponent),
        Color::White => (sample.opponent, sample.player),
    };
    let mut line = String::with_capacity(72);
    for square in 0..64 {
        line.push(if black >> square & 1 != 0 {
            'X'
        } else if white >> square & 1 != 0 {
            'O'
        } else {
            '-'
        });
    }
    let mover = if sample.to_move == Color::Black { 'X' } else { 'O' };
    match sample.score {
        Some(score) => write!(line, " {mover} {score}").expect("writing to a String"),
        None => write!(line, " {mover} ?").expect("writing to a String"),
    }
    line
}

/// Reads one shard line (not a comment).
///
/// # Errors
/// A message saying what is wrong with the line.
pub fn parse_sample(line: &str) -> Result<Sample, String> {
    let mut fields = line.split_ascii_whitespace();
    let (Some(board), Some(mover), Some(score), None) = (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Err("expected three fields: board, side to move, score".to_string());
    };
    if board.len() != 64 {
        return Err(format!("board of {} squares, expected 64", board.len()));
    }
    let (mut black, mut white) = (0u64, 0u64);
    for (square, byte) in board.bytes().enumerate() {
        match byte {
            b'X' => black |= 1 << square,
            b'O' => white |= 1 << square,
            b'-' => {}
            _ => return Err(format!("square {square}: '{}' is not X, O or -", byte as char)),
        }
    }
    let to_move = match mover {
        "X" => Color::Black,
        "O" => Color::White,
        _ => return Err(format!("side to move '{mover}' is not X or O")),
    };
    let score = match score {
        "?" => None,
        text => Some(text.parse::<i32>().ok().filter(|s| s.abs() <= 64).ok_or(format!("score '{text}'"))?),
    };
    let (player, opponent) = if to_move == Color::Black { (black, white) } else { (white, black) };
    Ok(Sample { player, opponent, to_move, score })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_deterministic_and_their_lines_round_trip() {
        let text = shard_text(3, 0..2, 10, Player::Heuristic);
        assert_eq!(text, shard_text(3, 0..2, 10, Player::Heuristic));
        assert_ne!(text, shard_text(4, 0..2, 10, Player::Heuristic));
        let samples: Vec<Sample> =
            text.lines().filter(|line| !line.starts_with('#')).map(|line| parse_sample(line).unwrap()).collect();
        // Two whole games: dozens of positions, the late ones solved.
        assert!(samples.len() > 80, "{}", samples.len());
        for sample in &samples {
            assert_eq!(sample.score.is_some(), sample.empties() <= 10);
            assert_eq!(parse_sample(&format_sample(sample)), Ok(*sample));
        }
        // Games do not depend on the shard that holds them.
        let body =
            |text: &str| text.lines().filter(|line| !line.starts_with('#')).map(String::from).collect::<Vec<_>>();
        let second_alone = body(&shard_text(3, 1..2, 10, Player::Heuristic));
        assert!(!second_alone.is_empty() && second_alone.len() < samples.len());
        assert!(body(&text).ends_with(&second_alone));
    }

    #[test]
    fn a_search_player_plays_its_own_deterministic_games() {
        let searched = shard_text(3, 0..2, 10, Player::Search { depth: 2 });
        assert_eq!(searched, shard_text(3, 0..2, 10, Player::Search { depth: 2 }));
        let header = searched.lines().next().unwrap();
        let hash = reversi_eval::embedded_header().unwrap().data_hash;
        assert!(header.ends_with(&format!("player search depth 2 with the weights of data {hash:016x}")), "{header}");
        // Same seed, so the same random openings: the games part where the players differ.
        let heuristic = shard_text(3, 0..2, 10, Player::Heuristic);
        assert_ne!(searched.lines().skip(1).collect::<Vec<_>>(), heuristic.lines().skip(1).collect::<Vec<_>>());
        // A whole game, labelled as the heuristic's games are.
        let samples = play_game(3, 0, 10, Player::Search { depth: 2 });
        assert!(samples.len() > 40, "{}", samples.len());
        assert!(samples.iter().all(|sample| sample.score.is_some() == (sample.empties() <= 10)));
    }

    #[test]
    fn player_depth_out_of_range_is_refused() {
        let options = SelfplayOptions {
            seed: 1,
            games: 1,
            shards: 1,
            solve_empties: 8,
            player: Player::Search { depth: MAX_PLAYER_DEPTH + 1 },
            out_dir: PathBuf::from("/nonexistent-never-written"),
        };
        assert_eq!(run_selfplay(&options).unwrap_err(), format!("--player-depth 11: expected 0 (the heuristic) to 10"));
    }

    #[test]
    fn labels_are_the_solver_scores_of_the_positions() {
        let samples = play_game(5, 0, 8, Player::Heuristic);
        let last = samples.last().unwrap();
        let position = Reversi::from_bitboards(
            if last.to_move == Color::Black { last.player } else { last.opponent },
            if last.to_move == Color::Black { last.opponent } else { last.player },
            last.to_move,
        )
        .unwrap();
        let solved = solve_endgame(&position, &SolveOptions::default()).unwrap();
        assert_eq!(last.score, Some(solved.score));
    }

    #[test]
    fn bad_lines_are_refused_with_a_reason() {
        let good = format_sample(&play_game(1, 0, 0, Player::Heuristic)[0]);
        assert!(parse_sample(&good).is_ok());
        assert!(parse_sample("").is_err());
        assert!(parse_sample(&good.replace(" X ", " Z ")).unwrap_err().contains("side to move"));
        assert!(parse_sample(&good.replacen('-', "*", 1)).unwrap_err().contains("square"));
        assert!(parse_sample(&format!("{good} extra")).is_err());
        assert!(parse_sample(&good.replace('?', "99")).is_err());
        assert!(parse_sample(&good[1..]).unwrap_err().contains("63 squares"));
    }
}
