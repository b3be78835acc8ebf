"""The learned evaluation in one place: the public features of a position and the value network that forecasts
every seat's win share and final score (evaluation.pyx, evaluated in C inside the search), the shipped model files
and their manifest (models, data/models.json). The learned turn policy's weights are read by search.tree's
TurnPolicy, which plays them in C; training lives in barcelona_ai.training.

May import: barcelona_ai.errors, barcelona_ai.core, barcelona_ai.rules.
"""
