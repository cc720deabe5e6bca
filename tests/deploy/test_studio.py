"""LangGraph Server and Studio (issue 18, part 6): ``langgraph.json`` names a factory that
really exists, and the graph built through it, from a config alone, runs offline (no
model, a local corpus) to the report the runner produces for the same question."""

from __future__ import annotations

import importlib.util
import json
import uuid
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from deepresearch.compose.studio import make_graph, settings_from_config
from deepresearch.errors import ConfigError
from deepresearch.models import Report
from deepresearch.runner import run_research
from deepresearch.settings import load_settings

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "When was the Eiffel Tower built and how tall is it?"
DOCUMENTS = {
    "eiffel.md": "# Eiffel Tower\n\nThe Eiffel Tower was built between 1887 and 1889 as the "
    "entrance arch to the 1889 World's Fair in Paris. The tower is 330 metres tall, about the "
    "height of an 81-storey building, and was the tallest man-made structure in the world "
    "until the Chrysler Building was finished in New York in 1930.\n",
    "paris.md": "# Paris\n\nParis is the capital of France. Its landmarks include the Louvre, "
    "Notre-Dame and the Eiffel Tower, which Gustave Eiffel's company designed and built for "
    "the Exposition Universelle of 1889. Millions of people visit the tower every year.\n",
    "garden.md": "# Gardening\n\nTomatoes need sun, water and a warm spot in the garden.\n",
}


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name, text in DOCUMENTS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_langgraph_json_names_the_factory() -> None:
    config = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))
    assert config["dependencies"] == ["."]
    assert set(config) <= {"$schema", "dependencies", "graphs", "env", "python_version"}
    assert config["python_version"] in ("3.11", "3.12", "3.13")
    (target,) = config["graphs"].values()
    path, _, attribute = target.partition(":")
    file = (ROOT / path).resolve()
    assert file.is_file() and file.suffix == ".py"
    # the server imports the file by its path: it must work outside the package's import
    spec = importlib.util.spec_from_file_location("langgraph_studio_graph", file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert callable(getattr(module, attribute))
    assert attribute == make_graph.__name__
    assert file == Path(make_graph.__wrapped__.__code__.co_filename).resolve()  # type: ignore[attr-defined]


async def test_the_factory_builds_a_graph_that_runs_offline_to_the_runners_report(
    corpus: Path, tmp_path: Path
) -> None:
    options = {
        "model": "none",
        "search": "local",
        "corpus_dir": str(corpus),
        "depth": "quick",
        "min_domains": 1,
        "data_dir": str(tmp_path / "studio-data"),
    }
    thread = str(uuid.uuid4())
    config = {"configurable": {"thread_id": thread, **options, "assistant_id": "x"}}
    events: list[dict[str, object]] = []
    async with make_graph(config) as graph:  # type: ignore[arg-type]
        # the server gives the graph its own checkpointer, through copy()
        served = graph.copy(update={"checkpointer": InMemorySaver()})
        async for mode, chunk in served.astream(
            {"question": QUESTION}, config, stream_mode=["custom", "values"]
        ):
            if mode == "custom":
                events.append(chunk)
        state = (await served.aget_state(config)).values
    report = state["report"]
    assert isinstance(report, Report) and report.kind == "extractive"
    assert state["run_id"] == thread and state["question"] == QUESTION
    assert report.evidence and all(e.verification.status != "FAIL" for e in report.evidence)
    assert {ref.url for ref in report.sources} >= {(corpus / "eiffel.md").resolve().as_uri()}
    types = [event["type"] for event in events]
    assert "stage_started" in types and "report_ready" in types

    direct = load_settings(**{**options, "data_dir": tmp_path / "runner-data"})
    expected = await run_research(QUESTION, direct)
    assert expected is not None
    assert [e.quote for e in report.evidence] == [e.quote for e in expected.evidence]
    assert [s.text for s in report.summary] == [s.text for s in expected.summary]


def test_keys_are_refused_in_the_graphs_config() -> None:
    with pytest.raises(ConfigError, match="tavily_api_key: keys are not taken"):
        settings_from_config({"configurable": {"tavily_api_key": "tvly-secret"}})


def test_the_configs_settings_override_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPRESEARCH_DEPTH", "deep")
    monkeypatch.setenv("DEEPRESEARCH_SEARCH", "wikipedia")
    settings = settings_from_config({"configurable": {"depth": "quick", "thread_id": "t"}})
    assert (settings.depth, settings.search) == ("quick", "wikipedia")
    with pytest.raises(ConfigError, match="depth"):
        settings_from_config({"configurable": {"depth": "bottomless"}})


async def test_reading_a_threads_state_needs_no_key(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server builds the graph again to read a thread's state, with only the thread in
    its config: the default model (an OpenAI one) and no key. That returned 500."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(tmp_path / "studio-data"))
    thread = str(uuid.uuid4())
    options = {"model": "none", "search": "local", "corpus_dir": str(corpus), "depth": "quick"}
    saver = InMemorySaver()
    run_config = {"configurable": {"thread_id": thread, **options, "min_domains": 1}}
    async with make_graph(run_config) as graph:  # type: ignore[arg-type]
        served = graph.copy(update={"checkpointer": saver})
        async for _ in served.astream({"question": QUESTION}, run_config):
            pass
    reading = {"configurable": {"thread_id": thread}}
    async with make_graph(reading) as graph:  # type: ignore[arg-type]
        state = await graph.copy(update={"checkpointer": saver}).aget_state(reading)
    assert isinstance(state.values["report"], Report)
