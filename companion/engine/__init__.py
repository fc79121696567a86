"""The rules engine: pure game logic, no I/O, no clock, no hardware."""

from companion.engine.base import Answer, Decision, Game, LegalActions, Question, Setup
from companion.registry import game_class, game_ids, register

__all__ = ["Answer", "Decision", "Game", "LegalActions", "Question", "Setup", "game_class", "game_ids", "register"]
