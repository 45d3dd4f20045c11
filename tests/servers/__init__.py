"""Real servers the tests start on 127.0.0.1 for what cannot run here (faulty providers)."""
