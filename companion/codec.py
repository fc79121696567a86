"""The one way every file of the product is parsed as JSON: records, card facts, settings, the
event mode's messages and outbox cursor.

It sits below the engine's record and the card data, which both read files with it, so neither has
to import the other.
"""

from __future__ import annotations

import json
import re
from typing import Any

from companion.errors import RecordError

MAX_DEPTH = 32  # nesting a record line may have: the deepest real one (card data) has 5


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_TOKEN = re.compile(r'\\.|["\[\]{}]')  # an escape (skipped whole), a quote or a bracket


def _depth_ok(text: str) -> bool:
    """Whether arrays and objects nest at most MAX_DEPTH deep (brackets inside strings aside).

    Checked before parsing, in one linear pass, so a line of 100,000 ``[`` costs a message rather
    than a RecursionError.
    """
    depth = 0
    in_string = False
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token == '"':
            in_string = not in_string
        elif in_string or len(token) == 2:
            continue
        elif token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return False
        else:
            depth -= 1
    return True


def decode_json(text: str) -> Any:
    """Parse one JSON text the way every file of the product is parsed (records, card facts,
    settings): at most MAX_DEPTH deep, no NaN or Infinity, integers the way Python's limit allows.
    Any fault is a :class:`RecordError` saying what is wrong, without a line number.

    >>> decode_json('[' * 100000)
    Traceback (most recent call last):
    ...
    companion.errors.RecordError: nested more than 32 deep
    """
    if not _depth_ok(text):
        raise RecordError(f"nested more than {MAX_DEPTH} deep")
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as err:
        raise RecordError(f"not valid JSON ({err.msg.removesuffix(' at')} at column {err.colno})") from None
    except (ValueError, RecursionError) as err:  # NaN; an integer of more than 4300 digits
        raise RecordError(f"not valid JSON ({err})") from None
