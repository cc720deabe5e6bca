"""Recording and replaying runs (issue 19): while a run runs, what it got from outside
(model replies, search results, fetched pages, the clock, its fence boundary) is written to
its recording (``tape.py``) by wrappers around its ports (``ports.py``); a replay runs the
same recipe with the same settings on ports that serve only from that recording
(``play.py``), so it reproduces the report byte for byte with no model call, search or
fetch."""
