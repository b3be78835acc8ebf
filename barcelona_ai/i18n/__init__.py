"""The board in the player's language: messages.py marks what a player reads and speaks the language of a
context; catalogs.py builds the French and Japanese catalogs from the code (with Babel).

May import: the top level's errors (nothing else of the package: every layer above marks its messages here).
"""
