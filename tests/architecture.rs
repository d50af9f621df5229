//! The layering of DESIGN.md and STYLE.md, checked on the sources: the rules modules under
//! `src/games/` are pure and never reach up into the solvers, the searches or the engine.

use std::path::Path;

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn rules_modules_use_nothing_above_them() {
    let games = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/games");
    let mut files = Vec::new();
    rust_files(&games, &mut files);
    assert!(files.len() >= 6, "the games folder holds the rules of every game");
    let upward = ["crate::solvers", "crate::search", "crate::engine", "crate::knowledge", "crate::frontends"];
    let mut offences = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (number, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            if let Some(module) = upward.iter().find(|module| code.contains(*module)) {
                offences.push(format!("{}:{}: uses {module}", file.display(), number + 1));
            }
        }
    }
    assert!(offences.is_empty(), "games/ must not depend on the layers above it:\n{}", offences.join("\n"));
}
