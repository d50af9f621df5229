//! `ponder match`: a referee for matches between two GTP engines, after gogui-twogtp and
//! Benzene's twogtp.py. It starts both engines as child processes, sets up each game through
//! the commands they know, judges every move with ponder's own rules, keeps the clocks, writes
//! one SGF file per game and a results table, and reports the Elo difference (with an optional
//! SPRT stop).
//!
//! The engine given as `black` is "engine A": with `alternate` it takes White in every second
//! game, and every figure (wins, Elo, SPRT) is from its side.

pub mod engine_process;
pub mod game;
pub mod stats;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use engine_process::GtpEngine;
use game::{GameResult, play_game, referee_board};
use stats::{SprtDecision, SprtSettings, Tally};

use crate::games::Color;

/// The clock of a match.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeLimit {
    /// No clock (the engines' own limits apply).
    None,
    /// Seconds per move (sent as `time_settings 0 S 1`).
    PerMove(f64),
    /// Main time plus an increment per move, seconds.
    Clock { main: f64, increment: f64 },
    /// Main time, then Canadian overtime: `stones` moves in every `period` seconds.
    Canadian { main: f64, period: f64, stones: u32 },
}

impl TimeLimit {
    /// Reads `MAIN`, `MAIN+INCREMENT` (Fischer) or `MAIN+PERIOD/STONES` (Canadian overtime, as
    /// gogui-twogtp writes it), in seconds, for `--time-control`.
    ///
    /// # Errors
    /// A message when the text is none of these or gives no time at all.
    pub fn parse_clock(text: &str) -> Result<TimeLimit, String> {
        let wrong = || format!("--time-control {text}: expected MAIN, MAIN+INCREMENT or MAIN+PERIOD/STONES in seconds");
        let number =
            |part: &str| part.trim().parse::<f64>().ok().filter(|s| s.is_finite() && *s >= 0.0).ok_or_else(wrong);
        let (main, rest) = match text.split_once('+') {
            Some((main, rest)) => (number(main)?, Some(rest)),
            None => (number(text)?, None),
        };
        let limit = match rest.map(|rest| rest.split_once('/')) {
            None => TimeLimit::Clock { main, increment: 0.0 },
            Some(None) => TimeLimit::Clock { main, increment: number(rest.unwrap_or_default())? },
            Some(Some((period, stones))) => {
                let stones = stones.trim().parse::<u32>().ok().filter(|&n| n > 0).ok_or_else(wrong)?;
                let period = number(period)?;
                if period <= 0.0 {
                    return Err(format!("--time-control {text}: an overtime period needs time"));
                }
                TimeLimit::Canadian { main, period, stones }
            }
        };
        if let TimeLimit::Clock { main, increment } = limit
            && main + increment <= 0.0
        {
            return Err(format!("--time-control {text}: no time at all"));
        }
        Ok(limit)
    }
}

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Command line of engine A (Black in the first game).
    pub black: String,
    /// Command line of engine B.
    pub white: String,
    /// Registry name of the game.
    pub game: String,
    /// Board size; the game's default when `None`.
    pub size: Option<(usize, usize)>,
    /// Variant parameters, sent as `param_game NAME VALUE`.
    pub params: Vec<(String, String)>,
    pub games: usize,
    /// Engines swap colours every game.
    pub alternate: bool,
    /// Opening lines (moves in the game's notation), used in turn; with `alternate` each is
    /// played twice, once with each colour.
    pub openings: Vec<Vec<String>>,
    pub time: TimeLimit,
    /// Extra seconds a move may take before it loses on time (pipes, process start).
    pub time_margin: f64,
    /// Deadline for every command but `genmove`.
    pub command_timeout: Duration,
    /// Games played at once, each by its own pair of engine processes.
    pub concurrency: usize,
    /// Where SGF files and `results.tsv` go.
    pub sgf_dir: Option<PathBuf>,
    pub sprt: Option<SprtSettings>,
    /// Pass the engines' stderr through instead of discarding it.
    pub engine_stderr: bool,
}

/// Reads an openings file: one opening per line, moves separated by spaces or commas; blank
/// lines and `#` comments are skipped.
pub fn parse_openings(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(|line| line.split('#').next().unwrap_or_default())
        .map(|line| line.split([' ', ',', '\t']).filter(|w| !w.is_empty()).map(str::to_string).collect::<Vec<_>>())
        .filter(|moves| !moves.is_empty())
        .collect()
}

/// One finished game as the match reports it.
#[derive(Clone, Debug)]
pub struct GameReport {
    /// 1-based game number.
    pub number: usize,
    /// Whether engine A played Black.
    pub a_is_black: bool,
    pub result: GameResult,
    pub sgf_file: Option<PathBuf>,
}

impl GameReport {
    /// The game from engine A's side: 1 win, ½ draw, 0 loss.
    pub fn score_for_a(&self) -> f64 {
        let a = if self.a_is_black { Color::Black } else { Color::White };
        match self.result.winner {
            None => 0.5,
            Some(winner) if winner == a => 1.0,
            Some(_) => 0.0,
        }
    }
}

/// The outcome of a whole match.
#[derive(Clone, Debug)]
pub struct MatchSummary {
    pub name_a: String,
    pub name_b: String,
    /// Engine A's wins, draws and losses.
    pub tally: Tally,
    pub games: Vec<GameReport>,
    /// The SPRT's state at the end, when one ran.
    pub sprt: Option<(f64, SprtDecision)>,
}

impl MatchSummary {
    /// The closing report: tally, score, Elo with its interval, SPRT state.
    pub fn report(&self, sprt: Option<&SprtSettings>) -> String {
        let Tally { wins, draws, losses } = self.tally;
        let mut text = format!(
            "{} vs {}: {} games, {wins} wins, {draws} draws, {losses} losses for {}\n",
            self.name_a,
            self.name_b,
            self.tally.games(),
            self.name_a
        );
        if let (Some(score), Some((elo, low, high))) = (self.tally.score(), self.tally.elo_interval()) {
            // An even score computes as -0.0 in floating point; print it as +0.0.
            let (elo, low, high) = (elo + 0.0, low + 0.0, high + 0.0);
            let _ = writeln!(text, "Score: {:.1}%", score * 100.0);
            let _ = writeln!(text, "Elo difference: {elo:+.1} (95% interval {low:+.1} to {high:+.1})");
        }
        if let Some(line) = self.thinking_time_line() {
            text.push_str(&line);
        }
        if let (Some(settings), Some((llr, decision))) = (sprt, self.sprt) {
            let (lower, upper) = settings.bounds();
            let _ = writeln!(
                text,
                "SPRT elo0={} elo1={} alpha={} beta={}: LLR {llr:.2} (bounds {lower:.2}, {upper:.2}): {decision}",
                settings.elo0, settings.elo1, settings.alpha, settings.beta
            );
        }
        text
    }

    /// Each engine's mean thinking time per move it was asked for, over every game: what a
    /// match result must state beside its score. `None` before any engine moved.
    fn thinking_time_line(&self) -> Option<String> {
        let (mut seconds, mut moves) = ([0.0f64; 2], [0usize; 2]);
        for report in &self.games {
            // Index 0 is engine A, 1 engine B.
            let a_side = if report.a_is_black { 0 } else { 1 };
            for (engine, side) in [(0, a_side), (1, 1 - a_side)] {
                seconds[engine] += report.result.seconds[side];
                moves[engine] += report.result.genmoves[side];
            }
        }
        if moves[0] == 0 || moves[1] == 0 {
            return None;
        }
        Some(format!(
            "Thinking time: {} {:.2} s/move over {} moves, {} {:.2} s/move over {} moves\n",
            self.name_a,
            seconds[0] / moves[0] as f64,
            moves[0],
            self.name_b,
            seconds[1] / moves[1] as f64,
            moves[1]
        ))
    }
}

/// The results table's header line (tab-separated).
pub const RESULTS_HEADER: &str = "game\tblack\twhite\tresult\treason\tmoves\tblack_seconds\twhite_seconds\tsgf";

/// Runs a match. Progress lines (one per game) go to stderr; the SGF files and `results.tsv`
/// (rewritten after every game) to `sgf_dir`. Blocks until every game is played or the SPRT has decided.
///
/// # Errors
/// A message when an engine cannot start or refuses the game set-up, or a file cannot be
/// written; games already played are lost to the report but their files stay.
pub fn run_match(config: &MatchConfig) -> Result<MatchSummary, String> {
    referee_board(config)?;
    if let Some(dir) = &config.sgf_dir {
        std::fs::create_dir_all(dir).map_err(|error| format!("{}: {error}", dir.display()))?;
    }
    let next_game = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel::<Result<GameReport, String>>();
    let (names_sender, names) = mpsc::channel::<(String, String)>();
    let mut summary = MatchSummary {
        name_a: String::new(),
        name_b: String::new(),
        tally: Tally::default(),
        games: Vec::new(),
        sprt: None,
    };
    let mut rows = Vec::new();
    let mut failure = None;
    std::thread::scope(|scope| {
        for worker in 0..config.concurrency.max(1).min(config.games.max(1)) {
            let (sender, names_sender) = (sender.clone(), names_sender.clone());
            let (next_game, stop) = (&next_game, &stop);
            std::thread::Builder::new()
                .name(format!("match-worker-{worker}"))
                .spawn_scoped(scope, move || {
                    if let Err(error) = run_worker(config, next_game, stop, &sender, &names_sender) {
                        stop.store(true, Ordering::Relaxed);
                        let _ = sender.send(Err(error));
                    }
                })
                .expect("cannot start a match worker thread");
        }
        drop(sender);
        drop(names_sender);
        if let Ok((a, b)) = names.recv() {
            // Two copies of one program are told apart in the tables.
            (summary.name_a, summary.name_b) = if a == b { (format!("{a} (A)"), format!("{b} (B)")) } else { (a, b) };
        }
        for report in receiver {
            let report = match report {
                Ok(report) => report,
                Err(error) => {
                    failure.get_or_insert(error);
                    continue;
                }
            };
            let score = report.score_for_a();
            if score == 1.0 {
                summary.tally.wins += 1;
            } else if score == 0.0 {
                summary.tally.losses += 1;
            } else {
                summary.tally.draws += 1;
            }
            let result = &report.result;
            let (black, white) =
                if report.a_is_black { (&summary.name_a, &summary.name_b) } else { (&summary.name_b, &summary.name_a) };
            rows.push(format!(
                "{}\t{black}\t{white}\t{}\t{}\t{}\t{:.2}\t{:.2}\t{}",
                report.number,
                result.result_text(),
                result.reason(),
                result.moves,
                result.seconds[0],
                result.seconds[1],
                report.sgf_file.as_ref().map(|p| p.display().to_string()).unwrap_or_default()
            ));
            let Tally { wins, draws, losses } = summary.tally;
            let mut line = format!(
                "game {}/{}: {black} (B) vs {white} (W): {} ({}), {} moves; {}: +{wins} ={draws} -{losses}",
                report.number,
                config.games,
                result.result_text(),
                result.reason(),
                result.moves,
                summary.name_a
            );
            if let Some(settings) = &config.sprt {
                let llr = settings.log_likelihood_ratio(&summary.tally);
                let decision = settings.decision(&summary.tally);
                summary.sprt = Some((llr, decision));
                let _ = write!(line, ", LLR {llr:.2}");
                if decision != SprtDecision::Continue {
                    stop.store(true, Ordering::Relaxed);
                    let _ = write!(line, " ({decision})");
                }
            }
            eprintln!("{line}");
            summary.games.push(report);
            // The table so far, after every game: a match stopped by hand keeps it.
            if let Some(dir) = &config.sgf_dir
                && let Err(error) = write_results_table(dir, &mut rows)
            {
                failure.get_or_insert(error);
                stop.store(true, Ordering::Relaxed);
            }
        }
    });
    summary.games.sort_by_key(|report| report.number);
    if let Some(dir) = &config.sgf_dir {
        write_results_table(dir, &mut rows)?;
    }
    match failure {
        Some(error) => Err(error),
        None => Ok(summary),
    }
}

/// Writes `results.tsv` in `dir`: the header and `rows` in the order of their game numbers.
fn write_results_table(dir: &Path, rows: &mut [String]) -> Result<(), String> {
    rows.sort_by_key(|row| row.split('\t').next().and_then(|n| n.parse::<usize>().ok()));
    let table = format!("{RESULTS_HEADER}\n{}", rows.iter().map(|row| format!("{row}\n")).collect::<String>());
    // Written aside and renamed, so that a reader never sees half a table.
    let (path, partial) = (dir.join("results.tsv"), dir.join("results.tsv.partial"));
    std::fs::write(&partial, &table)
        .and_then(|()| std::fs::rename(&partial, &path))
        .map_err(|error| format!("{}: {error}", path.display()))
}

/// One worker: its own pair of engines, restarted after a crash or a missed deadline, playing
/// game after game until the match is done or stopped.
fn run_worker(
    config: &MatchConfig,
    next_game: &AtomicUsize,
    stop: &AtomicBool,
    reports: &mpsc::Sender<Result<GameReport, String>>,
    names: &mpsc::Sender<(String, String)>,
) -> Result<(), String> {
    let start = |command: &str| GtpEngine::start(command, config.engine_stderr, config.command_timeout);
    let mut engine_a = start(&config.black)?;
    let mut engine_b = start(&config.white)?;
    let _ = names.send((engine_a.name().to_string(), engine_b.name().to_string()));
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        let index = next_game.fetch_add(1, Ordering::Relaxed);
        if index >= config.games {
            return Ok(());
        }
        if engine_a.is_broken() {
            engine_a = start(&config.black)?;
        }
        if engine_b.is_broken() {
            engine_b = start(&config.white)?;
        }
        let a_is_black = !(config.alternate && index % 2 == 1);
        let opening: &[String] = if config.openings.is_empty() {
            &[]
        } else {
            let round = if config.alternate { index / 2 } else { index };
            &config.openings[round % config.openings.len()]
        };
        let engines = if a_is_black { [&mut engine_a, &mut engine_b] } else { [&mut engine_b, &mut engine_a] };
        let result = play_game(config, engines, opening)?;
        let number = index + 1;
        let sgf_file = match &config.sgf_dir {
            None => None,
            Some(dir) => {
                let path = dir.join(format!("game-{number:04}.sgf"));
                std::fs::write(&path, result.record.to_sgf())
                    .map_err(|error| format!("{}: {error}", path.display()))?;
                Some(path)
            }
        };
        if reports.send(Ok(GameReport { number, a_is_black, result, sgf_file })).is_err() {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openings_and_clocks_parse() {
        assert_eq!(parse_openings("# comment\nB2 A1\n\nC3,a1 # trailing\n"), [vec!["B2", "A1"], vec!["C3", "a1"]]);
        assert_eq!(TimeLimit::parse_clock("60+0.5"), Ok(TimeLimit::Clock { main: 60.0, increment: 0.5 }));
        assert_eq!(TimeLimit::parse_clock("10"), Ok(TimeLimit::Clock { main: 10.0, increment: 0.0 }));
        assert!(TimeLimit::parse_clock("0").is_err());
        assert!(TimeLimit::parse_clock("x+1").is_err());
        assert_eq!(TimeLimit::parse_clock("5+10/5"), Ok(TimeLimit::Canadian { main: 5.0, period: 10.0, stones: 5 }));
        assert!(TimeLimit::parse_clock("5+10/0").is_err());
        assert!(TimeLimit::parse_clock("5+0/3").is_err());
    }
}
