"""Reference IMPs-lost rating (simcore.schemes.imps_lost), one Python object per player.

Written from the behaviour of the public RatingCalculator script as
documented in simcore/schemes/imps_lost.py and SPEC §1.4: each period's IMPs
are spread evenly over its boards; boards are rated in batches; a partial
batch is carried and topped up from the next period first.
"""


class ImpsLostPlayer:
    def __init__(self, params):
        self.params = params
        self.rating = params.initial_rating
        self.k = params.k_initial
        self.batches = 0
        self.ever_reached = False
        self.carry_boards = 0
        self.carry_imps = 0.0

    def rate_batch(self, imps_in_batch):
        p = self.params
        expected_per_board = (p.top_rating - self.rating) / p.imps_scale
        actual_per_board = imps_in_batch / p.batch
        self.rating = self.rating + self.k * (expected_per_board - actual_per_board)
        self.batches += 1
        if self.rating >= p.reached_rating:
            self.ever_reached = True
        if self.batches <= p.initial_batches:
            self.k = p.k_initial
        else:
            self.k = p.k_reached if self.ever_reached else p.k_other

    def add_period(self, boards, imps_lost):
        p = self.params
        if boards == 0:
            return  # nothing played: nothing changes, not even the carry
        per_board = imps_lost / boards
        remaining = boards
        if self.carry_boards > 0:
            needed = p.batch - self.carry_boards
            if p.carry == "fixed" and remaining < needed:
                self.carry_boards += remaining
                self.carry_imps += remaining * per_board
                return
            # the script completes the batch even when the period is too short
            remaining -= needed
            self.rate_batch(self.carry_imps + needed * per_board)
            if p.carry == "fixed":
                self.carry_boards, self.carry_imps = 0, 0.0
        while remaining >= p.batch:
            self.rate_batch(p.batch * per_board)
            remaining -= p.batch
        # the script replaces the carry only when some boards are left over;
        # otherwise an old carry stays as it was
        if remaining > 0:
            self.carry_boards = remaining
            self.carry_imps = remaining * per_board

    def row(self):
        return (self.rating, self.carry_boards, self.carry_imps, self.k, self.batches)


def imps_lost_replay(records, params):
    """Apply (player, boards, imps_lost) records in order; one state row per record."""
    players, rows = {}, []
    for player, boards, imps_lost in records:
        who = players.setdefault(player, ImpsLostPlayer(params))
        who.add_period(boards, imps_lost)
        rows.append(who.row())
    return rows, players
