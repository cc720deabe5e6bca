"""The composition root: where a run's ports are built from ``Settings``, in small named
steps, and handed to the run's tape (``replay.base.RunTape``) once.

``ports`` opens a run's context (the HTTP client, the search provider, the fetcher and its
page cache, the budget guard, the response cache, the gateway, the council, the context),
``signals`` turns what the ports report into the run's events, ``replay`` replays a
recording with the recorded settings. Only this package, the runner and the front ends
read ``Settings``; everything they build takes its typed group (``settings_groups``).
``studio`` is the research graph for LangGraph Server and Studio."""
