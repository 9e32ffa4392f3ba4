"""One function per use case, called by the CLI and the TUI alike (neither re-implements it).

``evaluate.run_eval``: how reviewtui would have triaged the repository's own past bugs.
"""
