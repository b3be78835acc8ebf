"""The web board (the [web] extra): the JSON API's work (api), the board drawn as SVG (board_svg), the checks
that let only the board's own page drive the server (guard), and the Starlette server (server) that serves both
and the page in data/web.

May import: every subpackage below it: rules, learned, search, workflows (and errors, core).
"""
