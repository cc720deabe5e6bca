"""The research recipe: its graph, state, stages, threads, evaluation."""
