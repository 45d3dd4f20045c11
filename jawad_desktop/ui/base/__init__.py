"""What every room of the window uses to reach the core: the event bridge, background work, remedies."""
