"""The command line, ``barcelona-ai``: the entry point and its subcommands (main), argument checks (args), the
analysis and table commands (analysis), interactive play (play), the learned evaluation's commands (learn).

May import: every subpackage (it is the top layer).
"""
