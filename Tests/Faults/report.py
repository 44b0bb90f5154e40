"""What a fault run found: violations (any one fails the run) and counters, shared by threads."""

import collections
import threading

SHOWN_VIOLATIONS = 40
SHOWN_CHARACTERS = 700


class Report:
    def __init__(self):
        self._lock = threading.Lock()
        self.violations, self.counts = [], collections.Counter()

    def violation(self, text):
        with self._lock:
            self.violations.append(text)
            if len(self.violations) <= SHOWN_VIOLATIONS:
                print("VIOLATION:", text if len(text) <= SHOWN_CHARACTERS else text[:SHOWN_CHARACTERS] + " …", flush=True)

    def count(self, name, amount=1):
        with self._lock:
            self.counts[name] += amount

    def print_counts(self):
        for name, amount in sorted(self.counts.items()):
            print(f"  {name}: {amount}")
