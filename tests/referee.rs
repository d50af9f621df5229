//! `ponder match` against stand-in engines (small shell scripts) that misbehave: an illegal
//! move, a late move and a crash each lose the game, with the reason recorded, and the match goes
//! on.

use std::time::Duration;

use ponder::referee::game::Ending;
use ponder::referee::{MatchConfig, TimeLimit, run_match};

/// A GTP engine in one line of shell: `genmove` runs `on_genmove`, everything else succeeds.
fn fake_engine(on_genmove: &str) -> String {
    format!(
        r#"sh -c 'while read command rest; do case "$command" in name) printf "= fake\n\n";; genmove) {on_genmove};; list_commands) printf "= name\ngenmove\ntime_settings\n\n";; quit) printf "=\n\n"; exit 0;; *) printf "=\n\n";; esac; done'"#
    )
}

fn config(white: String, games: usize, time: TimeLimit) -> MatchConfig {
    MatchConfig {
        black: format!("{} --max-visits 200 --max-time 0 --seed 1", env!("CARGO_BIN_EXE_ponder")),
        white,
        game: "tictactoe".to_string(),
        size: None,
        params: Vec::new(),
        games,
        alternate: true,
        openings: Vec::new(),
        time,
        time_margin: 0.2,
        command_timeout: Duration::from_secs(10),
        concurrency: 1,
        sgf_dir: None,
        sprt: None,
        engine_stderr: false,
    }
}

#[test]
fn illegal_moves_forfeit_the_game() {
    let summary = run_match(&config(fake_engine(r#"printf "= Z9\n\n""#), 2, TimeLimit::None)).unwrap();
    assert_eq!((summary.tally.wins, summary.tally.draws, summary.tally.losses), (2, 0, 0));
    for report in &summary.games {
        assert!(
            matches!(&report.result.ending, Ending::Forfeit(why) if why.contains("illegal move 'Z9'")),
            "{:?}",
            report.result.ending
        );
        assert!(report.result.result_text().ends_with("+F"));
        assert_eq!(report.result.record.result.as_deref(), Some(report.result.result_text().as_str()));
    }
}

#[test]
fn fractional_seconds_per_move_are_never_reported_as_none_left() {
    // The stand-in resigns when asked to move, unless `time_left` told it that no time was
    // left (the floor of 0.5 s): then it answers an illegal move, which forfeits the game.
    let engine = r#"sh -c 'left=; while read command rest; do case "$command" in name) printf "= fake\n\n";; genmove) case "$left" in *" 0 "*) printf "= Z9\n\n";; *) printf "= resign\n\n";; esac;; list_commands) printf "= name\ngenmove\ntime_settings\ntime_left\n\n";; time_left) left="$rest"; printf "=\n\n";; quit) printf "=\n\n"; exit 0;; *) printf "=\n\n";; esac; done'"#;
    for seconds in [0.5, 1.0, 2.0] {
        let summary = run_match(&config(engine.to_string(), 1, TimeLimit::PerMove(seconds))).unwrap();
        let ending = &summary.games[0].result.ending;
        assert_eq!(*ending, Ending::Resignation, "{seconds} s a move");
    }
}

#[test]
fn late_moves_lose_on_time_and_crashes_forfeit() {
    let slow = fake_engine(r#"sleep 2; printf "= A1\n\n""#);
    let summary = run_match(&config(slow, 2, TimeLimit::PerMove(0.3))).unwrap();
    assert_eq!(summary.tally.wins, 2);
    assert!(summary.games.iter().all(|report| report.result.ending == Ending::Time));
    assert!(summary.games.iter().all(|report| report.result.result_text().ends_with("+T")));
    let crashing = fake_engine("exit 1");
    let summary = run_match(&config(crashing, 2, TimeLimit::None)).unwrap();
    assert_eq!(summary.tally.wins, 2);
    assert!(
        summary
            .games
            .iter()
            .all(|report| matches!(&report.result.ending, Ending::Forfeit(why) if why.contains("crashed")))
    );
}

#[test]
fn ponder_against_itself_writes_records_and_a_table() {
    let dir = std::env::temp_dir().join(format!("ponder-match-test-{}", std::process::id()));
    let mut settings = config(
        format!("{} --max-visits 50 --max-time 0 --seed 2", env!("CARGO_BIN_EXE_ponder")),
        4,
        TimeLimit::PerMove(5.0),
    );
    settings.sgf_dir = Some(dir.clone());
    settings.concurrency = 2;
    settings.openings = vec![vec!["B2".to_string()]];
    let summary = run_match(&settings).unwrap();
    assert_eq!(summary.tally.games(), 4);
    // Every move but the opening's was an engine's answer to genmove, and the report gives
    // each engine's share with its thinking time.
    let mut asked = 0;
    for report in &summary.games {
        assert_eq!(report.result.genmoves.iter().sum::<usize>(), report.result.moves - 1, "{:?}", report.result.ending);
        asked += report.result.moves - 1;
    }
    let report = summary.report(None);
    let line = report.lines().find(|line| line.starts_with("Thinking time: ")).unwrap_or_else(|| panic!("{report}"));
    let counts: Vec<usize> =
        line.split(" over ").skip(1).map(|part| part.split(' ').next().unwrap().parse().unwrap()).collect();
    assert_eq!(counts.iter().sum::<usize>(), asked, "{line}");
    let table = std::fs::read_to_string(dir.join("results.tsv")).unwrap();
    assert_eq!(table.lines().count(), 5, "{table}");
    for number in 1..=4 {
        let text = std::fs::read_to_string(dir.join(format!("game-{number:04}.sgf"))).unwrap();
        let record = ponder::sgf::Record::from_sgf(&text).unwrap();
        assert_eq!(record.moves[0].1, ponder::sgf::SgfMove::Point { column: 1, row: 1 }, "the opening comes first");
        assert_eq!(record.opening_moves(), Some(1), "the record says how long the opening was");
        assert!(record.result.is_some() && record.black_name.is_some());
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// ponder against ponder in every game of the registry: each game ends by the rules (or by a
/// resignation of a proven loss), never by a forfeit, so the referee and the engine agree on
/// every move, pass and swap of every game.
#[test]
fn ponder_plays_itself_cleanly_in_every_game() {
    let engine = format!("{} --max-visits 60 --max-time 0 --seed 2", env!("CARGO_BIN_EXE_ponder"));
    for entry in ponder::engine::GAMES {
        let (size, params) = match entry.name {
            "gomoku" => (Some((9, 9)), Vec::new()),
            "hex" => (Some((5, 5)), vec![("allow_swap".to_string(), "1".to_string())]),
            "nogo" => (Some((5, 5)), Vec::new()),
            "connect4" => (Some((7, 6)), vec![("blocked".to_string(), "d2".to_string())]),
            _ => (None, Vec::new()),
        };
        let mut config = config(engine.clone(), 2, TimeLimit::PerMove(5.0));
        config.black = engine.clone();
        config.game = entry.name.to_string();
        config.size = size;
        config.params = params;
        let summary = run_match(&config).unwrap();
        for game in &summary.games {
            assert!(
                matches!(game.result.ending, Ending::Rules(_) | Ending::Resignation),
                "{}: game {} ended by {:?}",
                entry.name,
                game.number,
                game.result.ending
            );
            assert!(game.result.moves > 0);
        }
    }
}

/// `results.tsv` is written after every game, so a match stopped by hand keeps the table of
/// the games it finished: it appears while the match is still running.
#[test]
fn the_results_table_grows_while_the_match_runs() {
    let dir = std::env::temp_dir().join(format!("ponder-match-table-test-{}", std::process::id()));
    let engine = format!("{} --max-visits 100 --max-time 0 --seed 3", env!("CARGO_BIN_EXE_ponder"));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ponder"))
        .args(["match", "--game", "hex", "--size", "9", "--games", "400", "--black", &engine, "--white", &engine])
        .arg("--sgf")
        .arg(&dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let table = dir.join("results.tsv");
    let started = std::time::Instant::now();
    while !table.exists() && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let still_running = child.try_wait().unwrap().is_none();
    child.kill().unwrap();
    child.wait().unwrap();
    let text = std::fs::read_to_string(&table).unwrap_or_default();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(still_running, "the match ended before its table appeared");
    let rows: Vec<&str> = text.lines().collect();
    assert!(rows.len() >= 2 && rows[0].starts_with("game\tblack"), "{text}");
    assert!(rows[1].starts_with("1\t"), "{text}");
}
