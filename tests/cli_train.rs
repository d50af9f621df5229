//! `ponder train`: its arguments are checked before any data is read.

use std::process::Command;

/// Runs `ponder train ARGS` on a data folder that does not exist; the exit status and stderr.
fn ponder_train(args: &[&str]) -> (bool, String) {
    let missing = std::env::temp_dir().join(format!("ponder-no-such-data-{}", std::process::id()));
    let out = std::env::temp_dir().join(format!("ponder-no-such-output-{}", std::process::id()));
    let output = Command::new(env!("CARGO_BIN_EXE_ponder"))
        .arg("train")
        .args(args)
        .arg("--data")
        .arg(&missing)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("ponder runs");
    assert!(!out.exists(), "nothing is written");
    (output.status.success(), String::from_utf8(output.stderr).expect("utf-8 output"))
}

#[test]
fn a_model_the_game_does_not_have_is_refused() {
    let (ok, stderr) = ponder_train(&["--game", "hex", "--model", "value"]);
    assert!(!ok);
    assert!(stderr.contains("--model value: only Gomoku has more than one model to train"), "{stderr}");
    let (ok, stderr) = ponder_train(&["--game", "gomoku", "--model", "frob"]);
    assert!(!ok);
    assert!(stderr.contains("--model frob: expected priors, value, value-from-moves or order"), "{stderr}");
    let (ok, stderr) = ponder_train(&["--game", "gomoku", "--model", "value", "--ridge", "0"]);
    assert!(!ok);
    assert!(stderr.contains("--ridge 0: expected a positive number"), "{stderr}");
    // A good model reaches the data, which is missing.
    let (ok, stderr) = ponder_train(&["--game", "gomoku", "--model", "value"]);
    assert!(!ok);
    assert!(stderr.contains("ponder-no-such-data"), "{stderr}");
}

#[test]
fn move_choice_options_are_refused_where_no_moves_are_learned() {
    for args in [
        &["--game", "gomoku", "--model", "value", "--learn-from", "rapfi"][..],
        &["--game", "gomoku", "--model", "value", "--prior-strength", "3"],
    ] {
        let (ok, stderr) = ponder_train(args);
        assert!(!ok);
        assert!(stderr.contains("are for the move-prior fits, not --model value"), "{args:?}: {stderr}");
    }
    let (ok, stderr) = ponder_train(&["--game", "reversi", "--prior-weights", "weights/reversi.weights"]);
    assert!(!ok);
    assert!(stderr.contains("Reversi's evaluation learns from positions, not moves"), "{stderr}");
    for strength in ["0", "NaN", "inf"] {
        let (ok, stderr) = ponder_train(&["--game", "hex", "--prior-strength", strength]);
        assert!(!ok);
        assert!(stderr.contains(&format!("--prior-strength {strength}: expected a positive number")), "{stderr}");
    }
    // A prior file of another model is refused before any data is read.
    for args in [
        &["--game", "hex", "--prior-weights", "weights/gomoku.patterns"][..],
        &["--game", "gomoku", "--model", "value-from-moves", "--prior-weights", "weights/gomoku.patterns"],
    ] {
        let (ok, stderr) = ponder_train(args);
        assert!(!ok);
        assert!(stderr.contains("weights/gomoku.patterns: "), "{args:?}: {stderr}");
        assert!(!stderr.contains("ponder-no-such-data"), "{args:?}: {stderr}");
    }
}

#[test]
fn the_value_from_moves_takes_a_player_and_a_prior_but_no_prior_strength() {
    let value_from_moves = ["--game", "gomoku", "--model", "value-from-moves"];
    let (ok, stderr) = ponder_train(&[&value_from_moves[..], &["--prior-strength", "3"]].concat());
    assert!(!ok);
    assert!(stderr.contains("--prior-strength is for the move-prior fits"), "{stderr}");
    let (ok, stderr) = ponder_train(&[&value_from_moves[..], &["--ridge=-1"]].concat());
    assert!(!ok);
    assert!(stderr.contains("--ridge -1: expected a positive number"), "{stderr}");
    // With a player and the shipped value as the prior the options pass, and the data is read.
    let (ok, stderr) = ponder_train(
        &[&value_from_moves[..], &["--learn-from", "rapfi", "--prior-weights", "weights/gomoku.value"]].concat(),
    );
    assert!(!ok);
    assert!(stderr.contains("ponder-no-such-data"), "{stderr}");
}

#[test]
fn edge_patterns_are_made_for_hex_only() {
    let out = std::env::temp_dir().join(format!("ponder-edge-patterns-{}", std::process::id()));
    let output = Command::new(env!("CARGO_BIN_EXE_ponder"))
        .args(["edge-patterns", "--game", "reversi", "--out"])
        .arg(&out)
        .output()
        .expect("ponder runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).expect("utf-8 output");
    assert!(stderr.contains("edge-patterns: only hex has edge patterns, not 'reversi'"), "{stderr}");
    assert!(!out.exists(), "nothing is written");
}

#[test]
fn the_move_order_takes_a_player_and_a_ridge_but_no_prior() {
    let order = ["--game", "gomoku", "--model", "order"];
    for extra in [&["--prior-weights", "weights/gomoku.order"][..], &["--prior-strength", "3"]] {
        let (ok, stderr) = ponder_train(&[&order[..], extra].concat());
        assert!(!ok);
        assert!(stderr.contains("are not for --model order"), "{extra:?}: {stderr}");
    }
    let (ok, stderr) = ponder_train(&[&order[..], &["--ridge", "0"]].concat());
    assert!(!ok);
    assert!(stderr.contains("--ridge 0: expected a positive number"), "{stderr}");
    // A player to learn from is accepted: the missing data is what stops it.
    let (ok, stderr) = ponder_train(&[&order[..], &["--learn-from", "rapfi"]].concat());
    assert!(!ok);
    assert!(stderr.contains("ponder-no-such-data"), "{stderr}");
}
