"""A ``run:`` whose text the job's matrix decides is read once per distinct text."""

from __future__ import annotations

import textwrap

from detlint.base.span import Span
from detlint.readers.ci.facts import CiCommand, EnvSetting, Reading
from detlint.readers.ci.github.matrix_readings import MAX_READINGS, command_readings
from detlint.readers.ci.github.workflow import read_github
from detlint.readers.yaml.load import read_yaml

ENTRIES: list[dict[str, object]] = [
    {"name": "win-py311", "os": "windows", "tox_env": "py311"},
    {"name": "linux-py311", "os": "linux", "tox_env": "py311"},
    {"name": "plugins", "os": "linux", "tox_env": "plugins"},
]
SPAN = Span("wf.yml", 1, 1, 1, 1)


def _texts(readings: tuple[Reading, ...]) -> list[str]:
    return [reading.text for reading in readings]


def test_each_distinct_value_is_one_reading_naming_its_entries():
    readings = command_readings("tox run -e ${{ matrix.tox_env }} -- -x", (), ENTRIES)
    assert _texts(readings) == ["tox run -e py311 -- -x", "tox run -e plugins -- -x"]
    assert [r.condition for r in readings] == [
        "matrix entries with tox_env=py311: name=win-py311, os=windows; name=linux-py311, os=linux",
        "matrix entries with tox_env=plugins: name=plugins, os=linux",
    ]
    assert [r.entries for r in readings] == [frozenset({0, 1}), frozenset({2})]


def test_one_value_for_every_entry_is_one_reading_without_condition():
    readings = command_readings("pytest tests/${{ matrix.os }}", (), ENTRIES[1:])
    assert readings == (Reading("pytest tests/linux", (), None, None, ((13, 18, 13, 29),)),)


def test_a_command_every_entry_reads_as_written_has_no_reading():
    assert command_readings("pytest tests", (), ENTRIES) == ()
    assert command_readings("pytest ${{ github.workspace }}/tests", (), ENTRIES) == ()


def test_an_expression_of_another_context_stays_as_written():
    readings = command_readings("tox -e ${{ matrix.tox_env }} ${{ secrets.TOKEN }}", (), ENTRIES)
    assert _texts(readings) == [
        "tox -e py311 ${{ secrets.TOKEN }}",
        "tox -e plugins ${{ secrets.TOKEN }}",
    ]


def test_an_unknown_matrix_decides_nothing_but_literal_env_values_fill_in():
    env = (EnvSetting("SUITE", "gpu", SPAN),)
    readings = command_readings("pytest tests/${{ env.SUITE }} -k ${{ matrix.k }}", env, None)
    assert _texts(readings) == ["pytest tests/gpu -k ${{ matrix.k }}"]
    assert readings[0].condition is None


def test_variables_set_from_the_matrix_are_read_per_entry():
    env = (
        EnvSetting("TOXENV", "${{ matrix.tox_env }}", SPAN),
        EnvSetting("PYTHON", "${{ matrix.os }}", SPAN),  # named nowhere: not read per entry
    )
    readings = command_readings("tox", env, ENTRIES)
    assert [(r.text, r.env, r.entries) for r in readings] == [
        ("tox", (EnvSetting("TOXENV", "py311", SPAN),), frozenset({0, 1})),
        ("tox", (EnvSetting("TOXENV", "plugins", SPAN),), frozenset({2})),
    ]


def test_a_step_if_the_matrix_decides_keeps_the_entries_that_run_it():
    readings = command_readings(
        "tox -e ${{ matrix.tox_env }}", (), ENTRIES, "${{ matrix.os != 'windows' }}"
    )
    assert [r.entries for r in readings] == [frozenset({1}), frozenset({2})]
    assert readings[0].condition == "matrix entries with tox_env=py311: name=linux-py311, os=linux"


def test_columns_of_the_first_line_map_back_to_the_text_as_written():
    (reading,) = command_readings(
        "a ${{ matrix.x }} b ${{ matrix.y }} c", (), [{"x": "XX", "y": ""}]
    )
    assert reading.text == "a XX b  c"
    columns = [reading.written_column(column) for column in (0, 2, 3, 5, 7, 8)]
    assert columns == [0, 2, 2, 18, 35, 36]
    assert reading.written_column(4, end=True) == 17
    assert reading.written_column(7, end=True) == 20  # before the empty value


def test_many_texts_are_capped_and_the_rest_read_as_written_saying_so():
    entries: list[dict[str, object]] = [{"shard": n} for n in range(40)]
    readings = command_readings("pytest --shard ${{ matrix.shard }}", (), entries)
    assert len(readings) == MAX_READINGS
    assert readings[-2].text == "pytest --shard 30"
    last = readings[-1]
    assert (last.text, last.entries) == (
        "pytest --shard ${{ matrix.shard }}",
        frozenset(range(31, 40)),
    )
    assert last.condition == (
        "the other 9 matrix entries (detlint reads 31 of the 40 texts the matrix gives this "
        "command, the rest as written)"
    )


def test_the_workflow_reader_gives_a_run_its_readings():
    text = """\
        on: push
        jobs:
          test:
            runs-on: ubuntu-latest
            strategy:
              matrix:
                suite: [unit, gpu]
            steps:
              - run: pytest tests/${{ matrix.suite }}
              - run: pytest tests
        """
    parsed = read_yaml(textwrap.dedent(text), "wf.yml")
    (step,) = read_github(parsed.documents, "wf.yml").steps
    first, second = step.commands
    assert isinstance(first, CiCommand)
    assert _texts(first.readings) == ["pytest tests/unit", "pytest tests/gpu"]
    assert first.readings[1].condition == "matrix entries with suite=gpu"
    assert second.readings == ()
