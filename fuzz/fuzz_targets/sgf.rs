//! Any bytes given to the SGF reader give a record or an error, never a panic; a record that
//! reads writes out to a text that reads back to the same record.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ponder::sgf::{Record, parse_main_line};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = parse_main_line(&text);
    if let Ok(record) = Record::from_sgf(&text) {
        let written = record.to_sgf();
        let again = Record::from_sgf(&written).expect("a written record reads back");
        assert_eq!(again.moves, record.moves);
        assert_eq!(again.setup, record.setup);
        assert_eq!(again.size, record.size);
    }
});
