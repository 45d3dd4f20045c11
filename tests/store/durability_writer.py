"""A process that writes a conversation as the app does, for the durability test to kill.

Usage: python durability_writer.py DATA_DIR CONVERSATION_ID START [BIG]
Appends alternating user and (slowly "streamed") assistant messages to the conversation,
printing ``committed <position> <content>`` after each commit, until it is killed.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from jawad_desktop.core.messages import Message, ToolCall
from jawad_desktop.core.store.conversations import ConversationStore


def content_for(position: int, big: bool = False) -> str:
    # Big messages (about 300 KB) make it likely the kill lands inside a write.
    repeat = (position % 7 + 1) * (2000 if big else 1)
    return f"message {position} " + ("lorem ipsum dolor " * repeat).strip()


def main() -> None:
    data_dir, cid, start = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    big = len(sys.argv) > 4 and sys.argv[4] == "big"
    store = ConversationStore.open(data_dir)
    position = start
    while True:
        if position % 2 == 0:
            message = Message("user", content_for(position, big))
        else:
            # The answer streams for a moment before it is complete and saved.
            for _ in range(3):
                time.sleep(0.001)
            calls = [ToolCall(f"call_{position}", "read_page", {"n": position})] if position % 3 == 0 else []
            message = Message("assistant", content_for(position, big), tool_calls=calls)
        stored = store.append_message(cid, message)
        assert stored.position == position, (stored.position, position)
        print(f"committed {position}", flush=True)
        position += 1


if __name__ == "__main__":
    main()
