"""Connect Four on any board with blocked cells, as an OpenSpiel game written in Python.

OpenSpiel's own `connect_four` has no blocked cells, so matches on the course variant (a board of
9 to 12 rows and columns with one random obstacle) play OpenSpiel's MCTS bot on this game
instead. The rules are ponder's (protocol-specs and src/games/connect4.rs), written again here
from the rules, not from ponder's code: a blocked cell holds no piece and breaks every line
through it, and a column fills past it (a piece dropped into the column lands on the next free
cell above it). Four in a row wins, the first player is Black (player 0), a full board is a draw.

Parameters: `rows`, `columns`, `blocked` (Go vertices separated by commas or `-`, e.g. `c3,f5`;
empty for none). Actions are columns, 0-based from the left.

    import blocked_connect_four, pyspiel
    game = pyspiel.load_game("python_blocked_connect_four", {"rows": 11, "columns": 10, "blocked": "e4"})
"""

import pyspiel

GO_LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
MAX_SIZE = 12

_GAME_TYPE = pyspiel.GameType(
    short_name="python_blocked_connect_four",
    long_name="Python Connect Four with blocked cells",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=False,
    provides_observation_tensor=False,
    parameter_specification={"rows": 6, "columns": 7, "blocked": ""})

EMPTY, BLOCKED = ".", "#"
STONES = ("x", "o")
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


def parse_blocked(text, columns, rows):
    """The blocked cells as (column, row from the bottom), or ValueError."""
    cells = set()
    for name in text.replace("-", ",").split(","):
        name = name.strip().upper()
        if not name:
            continue
        if name[0] not in GO_LETTERS or not name[1:].isdigit():
            raise ValueError(f"bad cell {name!r}")
        column, row = GO_LETTERS.index(name[0]), int(name[1:]) - 1
        if column >= columns or not 0 <= row < rows:
            raise ValueError(f"cell {name!r} is off the board")
        cells.add((column, row))
    return cells


class BlockedConnectFourGame(pyspiel.Game):
    def __init__(self, params=None):
        params = dict(params or {})
        self.rows, self.columns = int(params.get("rows", 6)), int(params.get("columns", 7))
        if not (4 <= self.rows <= MAX_SIZE and 4 <= self.columns <= MAX_SIZE):
            raise ValueError("rows and columns must be within 4..12")
        self.blocked = parse_blocked(str(params.get("blocked", "")), self.columns, self.rows)
        cells = self.rows * self.columns - len(self.blocked)
        info = pyspiel.GameInfo(num_distinct_actions=self.columns, max_chance_outcomes=0, num_players=2,
                                min_utility=-1.0, max_utility=1.0, utility_sum=0.0, max_game_length=cells)
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self):
        return BlockedConnectFourState(self)


class BlockedConnectFourState(pyspiel.State):
    def __init__(self, game):
        super().__init__(game)
        self.rows, self.columns = game.rows, game.columns
        # board[column * rows + row from the bottom]
        self.board = [BLOCKED if (c, r) in game.blocked else EMPTY
                      for c in range(self.columns) for r in range(self.rows)]
        # The row the next piece of each column lands on (`rows` when the column is full).
        self.next_row = [self.free_row_from(c, 0) for c in range(self.columns)]
        self.player = 0
        self.winner = None
        self.moves_left = game.max_game_length()

    def free_row_from(self, column, row):
        while row < self.rows and self.board[column * self.rows + row] == BLOCKED:
            row += 1
        return row

    def current_player(self):
        return pyspiel.PlayerId.TERMINAL if self.is_terminal() else self.player

    def _legal_actions(self, player):
        return [column for column in range(self.columns) if self.next_row[column] < self.rows]

    def _apply_action(self, action):
        row = self.next_row[action]
        stone = STONES[self.player]
        self.board[action * self.rows + row] = stone
        self.next_row[action] = self.free_row_from(action, row + 1)
        self.moves_left -= 1
        if self.makes_four(action, row, stone):
            self.winner = self.player
        self.player = 1 - self.player

    def makes_four(self, column, row, stone):
        for dc, dr in DIRECTIONS:
            run = 1
            for sign in (1, -1):
                c, r = column + sign * dc, row + sign * dr
                while 0 <= c < self.columns and 0 <= r < self.rows and self.board[c * self.rows + r] == stone:
                    run += 1
                    c, r = c + sign * dc, r + sign * dr
            if run >= 4:
                return True
        return False

    def _action_to_string(self, player, action):
        return GO_LETTERS[action]

    def is_terminal(self):
        return self.winner is not None or self.moves_left == 0

    def returns(self):
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.winner == 0 else [-1.0, 1.0]

    def __str__(self):
        return "\n".join("".join(self.board[c * self.rows + r] for c in range(self.columns))
                         for r in reversed(range(self.rows)))


pyspiel.register_game(_GAME_TYPE, BlockedConnectFourGame)
