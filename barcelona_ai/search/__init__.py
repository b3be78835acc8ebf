"""The search: the compiled ISMCTS tree and its rollout policies (tree.pyx), its settings and presets
(settings), the engine players use (engine: best move, hints, analysis) and the engine as a player (bots).

May import: barcelona_ai.errors, barcelona_ai.core, barcelona_ai.rules, barcelona_ai.learned.
"""
