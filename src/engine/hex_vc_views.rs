//! What H-search sees in a Hex position, drawn for HexGui and GoGui (after MoHex's `vc-*`
//! analyze commands): `ponder-vc_status`, `ponder-vc_carrier` and `ponder-vc_mustplay` (gfx
//! pictures, each with a status line, so a view with no cells still replaces the last one's
//! text), and `vc-build` (HexGui's consider-set button: cell and code pairs). Each view is for a
//! given colour as the side to move; the GUIs pass the side to move.

use crate::games::hex::{Cell, Hex, HexMove};
use crate::games::{Color, Game, Outcome};
use crate::protocol::command::VcView;
use crate::solvers::hex_vc::{BoardGeometry, EdgeConnections, MAX_VC_CELLS, VcEngine, VcLimits};

/// H-search's findings between both players' edges, `color` to move.
struct EdgeFindings {
    empty: u128,
    /// `color`'s stones joining its edges when it has already won, else 0.
    won_chain: u128,
    /// The opponent's chain when the opponent has already won, else 0.
    lost_chain: u128,
    mine: EdgeConnections,
    theirs: EdgeConnections,
}

impl EdgeFindings {
    /// `None` on boards over [`MAX_VC_CELLS`] cells.
    fn of(position: &Hex, color: Color) -> Option<EdgeFindings> {
        let geometry = BoardGeometry::of(position)?;
        let stones = geometry.stones_of(position);
        let empty = geometry.all() & !(stones[0] | stones[1]);
        let chain = |player: Color| {
            let (first, second) = geometry.edges(player);
            let own = stones[player.index()];
            geometry.flood(first, own) & geometry.flood(second, own)
        };
        let mut findings = EdgeFindings {
            empty,
            won_chain: 0,
            lost_chain: 0,
            mine: EdgeConnections::default(),
            theirs: EdgeConnections::default(),
        };
        match position.outcome() {
            // H-search assumes neither side has joined its edges yet.
            Some(Outcome::Win(winner)) if winner == color => findings.won_chain = chain(color),
            Some(_) => findings.lost_chain = chain(color.opponent()),
            None => {
                let mut engine = VcEngine::new(geometry, VcLimits::default());
                // The whole search, so that a full connection is found even after a semi one.
                findings.mine = engine.edge_connections(color, stones[color.index()], empty, false);
                let opponent = color.opponent();
                findings.theirs = engine.edge_connections(opponent, stones[opponent.index()], empty, false);
            }
        }
        Some(findings)
    }

    /// The cells `color` may play without losing at once to a semi connection of the opponent
    /// (MoHex's must-play): the intersection of those semis' carriers, every empty cell when
    /// there is none, and no cell once the opponent is fully connected or has won.
    fn must_play(&self) -> u128 {
        if self.lost_chain != 0 || self.won_chain != 0 || self.theirs.full.is_some() {
            return 0;
        }
        self.theirs.semi_intersection.unwrap_or(self.empty)
    }

    /// `color`'s own connection: the winning chain, a full connection's carrier, or a semi
    /// connection's carrier (with its key); 0 without one.
    fn carrier(&self) -> u128 {
        if self.won_chain != 0 {
            return self.won_chain;
        }
        self.mine.full.or(self.mine.semi.map(|(carrier, key)| carrier | 1 << key)).unwrap_or(0)
    }
}

/// The reply of a `ponder-vc_*` command for `color` to move in `position`.
pub(super) fn vc_view(position: &Hex, color: Color, view: VcView) -> String {
    let Some(findings) = EdgeFindings::of(position, color) else {
        return match view {
            VcView::OutsideMustPlay => String::new(),
            _ => format!("INFLUENCE\nTEXT virtual connections: boards up to {MAX_VC_CELLS} cells only"),
        };
    };
    let me = if color == Color::Black { "black" } else { "white" };
    match view {
        VcView::Carrier => {
            let carrier = findings.carrier();
            let text = if carrier == 0 {
                format!("{me}: no connection between its edges")
            } else {
                format!("{me}: connection carrier, {}", count(carrier, "cell"))
            };
            picture(position, &[(carrier, "1")], &text)
        }
        VcView::MustPlay => {
            let must_play = findings.must_play();
            let text = if must_play == 0 {
                format!("{me}: no move escapes the opponent's connection")
            } else if must_play == findings.empty {
                format!("{me}: no must-play, every empty cell ({})", count(must_play, "cell"))
            } else {
                format!("{me}: must play in {}", count(must_play, "cell"))
            };
            picture(position, &[(must_play, "1")], &text)
        }
        VcView::OutsideMustPlay => {
            let outside = if findings.won_chain != 0 || findings.lost_chain != 0 {
                0
            } else {
                findings.empty & !findings.must_play()
            };
            cells(position, outside).iter().map(|cell| format!("{cell} x")).collect::<Vec<_>>().join(" ")
        }
        VcView::Status => status(position, color, &findings),
    }
}

/// The gfx view: `INFLUENCE` values 1 (green in HexGui) for `color`'s connection or must-play
/// cells, 0.5 for a semi connection's key, 0 (blue) for the opponent's winning carrier, and a
/// `TEXT` line for the status bar. HexGui needs both keywords present.
fn status(position: &Hex, color: Color, findings: &EdgeFindings) -> String {
    let name = |player: Color| if player == Color::Black { "black" } else { "white" };
    let (me, them) = (name(color), name(color.opponent()));
    let mut influence: Vec<(u128, &str)> = Vec::new();
    let text = if findings.won_chain != 0 {
        influence.push((findings.won_chain, "1"));
        format!("{me} has won")
    } else if findings.lost_chain != 0 {
        influence.push((findings.lost_chain, "0"));
        format!("{them} has won")
    } else if let Some(carrier) = findings.mine.full {
        influence.push((carrier, "1"));
        format!("{me} wins: its edges are fully connected ({})", count(carrier, "empty cell"))
    } else if let Some((carrier, key)) = findings.mine.semi {
        influence.push((carrier & !(1 << key), "1"));
        influence.push((1 << key, "0.5"));
        let key_name = cells(position, 1 << key).join("");
        format!("{me} wins with {key_name}: semi connection between its edges ({})", count(carrier, "cell"))
    } else if let Some(carrier) = findings.theirs.full {
        influence.push((carrier, "0"));
        format!("{them} wins: its edges are fully connected ({})", count(carrier, "empty cell"))
    } else if findings.theirs.semi_intersection.is_some() {
        let must_play = findings.must_play();
        influence.push((must_play, "1"));
        if must_play == 0 {
            format!("{them} wins: its semi connections leave {me} no defence")
        } else {
            format!("{me} must play in {}: {them} threatens to connect", count(must_play, "cell"))
        }
    } else {
        "no connection between edges found".to_string()
    };
    picture(position, &influence, &text)
}

/// A gfx reply: `INFLUENCE` with each set's cells at its value, then the status line.
fn picture(position: &Hex, influence: &[(u128, &str)], text: &str) -> String {
    let pairs: Vec<String> = influence
        .iter()
        .flat_map(|&(set, value)| cells(position, set).into_iter().map(move |cell| format!("{cell} {value}")))
        .collect();
    format!("INFLUENCE {}\nTEXT {text}", pairs.join(" ")).replace("INFLUENCE \n", "INFLUENCE\n")
}

/// "1 cell", "2 cells".
fn count(set: u128, noun: &str) -> String {
    let n = set.count_ones();
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// The names of the cells of `set`, in index order.
fn cells(position: &Hex, set: u128) -> Vec<String> {
    (0..MAX_VC_CELLS)
        .filter(|&index| set & (1 << index) != 0)
        .map(|index| position.format_move(HexMove::Cell(Cell(index as u16))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::hex::HexConfig;

    /// A 3x3 position from HTP cells, with `black` and `white` stones.
    fn position(black: &[&str], white: &[&str]) -> Hex {
        crate::games::testing::hex_position(3, 3, black, white)
    }

    #[test]
    fn the_centre_of_three_by_three_is_joined_to_both_rows() {
        // b2 touches b1 and c1 on row 1 and a3 and b3 on row 3: two two-cell edge templates.
        let centre = position(&["b2"], &[]);
        let every_cell_but_b2 = "a1 b1 c1 a2 c2 a3 b3 c3".replace(' ', " x ") + " x";
        let expected = [
            (Color::Black, VcView::Carrier, "INFLUENCE b1 1 c1 1 a3 1 b3 1\nTEXT black: connection carrier, 4 cells"),
            (
                Color::White,
                VcView::Status,
                "INFLUENCE b1 0 c1 0 a3 0 b3 0\nTEXT black wins: its edges are fully connected (4 empty cells)",
            ),
            // Every white move loses: nothing to draw, and HexGui's consider set greys every cell.
            (Color::White, VcView::MustPlay, "INFLUENCE\nTEXT white: no move escapes the opponent's connection"),
            (Color::White, VcView::Carrier, "INFLUENCE\nTEXT white: no connection between its edges"),
            (Color::White, VcView::OutsideMustPlay, every_cell_but_b2.as_str()),
        ];
        for (color, view, reply) in expected {
            assert_eq!(vc_view(&centre, color, view), reply, "{color} {view:?}");
        }
    }

    #[test]
    fn a_single_common_neighbour_is_the_must_play() {
        // b1 and b3 share one row-2 neighbour, b2: Black to move wins there, White must take it
        // (and, the centre of 3x3 being White's winning cell too, White to move wins there).
        let split = position(&["b1", "b3"], &[]);
        assert_eq!(vc_view(&split, Color::White, VcView::MustPlay), "INFLUENCE b2 1\nTEXT white: must play in 1 cell");
        assert_eq!(
            vc_view(&split, Color::White, VcView::OutsideMustPlay),
            "a1 c1 a2 c2 a3 c3".replace(' ', " x ") + " x"
        );
        assert_eq!(
            vc_view(&split, Color::Black, VcView::Status),
            "INFLUENCE b2 0.5\nTEXT black wins with b2: semi connection between its edges (1 cell)"
        );
        let status = vc_view(&split, Color::White, VcView::Status);
        assert!(status.ends_with("TEXT white wins with b2: semi connection between its edges (5 cells)"), "{status}");
    }

    #[test]
    fn an_open_board_restricts_nothing_and_a_won_game_shows_its_chain() {
        // Empty 11x11 is unsolved: no edge-to-edge connection can exist for either side.
        let empty = Hex::new(&HexConfig::default());
        let must_play = vc_view(&empty, Color::White, VcView::MustPlay);
        assert!(must_play.ends_with("TEXT white: no must-play, every empty cell (121 cells)"), "{must_play}");
        assert_eq!(vc_view(&empty, Color::White, VcView::OutsideMustPlay), "");
        assert_eq!(vc_view(&empty, Color::White, VcView::Status), "INFLUENCE\nTEXT no connection between edges found");
        let won = position(&["a1", "a2", "a3"], &["b1", "b2"]);
        assert_eq!(
            vc_view(&won, Color::Black, VcView::Carrier),
            "INFLUENCE a1 1 a2 1 a3 1\nTEXT black: connection carrier, 3 cells"
        );
        assert_eq!(vc_view(&won, Color::Black, VcView::OutsideMustPlay), "");
        assert_eq!(vc_view(&won, Color::White, VcView::Status), "INFLUENCE a1 0 a2 0 a3 0\nTEXT black has won");
    }
}
