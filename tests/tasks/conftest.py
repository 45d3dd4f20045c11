"""The task suite's server for the tests of this folder (``tests/fixtures/task_server.py``)."""

from tests.fixtures.task_server import task_server  # noqa: F401  (a fixture)
