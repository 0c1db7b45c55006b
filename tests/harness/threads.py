"""Load that runs beside a test: threads calling self.run(i) from start() (or the with block's
start) until finish() (its end), each then given up to join_seconds to finish what it does (a call
begun is answered, not abandoned)."""
import threading


class Threads:
    join_seconds = 30

    def __init__(self, count):
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.run, args=(i,), daemon=True) for i in range(count)]

    def run(self, i):
        raise NotImplementedError

    def start(self):
        for t in self.threads:
            t.start()

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=self.join_seconds)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.finish()
