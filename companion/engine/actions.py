"""Record lines derived from an action's dataclass fields, so no game hand-writes its codec.

An action is a frozen dataclass with a ``type`` class attribute; :class:`RecordAction` writes it as
``{"type": ..., field: value, ...}`` in field order and reads it back, checking every value's type
against the field's annotation. A record is untrusted, so a wrong value is a
:class:`~companion.errors.RecordError` naming the action and the key, never a traceback.

What a field's annotation may be, and how it is written:

* ``int``, ``str``, ``bool``: as themselves (a JSON ``true`` is no integer); an ``int`` subclass (a
  game's typed number card) as its number, read back into that class;
* ``Literal[...]``: one of the listed values;
* a card class with ``from_record`` (:class:`~companion.engine.tricks.SuitedCard`): its text, ``B7``;
* ``tuple[X, ...]``: a list of X;
* ``X | None``: X or null; a field whose default is None is left out of the line while it is None;
* a class with ``to_fields`` / ``from_fields``: its own keys, written into the action's line.

A key missing from a line takes the field's default when it has one.

>>> from dataclasses import dataclass
>>> from typing import ClassVar
>>> @dataclass(frozen=True)
... class Bid(RecordAction):
...     seat: int
...     tricks: tuple[int, ...]
...     type: ClassVar[str] = "bid"
>>> Bid(2, (1, 3)).to_json()
{'type': 'bid', 'seat': 2, 'tricks': [1, 3]}
>>> Bid.from_json({"type": "bid", "seat": 2, "tricks": [1, 3]}) == Bid(2, (1, 3))
True
>>> Bid.from_json({"type": "bid", "seat": True, "tricks": []})
Traceback (most recent call last):
...
companion.errors.RecordError: a bid needs an integer 'seat'
"""

from __future__ import annotations

import dataclasses
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, Literal, Protocol, Self, cast

from companion.engine.base import Answer, is_int
from companion.errors import RecordError

MISSING = dataclasses.MISSING
Decode = Callable[[str, str, object], Any]  # (action type, key, raw value) -> value, or RecordError
Encode = Callable[[Any], Any]


class Fields(Protocol):
    """A value that spreads over several keys of its action's line (a round rule and its variant)."""

    def to_fields(self) -> dict[str, Any]: ...

    @classmethod
    def from_fields(cls, kind: str, data: Mapping[str, Any]) -> Self: ...


def one_of(kind: str, key: str, value: object, allowed: tuple[object, ...]) -> Any:
    """``value`` if it is one of ``allowed`` (of the same type: a JSON true is no 1), else a
    RecordError saying which values a ``kind`` takes."""
    if not any(type(value) is type(choice) and value == choice for choice in allowed):
        raise RecordError(f"a {kind}'s {key!r} must be one of {', '.join(map(str, allowed))}")
    return value


@dataclasses.dataclass(frozen=True)
class FieldCodec:
    """How one field goes into and out of a line: its key, a writer and a checking reader."""

    name: str
    encode: Encode | None  # None: the value spreads over keys of its own (:class:`Fields`)
    decode: Decode
    default: object = MISSING
    omit_none: bool = False


@dataclasses.dataclass(frozen=True)
class Codec:
    """A writer and a checking reader for one annotation; ``what`` names its values in a message."""

    encode: Encode
    decode: Decode
    what: str
    own_errors: bool = False  # the reader's message is more precise than "a list of ..." (a card's)


def _same(value: Any) -> Any:
    return value


def _checked(accepts: Callable[[object], bool], article: str, what: str, make: Callable[[Any], Any] = _same) -> Codec:
    def decode(kind: str, key: str, value: object) -> Any:
        if not accepts(value):
            raise RecordError(f"a {kind} needs {article} {key!r}")
        return make(value)

    return Codec(_same if make is _same else int, decode, what)


def _one_of(allowed: tuple[object, ...], what: str) -> Codec:
    def decode(kind: str, key: str, value: object) -> Any:
        return one_of(kind, key, value, allowed)

    return Codec(_same, decode, what)


def _card(card: Any) -> Codec:
    def decode(kind: str, key: str, value: object) -> Any:
        if not isinstance(value, str):
            raise RecordError(f"a {kind} needs a card code {key!r}, like B7")
        return card.from_record(value)

    return Codec(str, decode, "card codes", own_errors=True)


def _optional(inner: Codec) -> Codec:
    return Codec(lambda value: None if value is None else inner.encode(value),
                 lambda kind, key, value: None if value is None else inner.decode(kind, key, value), inner.what)


def _listed(inner: Codec) -> Codec:
    def decode(kind: str, key: str, value: object) -> Any:
        if not isinstance(value, list):
            raise RecordError(f"a {kind} needs a list of {inner.what} {key!r}")
        try:
            return tuple(inner.decode(kind, key, item) for item in value)
        except RecordError:
            if inner.own_errors and all(isinstance(item, str) for item in value):
                raise
            raise RecordError(f"a {kind} needs a list of {inner.what} {key!r}") from None

    return Codec(lambda values: [inner.encode(value) for value in values], decode, inner.what)


def _codec_for(hint: Any) -> Codec:
    """The codec of a field annotated ``hint``."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (types.UnionType, typing.Union) and type(None) in args:
        (inner,) = [arg for arg in args if arg is not type(None)]
        return _optional(_codec_for(inner))
    if origin is Literal:
        return _one_of(tuple(args), "choices")
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return _listed(_codec_for(args[0]))
    if hint is bool:
        return _one_of((True, False), "booleans")
    if hint is int:
        return _checked(is_int, "an integer", "integers")
    if hint is str:
        return _checked(lambda value: isinstance(value, str), "a string", "strings")
    if isinstance(hint, type) and issubclass(hint, int):  # a typed number card: its number in the line
        return _checked(is_int, "an integer", "integers", hint)
    if hasattr(hint, "from_record"):
        return _card(hint)
    raise TypeError(f"no record codec for a field of type {hint!r}")


def _spread(fields_type: type[Fields]) -> Decode:
    def decode(kind: str, key: str, data: object) -> Any:
        return fields_type.from_fields(kind, cast(Mapping[str, Any], data))

    return decode


def field_codecs(cls: type) -> tuple[FieldCodec, ...]:
    """The codec of each dataclass field of ``cls``, in field order (annotations resolved once)."""
    hints = typing.get_type_hints(cls)
    codecs = []
    for field in dataclasses.fields(cls):
        hint = hints[field.name]
        default = field.default
        if isinstance(hint, type) and hasattr(hint, "from_fields"):
            codecs.append(FieldCodec(field.name, None, _spread(hint), default))
            continue
        codec = _codec_for(hint)
        codecs.append(FieldCodec(field.name, codec.encode, codec.decode, default, default is None))
    return tuple(codecs)


class RecordAction:
    """A base for actions (frozen dataclasses with a ``type``) whose record line is their fields."""

    type: ClassVar[str]
    _codecs: ClassVar[tuple[FieldCodec, ...] | None] = None

    @classmethod
    def codecs(cls) -> tuple[FieldCodec, ...]:
        """The fields' codecs, derived on first use (when every annotation's name is defined)."""
        codecs = cls.__dict__.get("_codecs")
        if codecs is None:
            codecs = field_codecs(cls)
            cls._codecs = codecs
        return cast(tuple[FieldCodec, ...], codecs)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type}
        for codec in self.codecs():
            value = getattr(self, codec.name)
            if codec.encode is None:
                data.update(value.to_fields())
            elif not (codec.omit_none and value is None):
                data[codec.name] = codec.encode(value)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        values = {}
        for codec in cls.codecs():
            if codec.encode is None:
                values[codec.name] = codec.decode(cls.type, codec.name, data)
            elif codec.name in data or codec.default is MISSING:
                values[codec.name] = codec.decode(cls.type, codec.name, data.get(codec.name))
        return cls(**values)


class GameAction(RecordAction, ABC):
    """An action that checks, applies, lists and reads itself (the pattern Zenjidou's actions
    proved), so a game whose action types are GameActions takes ``check``, ``apply``, ``parse`` and
    ``generate_legal_actions`` from :class:`~companion.engine.tricks.TrickGame`.

    ``game`` is the game the action belongs to, typed loosely here (the trick layer imports this
    module, not the other way round). The layer has already checked that the game is not over and
    that the action is one of the game's types.
    """

    @abstractmethod
    def check(self, game: Any) -> None:
        """Raise IllegalAction unless the action may be taken now (whose turn, which card)."""

    @abstractmethod
    def apply(self, game: Any) -> None:
        """Fold the checked action into ``game``'s state."""

    @classmethod
    @abstractmethod
    def legal(cls, game: Any) -> Iterable[GameAction]:
        """Every action of this kind ``game`` allows now, in the order the device offers them."""

    @classmethod
    @abstractmethod
    def read(cls, game: Any, text: str) -> GameAction | None:
        """The action ``text`` (short notation) makes now, or None if the text is of another kind."""


# The table's answer to a question (engine/base's Answer, which this module cannot be imported by)
# checks, applies, lists and reads itself through the game's answer hooks: a GameAction like any other.
GameAction.register(Answer)
