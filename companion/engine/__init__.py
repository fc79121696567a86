"""The rules engine: pure game logic, no I/O, no clock, no hardware."""

from companion.engine.base import Answer, Decision, Game, LegalActions, Question, Setup

__all__ = ["Answer", "Decision", "Game", "LegalActions", "Question", "Setup"]
