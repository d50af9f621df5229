//! One refereed game between two GTP engines: set-up, the move loop with clocks, and the
//! result. The referee keeps its own board with ponder's rules, so it judges every move itself.

use std::time::{Duration, Instant};

use super::engine_process::{EngineFailure, GtpEngine};
use super::{MatchConfig, TimeLimit};
use crate::engine::clock::{Clocks, TimeControl, TimeSystem};
use crate::engine::{ActiveGame, find_game, record_of};
use crate::games::Color;
use crate::search::SearchParams;
use crate::sgf::Record;

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// By the rules of the game; the text is the `final_score` (`B+`, `W+12`, `0`).
    Rules(String),
    Resignation,
    /// A clock ran out (the referee's wall clock, with the margin).
    Time,
    /// A move the rules refuse, an unreadable answer, a crash, a rejected legal move.
    Forfeit(String),
    /// Both sides passed in a game that did not end, or the move limit was reached.
    Adjudicated(String),
}

/// The result of one game.
#[derive(Clone, Debug)]
pub struct GameResult {
    /// The winner's colour; `None` for a draw.
    pub winner: Option<Color>,
    pub ending: Ending,
    /// Moves played (the opening included).
    pub moves: usize,
    /// Thinking time used by Black and White, seconds.
    pub seconds: [f64; 2],
    /// Moves Black and White were asked for (`genmove`s; the opening's moves are not theirs).
    pub genmoves: [usize; 2],
    /// The game as an SGF record (players, result and reason filled in).
    pub record: Record,
}

impl GameResult {
    /// The SGF `RE` value: `B+R`, `W+T`, `B+F`, the rules' score, or `0`.
    pub fn result_text(&self) -> String {
        match (&self.ending, self.winner) {
            (Ending::Rules(score), _) => score.clone(),
            (_, None) => "0".to_string(),
            (Ending::Resignation, Some(color)) => format!("{}+R", color.letter()),
            (Ending::Time, Some(color)) => format!("{}+T", color.letter()),
            (_, Some(color)) => format!("{}+F", color.letter()),
        }
    }

    /// The reason in words, for the results table and the SGF comment.
    pub fn reason(&self) -> String {
        match &self.ending {
            Ending::Rules(_) => "rules".to_string(),
            Ending::Resignation => "resignation".to_string(),
            Ending::Time => "time".to_string(),
            Ending::Forfeit(why) | Ending::Adjudicated(why) => why.clone(),
        }
    }
}

/// A failure that stops the whole match: the engines or the settings do not fit the game.
pub type SetupError = String;

/// The referee's board for the configured game, size and variant.
///
/// # Errors
/// A message when the game, size or a parameter is unknown to ponder.
pub fn referee_board(config: &MatchConfig) -> Result<Box<dyn ActiveGame>, SetupError> {
    let entry = find_game(&config.game).ok_or_else(|| format!("unknown game '{}'", config.game))?;
    // The referee never searches: a small memory cap keeps its arena tiny.
    let params = SearchParams { max_memory_mb: 1, ..SearchParams::default() };
    let mut board = (entry.create)(&params);
    if let Some((width, height)) = config.size {
        board.set_size(width, height).map_err(|error| format!("--size {width}x{height}: {error}"))?;
    }
    for (name, value) in &config.params {
        board.set_param(name, value).map_err(|error| format!("--param-game {name}={value}: {error}"))?;
    }
    Ok(board)
}

/// Sends a set-up command that must succeed.
fn must(engine: &mut GtpEngine, command: &str, deadline: Duration) -> Result<(), SetupError> {
    match engine.send(command, deadline) {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(message)) => Err(format!("{} refused '{command}': {message}", engine.name())),
        Err(failure) => Err(format!("{} on '{command}': {failure}", engine.name())),
    }
}

/// Brings an engine to the start of a game: game, size, variant, empty board, clock.
fn prepare(engine: &mut GtpEngine, config: &MatchConfig, board: &dyn ActiveGame) -> Result<(), SetupError> {
    let deadline = config.command_timeout;
    if engine.knows("set_game") {
        must(engine, &format!("set_game {}", config.game), deadline)?;
    }
    let (width, height) = board.size();
    if width == height {
        must(engine, &format!("boardsize {width}"), deadline)?;
    } else if engine.knows("rectangular_boardsize") {
        must(engine, &format!("rectangular_boardsize {width} {height}"), deadline)?;
    } else {
        must(engine, &format!("boardsize {width} {height}"), deadline)?;
    }
    if engine.knows("param_game") {
        for (name, value) in &config.params {
            must(engine, &format!("param_game {name} {value}"), deadline)?;
        }
    }
    must(engine, "clear_board", deadline)?;
    match config.time {
        TimeLimit::None => {}
        TimeLimit::PerMove(seconds) => {
            if engine.knows("time_settings") {
                must(engine, &format!("time_settings 0 {seconds} 1"), deadline)?;
            }
        }
        TimeLimit::Canadian { main, period, stones } => {
            if engine.knows("time_settings") {
                must(engine, &format!("time_settings {main} {period} {stones}"), deadline)?;
            }
        }
        TimeLimit::Clock { main, increment } => {
            if increment > 0.0 && engine.knows("kata-time_settings") {
                must(engine, &format!("kata-time_settings fischer {main} {increment}"), deadline)?;
            } else if engine.knows("time_settings") {
                must(engine, &format!("time_settings {main} 0 0"), deadline)?;
            }
        }
    }
    Ok(())
}

/// Plays one game. `engines[0]` plays Black, `engines[1]` White; `opening` is played first.
///
/// # Errors
/// A [`SetupError`] when an engine refuses the game set-up or the opening: the match cannot go
/// on. Everything an engine does wrong during play loses it the game instead.
pub fn play_game(
    config: &MatchConfig,
    engines: [&mut GtpEngine; 2],
    opening: &[String],
) -> Result<GameResult, SetupError> {
    let [black, white] = engines;
    let mut players = [black, white];
    let mut board = referee_board(config)?;
    for engine in players.iter_mut() {
        prepare(engine, config, board.as_ref())?;
    }
    // 1. The opening: the referee plays it and tells both engines.
    for text in opening {
        let color = board.to_move();
        board.play(color, text).map_err(|error| format!("opening move {text}: {error}"))?;
        for engine in players.iter_mut() {
            must(engine, &format!("play {} {text}", color.letter()), config.command_timeout)?;
        }
    }
    // 2. The move loop: ask the side to move, judge the answer, tell the other side.
    let mut clocks = match config.time {
        TimeLimit::Clock { main, .. } => [main, main],
        _ => [0.0; 2],
    };
    // Canadian overtime is kept by the engine's own clock rules, the ones ponder plays by.
    let mut overtime = match config.time {
        TimeLimit::Canadian { main, period, stones } => {
            Some(Clocks::new(TimeControl { system: TimeSystem::Canadian { period, stones }, main_time: main }))
        }
        _ => None,
    };
    let mut seconds = [0.0; 2];
    let mut genmoves = [0usize; 2];
    let mut passes = 0;
    let (width, height) = board.size();
    let move_limit = 4 * width * height + 16;
    let (winner, ending) = loop {
        if board.is_over() {
            let score = board.final_score().unwrap_or_else(|_| "0".to_string());
            let winner = match score.chars().next() {
                Some('B') => Some(Color::Black),
                Some('W') => Some(Color::White),
                _ => None,
            };
            break (winner, Ending::Rules(score));
        }
        if board.moves_played() >= move_limit {
            break (None, Ending::Adjudicated(format!("move limit {move_limit}")));
        }
        let color = board.to_move();
        let side = color.index();
        let other = color.opponent();
        let engine = &mut players[side];
        // The seconds this move may take, and what `time_left` reports (time, stones).
        let (allowed, report) = match (config.time, &overtime) {
            (TimeLimit::None, _) => (None, None),
            // GTP's time_left takes whole seconds: a fraction would be floored (0.5 s reported as
            // none left, and the engine moves at once), and time_settings already said it.
            (TimeLimit::PerMove(seconds), _) => (Some(seconds), (seconds.fract() == 0.0).then_some((seconds, 1))),
            (TimeLimit::Canadian { .. }, Some(overtime)) => {
                let clock = overtime.player(color);
                // A move that runs out of main time goes on in a fresh period.
                if clock.main_left > 0.0 {
                    (Some(clock.main_left + clock.period_left), Some((clock.main_left, 0)))
                } else {
                    (Some(clock.period_left), Some((clock.period_left, clock.count_left)))
                }
            }
            (_, _) => (Some(clocks[side]), Some((clocks[side], 0))),
        };
        if let Some((left, stones)) = report
            && engine.knows("time_left")
        {
            let command = format!("time_left {} {} {stones}", color.letter(), left.max(0.0).floor());
            if let Err(failure) = engine.send(&command, config.command_timeout) {
                break (Some(other), Ending::Forfeit(format!("time_left: {failure}")));
            }
        }
        let deadline = allowed.map_or(config.command_timeout.max(Duration::from_secs(3600)), |left| {
            Duration::from_secs_f64(left.max(0.0) + config.time_margin)
        });
        let started = Instant::now();
        let answer = engine.send(&format!("genmove {}", color.letter()), deadline);
        let used = started.elapsed().as_secs_f64();
        seconds[side] += used;
        genmoves[side] += 1;
        let text = match answer {
            Ok(Ok(text)) => text,
            Ok(Err(message)) => break (Some(other), Ending::Forfeit(format!("genmove failed: {message}"))),
            Err(EngineFailure::Timeout) => break (Some(other), Ending::Time),
            Err(failure) => break (Some(other), Ending::Forfeit(failure.to_string())),
        };
        if let Some(left) = allowed
            && used > left + config.time_margin
        {
            break (Some(other), Ending::Time);
        }
        if let TimeLimit::Clock { increment, .. } = config.time {
            clocks[side] += increment - used;
        }
        if let Some(overtime) = overtime.as_mut() {
            overtime.charge(color, used);
        }
        let text = text.split_whitespace().next().unwrap_or_default().to_string();
        if text.eq_ignore_ascii_case("resign") {
            break (Some(other), Ending::Resignation);
        }
        if let Err(error) = board.play(color, &text) {
            break (Some(other), Ending::Forfeit(format!("illegal move '{text}' ({error})")));
        }
        passes = if text.eq_ignore_ascii_case("pass") { passes + 1 } else { 0 };
        let opponent = &mut players[other.index()];
        match opponent.send(&format!("play {} {text}", color.letter()), config.command_timeout) {
            Ok(Ok(_)) => {}
            Ok(Err(message)) => {
                break (Some(color), Ending::Forfeit(format!("{} rejected the legal move {text}: {message}", other)));
            }
            Err(failure) => break (Some(color), Ending::Forfeit(format!("{other} on play: {failure}"))),
        }
        if passes >= 2 && !board.is_over() {
            break (None, Ending::Adjudicated("both sides passed".to_string()));
        }
    };
    let mut record = record_of(board.as_ref());
    record.black_name = Some(players[0].name().to_string());
    record.white_name = Some(players[1].name().to_string());
    let mut result = GameResult { winner, ending, moves: board.moves_played(), seconds, genmoves, record };
    result.record.result = Some(result.result_text());
    result.record.comment = Some(result.reason());
    result.record.mark_opening(opening.len());
    Ok(result)
}
