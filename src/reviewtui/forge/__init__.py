"""Pull/merge requests in, the person's review out: GitHub (and GitHub Enterprise) and GitLab.

``target`` says which pull request a ``--pr`` names and where its forge's API and git remote are;
``auth`` finds the token the person already has; ``http`` is the one HTTP client (``httpx2``,
already installed for the ``openai`` SDK) with the forge's error mapping and bounded waits on rate
limits; ``github`` and ``gitlab`` speak the handful of REST endpoints used, through small pydantic
models, and ``pull`` reads either into one ``PullInfo``; ``fetch`` brings the head and base into
``refs/reviewtui/pr/HOST/PATH/N/`` without touching a branch; ``draft`` turns the kept review into
what would be sent (forge-neutral), and ``sync`` (GitHub: one review) or ``gitlab_sync`` (GitLab:
draft notes, bulk-published, with ``gitlab_position`` for their lines; ``gitlab_send`` sends
them) sends it without duplicating what an earlier publish left; ``retract`` picks what an
earlier publish left that the review no longer has (a finding dismissed, a comment deleted), to
take back, and ``published`` says whether anything was ever published from this clone.

Nothing here is imported before a ``--pr`` or ``publish`` asks for it (start-up time).
"""
