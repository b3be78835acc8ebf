"""Adapters to other frameworks: OpenSpiel's Game/State (openspiel_game, the [openspiel] extra), PettingZoo's AEC
environment (pettingzoo_env, the [pettingzoo] extra) and the observation tensor they share (observation).

May import: barcelona_ai.errors, barcelona_ai.core, barcelona_ai.rules, barcelona_ai.learned.
"""
