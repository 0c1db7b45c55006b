"""Waiting, bounded in time, for what a test expects to become true."""
import time


def until(predicate, seconds, step=0.1):
    """predicate's first truthy value within `seconds`, asked every `step`; else its last."""
    deadline = time.monotonic() + seconds
    while not (value := predicate()) and time.monotonic() < deadline:
        time.sleep(step)
    return value
