//! Any bytes through the Gomocup, course-referee and NBoard front ends (the first byte picks
//! which): no panic, and every Gomocup and NBoard reply line is one line of printable text.
//!
//! The session's own limits cap every move the front ends ask for (a few visits, 50 ms), so a
//! fuzzed `BEGIN`, `TURN` or referee cell never starts a long search.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ponder::engine::Session;
use ponder::frontends::gtp::answer;

fuzz_target!(|data: &[u8]| {
    let Some((&choice, script)) = data.split_first() else { return };
    let game = ["gomoku", "hex", "reversi"][usize::from(choice % 3)];
    let mut session = Session::new(game).expect("the game exists");
    for limit in ["param_search max_visits 30", "param_search max_time 0.05", "param_search threads 1"] {
        answer(&mut session, limit.as_bytes());
    }
    let mut output = Vec::new();
    if choice % 3 != 1 {
        if choice % 3 == 0 {
            // The user's cap (`--max-time`) keeps each move short whatever limits the script sets.
            ponder::frontends::gomocup::run(session, Some(0.05), script, &mut output)
                .expect("writing to a Vec cannot fail");
        } else {
            // A `hint` has no time limit: the end of the script ends it.
            let input = std::io::Cursor::new(script.to_vec());
            ponder::frontends::nboard::run(session, input, &mut output).expect("writing to a Vec cannot fail");
        }
        let text = String::from_utf8(output).expect("replies are UTF-8");
        assert!(text.is_empty() || text.ends_with('\n'));
        assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text:?}");
    } else {
        answer(&mut session, b"boardsize 5");
        // A protocol error ends the game; that is an answer, not a failure.
        let _ = ponder::frontends::referee::run(session, script, &mut output);
        assert!(output.is_empty() || output.ends_with(b"\n"));
    }
});
