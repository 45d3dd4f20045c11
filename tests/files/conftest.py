"""Fixtures of the file tests: the reader model (``tests/servers/reader_model.py``)."""

from tests.servers.reader_model import _reader_model_server, reader_model

__all__ = ["_reader_model_server", "reader_model"]
