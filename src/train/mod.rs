//! Training behind `ponder selfplay` and `ponder train`: self-play data generation with exact
//! labels where the solvers reach, and deterministic fitting of the weights files in `weights/`.

pub mod bradley_terry;
pub mod game_selfplay;
pub mod gomoku_fit;
pub mod gomoku_move_value_fit;
pub mod gomoku_order_fit;
pub mod gomoku_value_fit;
pub mod hex_fit;
pub mod hex_swap_table;
pub mod reversi_fit;
pub mod reversi_probcut_fit;
pub mod reversi_selfplay;
