"""End-to-end tests: the installed program in a real terminal (tmux)."""
