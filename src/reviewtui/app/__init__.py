"""One function per use case, called by the CLI and the TUI alike (neither re-implements it).

``evaluate.run_eval``: how reviewtui would have triaged the repository's own past bugs.
``fix``: ask the model for a finding's fix, preview, apply and undo it (the only writer of the
person's files). ``open_change.WorkbenchLoad``: how the workbench loads its change (the files
analysed across cores in a forked process while the app paints).
"""
