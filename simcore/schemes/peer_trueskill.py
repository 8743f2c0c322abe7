"""``trueskill``: a general rating system as a peer scheme (see ``simcore.schemes.peers``; needs simcore[peers])."""

from simcore.schemes.peers import TrueSkill as SCHEME  # noqa: F401
from simcore.schemes.peers import TrueSkillParams as Params  # noqa: F401
