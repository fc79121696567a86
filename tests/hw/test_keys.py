import pytest

from companion.errors import ConfigError
from companion.hw.keys import Key, KeyEvent


@pytest.mark.parametrize("text", ["ok", "OK", " Ok\n"])
def test_parse_ignores_case_and_spaces(text: str) -> None:
    assert Key.parse(text) is Key.OK


def test_parse_rejects_unknown_name_and_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"unknown key 'ENTER'.*UP, DOWN, LEFT, RIGHT, OK, BACK, AUX"):
        Key.parse("ENTER")


def test_every_key_parses_from_its_name() -> None:
    assert [Key.parse(key.name.lower()) for key in Key] == list(Key)


def test_key_event_defaults_to_a_short_press_and_is_hashable() -> None:
    assert KeyEvent(Key.UP) == KeyEvent(Key.UP, long=False)
    assert len({KeyEvent(Key.UP), KeyEvent(Key.UP, long=True)}) == 2
