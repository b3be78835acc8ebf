"""Game workflows the command line and the web page both call: playing bots to the end (playout), matches with
seat rotation (arena, distributed for Ray), self-play records (selfplay), reviews of a game (review), a game in
progress at a table or against the engine (session, standing), the shipped example positions (examples), the
benchmark and its signatures (bench), progress bars (progress).

May import: barcelona_ai.errors, barcelona_ai.core, barcelona_ai.rules, barcelona_ai.learned, barcelona_ai.search.
"""
