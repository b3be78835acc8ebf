"""The learned evaluation in one place: the public features of a position and the value network that forecasts
every seat's win share and final score (evaluation.pyx, evaluated in C inside the search), the learned turn
policy's weights and file format (turn_policy.pyx; search/tree.pyx plays it), and the shipped model files with
their manifest (models, data/models.json). Training lives in barcelona_ai.training.

May import: barcelona_ai.errors, barcelona_ai.core, barcelona_ai.rules.
"""
