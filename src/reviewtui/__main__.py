"""``python -m reviewtui`` runs the command line."""

from __future__ import annotations

from reviewtui.cli import main

raise SystemExit(main())
