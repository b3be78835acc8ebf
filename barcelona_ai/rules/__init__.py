"""The rules around the kernel (barcelona_ai/core.pyx).

Below the kernel, read by it: the board data of an edition (tables), safe JSON reading (jsonio) and the typed
read-only view of a state (view). Above it: the move notation (notation), position documents (position), game
records (record), the text board (render), the named game log (gamelog), a real table's setup (table_setup) and
perft counts (perft).

May import: barcelona_ai.errors, barcelona_ai.core (the modules above the kernel), and each other.
"""
