"""thm: who answers a message in a multi-agent chat, and whether an agent's reply may start
exactly one more agent turn. The C++ core, bound natively (adr/0013).

Values are immutable classes made with keyword arguments (``thm.Mention(target=...,
text=..., offset=...)``), each with ``to_json()`` and ``from_json(value)`` for its SPEC §6
wire form; enums are ``enum.StrEnum``s whose values are the wire tokens. Operations are
functions named as ``thm eval``'s. Refusals are values; errors are the exceptions of
``thm._errors`` (all ``thm.Error``).
"""

from thm._errors import DecodeError as DecodeError
from thm._errors import DeskError as DeskError
from thm._errors import Error as Error
from thm._errors import LargeRosterWarning as LargeRosterWarning
from thm._errors import QueueError as QueueError
from thm._errors import ResponderError as ResponderError
from thm._errors import RosterError as RosterError
from thm._port import AsyncMentionTurnQueue as AsyncMentionTurnQueue
from thm._port import MentionTurnQueue as MentionTurnQueue
from thm._port import dispatch_mention_async as dispatch_mention_async
from thm._thm import *  # noqa: F401,F403  (the values, the variants' unions, the operations)
from thm._thm import __version__ as __version__

__all__ = [name for name in dir() if not name.startswith("_")]
