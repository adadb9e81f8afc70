"""An independent reading of candor interval logs (HdrHistogram's Python implementation, hdrh).

Usage: hdrh_percentiles.py LOG...

Adds, tag by tag, every histogram tagged "measured.<op>.<kind>" (a run's measured totals over its
measurement window) of all the logs given, and prints, as JSON, each tag's count and its p50, p90,
p99, p99.9 and maximum in microseconds (the logs' unit).
"""
import json
import sys

from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogReader

LOWEST, HIGHEST, DIGITS = 1, 3_600_000_000, 3  # candor's one geometry (measure/hist.go)


def main(paths):
    sums = {}
    for path in paths:
        reader = HistogramLogReader(path, HdrHistogram(LOWEST, HIGHEST, DIGITS))
        while True:
            h = reader.get_next_interval_histogram()
            if h is None:
                break
            tag = h.get_tag() or ""
            if not tag.startswith("measured."):
                continue
            acc = sums.setdefault(tag, HdrHistogram(LOWEST, HIGHEST, DIGITS))
            acc.add(h)
        reader.close()
    out = {}
    for tag, h in sums.items():
        out[tag] = {
            "count": h.get_total_count(),
            "p50": h.get_value_at_percentile(50.0),
            "p90": h.get_value_at_percentile(90.0),
            "p99": h.get_value_at_percentile(99.0),
            "p99_9": h.get_value_at_percentile(99.9),
            "max": h.get_max_value(),
        }
    json.dump(out, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
