"""Scheduled tasks: a prompt, a schedule in the user's words and an approved scope, run in the
background while Jawad runs (``schedule``: the rule; ``task_store``: tasks and runs in ``jawad.db``;
``runner``: one run and the scheduler). No Qt."""
