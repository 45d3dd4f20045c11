"""The chat column: messages, the composer and its buttons, history, the model picker, research, spoken replies."""
