"""The table of ponder games that OpenSpiel also has: how a ponder variant maps to an OpenSpiel
game string, and how ponder's move names map to OpenSpiel actions.

Each entry is keyed by ponder's game name (`list_games`). A script uses only the entries whose
game ponder lists, so rows for games still being written wait here until the game lands; they are
checked by the differential test the first time it sees them.
"""

GO_LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def go_vertex_to_point(text, width, height):
    """A Go-style vertex (A1 bottom-left, no I) as (column, row from the top), or None."""
    text = text.strip().upper()
    if len(text) < 2 or text[0] not in GO_LETTERS or not text[1:].isdigit():
        return None
    column, row = GO_LETTERS.index(text[0]), int(text[1:])
    if column >= width or not 1 <= row <= height:
        return None
    return column, height - row


def point_to_go_vertex(column, row_from_top, height):
    return f"{GO_LETTERS[column]}{height - row_from_top}"


def letter_from_top_to_point(text, width, height):
    """`a1` top-left naming (Hex, Reversi) as (column, row from the top), or None."""
    text = text.strip().lower()
    if len(text) < 2 or not text[0].isalpha() or not text[1:].isdigit():
        return None
    column, row = ord(text[0]) - ord("a"), int(text[1:])
    if column >= width or not 1 <= row <= height:
        return None
    return column, row - 1


def point_to_letter_from_top(column, row_from_top, height):
    return f"{chr(ord('a') + column)}{row_from_top + 1}"


class GridGame:
    """A game whose actions are the cells of a width x height grid, row by row from the top
    (`action = row * width + column`), plus optional named special actions."""

    def __init__(self, openspiel_string, width, height, naming="go", specials=None):
        self.openspiel_string = openspiel_string
        self.width, self.height = width, height
        self.naming = naming
        self.specials = specials or {}  # ponder move name -> action

    def move_to_action(self, text):
        lowered = text.strip().lower()
        if lowered in self.specials:
            return self.specials[lowered]
        if self.naming == "go":
            point = go_vertex_to_point(text, self.width, self.height)
        else:
            point = letter_from_top_to_point(text, self.width, self.height)
        if point is None:
            return None
        column, row = point
        return row * self.width + column

    def from_gogui(self, text):
        """A name from `gogui-rules_legal_moves` (GoGui's A1-bottom-left vertices, or a special
        move) in this game's own naming."""
        if text.strip().lower() in self.specials:
            return text.strip().lower()
        point = go_vertex_to_point(text, self.width, self.height)
        if point is None:
            return text
        column, row = point
        return self.action_to_move(row * self.width + column)

    def action_to_move(self, action):
        for name, special in self.specials.items():
            if special == action:
                return name
        row, column = divmod(action, self.width)
        if self.naming == "go":
            return point_to_go_vertex(column, row, self.height)
        return point_to_letter_from_top(column, row, self.height)


class ColumnGame(GridGame):
    """Connect Four: an action is a column; ponder names the landing cell (a Go vertex) and also
    reads a bare column letter. The landing row needs the position, so the caller passes it."""

    def move_to_action(self, text):
        letter = text.strip().upper()[:1]
        if letter and letter in GO_LETTERS and GO_LETTERS.index(letter) < self.width:
            return GO_LETTERS.index(letter)
        return None

    def action_to_move(self, action):
        # A bare column letter is a move ponder accepts in Connect Four.
        return GO_LETTERS[action]

    def from_gogui(self, text):
        # ponder lists a move as its landing cell; the column letter names it here.
        return text.strip().upper()[:1]


def tictactoe(width, height, params):
    k = int(params.get("k", 3))
    if (width, height, k) == (3, 3, 3):
        name = "tic_tac_toe()"
    else:
        name = f"mnk(m={width},n={height},k={k})"
    if params.get("misere", "0") in ("1", "true"):
        name = f"misere(game={name})"
    return GridGame(name, width, height)


def gomoku(width, height, params):
    if width != height or params.get("exact_five", "0") in ("1", "true"):
        return None  # OpenSpiel's Gomoku is square and freestyle (an overline wins).
    return GridGame(f"gomoku(size={width})", width, height)


def reversi(width, height, params):
    if (width, height) != (8, 8):
        return None
    return GridGame("othello", 8, 8, naming="top", specials={"pass": 64})


def connect4(width, height, params):
    blocked = params.get("blocked", "none").strip().lower()
    if blocked not in ("", "none"):
        # OpenSpiel has no blocked cells: our Python game (blocked_connect_four.py, which the
        # caller imports to register it) plays them. Its string form separates cells with `-`.
        cells = "-".join(cell for cell in blocked.replace("-", ",").split(",") if cell)
        return ColumnGame(f"python_blocked_connect_four(rows={height},columns={width},blocked={cells})", width,
                          height)
    return ColumnGame(f"connect_four(rows={height},columns={width})", width, height)


def hex_game(width, height, params):
    # OpenSpiel's hex has no swap rule; ponder's swap must be off for the comparison.
    if params.get("swap", "0") in ("1", "true"):
        return None
    return GridGame(f"hex(num_rows={height},num_cols={width})", width, height, naming="top")


# ponder game name -> (constructor, variants to test as (width, height, params), random games each)
GAMES = {
    "tictactoe": (
        tictactoe,
        [(3, 3, {}), (3, 3, {"misere": "1"}), (4, 3, {"k": "3"}), (4, 4, {"k": "3"})],
        150,
    ),
    "gomoku": (gomoku, [(9, 9, {}), (15, 15, {})], 12),
    "reversi": (reversi, [(8, 8, {})], 20),
    "connect4": (connect4, [(7, 6, {})], 60),
    "hex": (hex_game, [(5, 5, {}), (11, 11, {})], 30),
}


def openspiel_variant(game, width, height, params):
    """The table row for a ponder variant, or None when OpenSpiel has no such variant."""
    entry = GAMES.get(game)
    if entry is None:
        return None
    return entry[0](width, height, params)
