"""Near-miss inputs for the two graph readers of user JSON: the event graph of
`raptor cycle-ratio` (``{"nodes": N, "edges": [[u, v, w, d], ...]}``,
raptor.spatial.cycle_ratio.load_graph) and the task graph of `raptor
schedule-dag` (``{"processors": P, "cost": [[...], ...], "edges": [[a, b, c],
...]}``, raptor.spatial.load_task_graph).

Every negative is one small edit away from a valid neighbour that the same
test accepts with its value derived by hand here (never by the code under
test), so that a reader refusing everything fails as surely as one accepting
too much. Each names the check it pins: removing that check (or moving a
bound by one) makes the test fail."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from raptor import spatial
from raptor._io import UserError
from raptor.spatial import cycle_ratio as cr

RAPTOR = [sys.executable, "-m", "raptor"]

# --- the event graph ----------------------------------------------------------

#: The valid neighbour: 0 -> 1 (w 3, d 0), 1 -> 0 (w 4, d 1). Its only cycle
#: has weight 3 + 4 = 7 and distance 0 + 1 = 1: ratio 7, edges [0, 1].
GRAPH = {"nodes": 2, "edges": [[0, 1, 3, 0], [1, 0, 4, 1]]}


def write(tmp_path: Path, text: str, name: str = "graph.json") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def ratio_of(path: Path) -> tuple[str, Fraction | None, list[int]]:
    result = cr.load_graph(path).max_cycle_ratio()
    return result.status, result.ratio, result.cycle


def test_the_valid_event_graph_has_its_hand_derived_ratio(tmp_path: Path) -> None:
    """The neighbour every negative below is derived from is accepted with
    ratio 7 over the cycle [0, 1]."""
    assert ratio_of(write(tmp_path, json.dumps(GRAPH))) == ("ok", Fraction(7), [0, 1])


@pytest.mark.parametrize("text, message", [
    # A key misspelt: the reader must not default a missing one.
    (json.dumps({"node": 2, "edges": GRAPH["edges"]}), r'expected \{"nodes": N, "edges"'),
    (json.dumps({"nodes": 2, "edge": GRAPH["edges"]}), r'expected \{"nodes": N, "edges"'),
    # A wrong type: a float, a string and a bool (an int subclass) of the same value.
    (json.dumps({"nodes": 2.0, "edges": GRAPH["edges"]}), r'"nodes" must be an integer, got 2\.0'),
    (json.dumps({"nodes": "2", "edges": GRAPH["edges"]}), r'"nodes" must be an integer, got \'2\''),
    (json.dumps({"nodes": True, "edges": [[0, 0, 3, 1]]}), r'"nodes" must be an integer, got True'),
    (json.dumps({"nodes": 2, "edges": [[0, 1, 3.0, 0], [1, 0, 4, 1]]}), r"edge 0 must be .*four integers"),
    (json.dumps({"nodes": 2, "edges": [[0, 1, 3, 0], [1, 0, 4, True]]}), r"edge 1 must be .*four integers"),
    (json.dumps({"nodes": 2, "edges": {"0": [0, 1, 3, 0]}}), r'"edges" must be a list'),
    # An index out of range by exactly one, at either end.
    (json.dumps({"nodes": 2, "edges": [[0, 2, 3, 0], [1, 0, 4, 1]]}), r"edge 0 \(0 -> 2\): node 2 is outside 0\.\.1"),
    (json.dumps({"nodes": 2, "edges": [[0, 1, 3, 0], [-1, 0, 4, 1]]}), r"edge 1 \(-1 -> 0\): node -1 is outside 0\.\.1"),
    (json.dumps({"nodes": 1, "edges": GRAPH["edges"]}), r"node 1 is outside 0\.\.0"),
    # A negative where non-negative is required.
    (json.dumps({"nodes": 2, "edges": [[0, 1, 3, -1], [1, 0, 4, 1]]}), r"negative distance -1"),
    (json.dumps({"nodes": -1, "edges": []}), r"node count must be between 0 and 2\^20"),
    # The supported ranges, one past each bound (|w| < 2^40, d < 2^20, nodes <= 2^20).
    (json.dumps({"nodes": 1, "edges": [[0, 0, 2**40, 1]]}), r"weight 1099511627776 is outside the supported range"),
    (json.dumps({"nodes": 1, "edges": [[0, 0, -2**40, 1]]}), r"weight -1099511627776 is outside the supported range"),
    (json.dumps({"nodes": 1, "edges": [[0, 0, 1, 2**20]]}), r"distance 1048576 is outside the supported range"),
    (json.dumps({"nodes": 2**20 + 1, "edges": []}), r"node count must be between 0 and 2\^20 = 1048576 \(got 1048577\)"),
    # An edge one entry short or one too long.
    (json.dumps({"nodes": 2, "edges": [[0, 1, 3], [1, 0, 4, 1]]}), r"edge 0 must be \[from, to, weight, distance\]"),
    (json.dumps({"nodes": 2, "edges": [[0, 1, 3, 0, 0], [1, 0, 4, 1]]}), r"edge 0 must be \[from, to, weight, distance\]"),
    # A truncated file and an extra trailing token.
    (json.dumps(GRAPH)[:-1], r"is not JSON"),
    (json.dumps(GRAPH) + " ]", r"is not JSON: Extra data"),
    (json.dumps(GRAPH["edges"]), r'expected \{"nodes": N, "edges"'),
])
def test_event_graph_near_misses_are_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    """Each check of load_graph and EventGraph (key presence, integer types
    with bools excluded, index range 0..N-1, distance >= 0, the 2^40 / 2^20
    limits, four entries per edge, JSON syntax) refuses its near miss with a
    one-line message that names the file."""
    path = write(tmp_path, text)
    with pytest.raises(UserError, match=message) as info:
        cr.load_graph(path)
    assert str(info.value).startswith(f"'{path}'") and "\n" not in str(info.value)


@pytest.mark.parametrize("graph, expected", [
    # The last index, N - 1, is inside (the neighbour of the out-by-one above).
    ({"nodes": 3, "edges": [[2, 2, 5, 1]]}, ("ok", Fraction(5), [0])),
    # Distance 0 is allowed on an edge (not on a whole cycle): 0 -> 1 d=0 as in GRAPH.
    ({"nodes": 2, "edges": [[0, 1, 3, 0], [1, 0, 4, 1]]}, ("ok", Fraction(7), [0, 1])),
    # Weight and distance swapped: a legal graph with another value, 1 + 0 over 3 + 4.
    ({"nodes": 2, "edges": [[0, 1, 0, 3], [1, 0, 1, 4]]}, ("ok", Fraction(1, 7), [0, 1])),
    # Each supported bound itself: |w| = 2^40 - 1, d = 2^20 - 1, 2^20 nodes.
    ({"nodes": 1, "edges": [[0, 0, 2**40 - 1, 1]]}, ("ok", Fraction(2**40 - 1), [0])),
    ({"nodes": 1, "edges": [[0, 0, -(2**40 - 1), 1]]}, ("ok", Fraction(-(2**40 - 1)), [0])),
    ({"nodes": 1, "edges": [[0, 0, 1, 2**20 - 1]]}, ("ok", Fraction(1, 2**20 - 1), [0])),
    ({"nodes": 2**20, "edges": [[2**20 - 1, 2**20 - 1, 9, 2]]}, ("ok", Fraction(9, 2), [0])),
    # A negative weight is legal (only the distance must be >= 0).
    ({"nodes": 2, "edges": [[0, 1, -3, 1], [1, 0, 1, 1]]}, ("ok", Fraction(-2, 2), [0, 1])),
    # No edges at all: nothing to bound.
    ({"nodes": 2, "edges": []}, ("acyclic", None, [])),
])
def test_event_graph_legal_near_misses_have_their_exact_value(tmp_path: Path, graph: dict, expected) -> None:
    """The legal side of each boundary above, with the ratio derived by hand
    (total weight over total distance of the one cycle)."""
    assert ratio_of(write(tmp_path, json.dumps(graph))) == expected


def test_the_cycle_ratio_command_refuses_a_near_miss_in_one_line(tmp_path: Path) -> None:
    """From the command line: exit 1, one `raptor: error:` line naming the
    problem, nothing on stdout; the valid neighbour prints its ratio."""
    bad = write(tmp_path, json.dumps({"nodes": 2, "edges": [[0, 2, 3, 0], [1, 0, 4, 1]]}), "bad.json")
    good = write(tmp_path, json.dumps(GRAPH), "good.json")
    result = subprocess.run(RAPTOR + ["cycle-ratio", str(bad), "--json"], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == f"raptor: error: '{bad}': edge 0 (0 -> 2): node 2 is outside 0..1\n"
    result = subprocess.run(RAPTOR + ["cycle-ratio", str(good), "--json"], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["status"], report["ratio_num"], report["ratio_den"], report["cycle"]) == ("ok", 7, 1, [0, 1])


# --- the task graph -------------------------------------------------------------

#: The valid neighbour (the example of `raptor schedule-dag --help`): task 0
#: then task 1 over an edge of cost 5, two processors.
TASKS = {"processors": 2, "cost": [[3, 4], [2, 2]], "edges": [[0, 1, 5]]}


def test_the_valid_task_graph_is_read_as_written(tmp_path: Path) -> None:
    """The neighbour: costs as floats, edges as (from, to, cost); its
    schedule, by hand: task 0 on processor 0 (finish 3), task 1 after it on
    the same processor (finish 5; on processor 1 it would wait for the 5 of
    communication and finish at 10)."""
    graph = spatial.load_task_graph(write(tmp_path, json.dumps(TASKS)))
    assert graph.cost == [[3.0, 4.0], [2.0, 2.0]] and graph.edges == [(0, 1, 5.0)]
    result = spatial.schedule(graph, "heft")
    assert result.makespan == 5 and result.processor == [0, 0]


@pytest.mark.parametrize("text, message", [
    # A misspelt key, a truncated file.
    (json.dumps({"processors": 2, "cots": TASKS["cost"], "edges": TASKS["edges"]}), r"expected a JSON object with 'cost'"),
    (json.dumps(TASKS)[:-2], r"cannot read task graph"),
    # The processor count off by one and of the wrong type.
    (json.dumps({**TASKS, "processors": 3}), r"cost rows have 2 entries but processors = 3"),
    (json.dumps({**TASKS, "processors": 2.0}), r"'processors' must be an integer"),
    (json.dumps({**TASKS, "processors": True}), r"'processors' must be an integer"),
    # A ragged cost table, an empty one, a negative cost.
    (json.dumps({**TASKS, "cost": [[3, 4], [2]]}), r"every task needs one cost per processor \(2\)"),
    (json.dumps({**TASKS, "cost": [], "edges": []}), r"at least one task and one processor"),
    (json.dumps({**TASKS, "cost": [[3, -4], [2, 2]]}), r"finite and non-negative"),
    # Costs of the wrong type: the number as a string, a bool, a row as a string.
    (json.dumps({**TASKS, "cost": [["3", 4], [2, 2]]}), r"'cost' must be a list of rows of numbers"),
    (json.dumps({**TASKS, "cost": [[True, 4], [2, 2]]}), r"'cost' must be a list of rows of numbers"),
    (json.dumps({**TASKS, "cost": ["34", "22"]}), r"'cost' must be a list of rows of numbers"),
    # A cost too large for a float (an integer of 400 digits).
    ('{"processors": 2, "cost": [[3, 1' + "0" * 400 + '], [2, 2]], "edges": [[0, 1, 5]]}',
     r"'cost' must be a list of rows of numbers"),
    ('{"processors": 2, "cost": [[3, 4], [2, 2]], "edges": [[0, 1, 1' + "0" * 400 + ']]}', r"every edge must be"),
    # An edge naming task 2 of 0..1, an edge one entry short and one too long,
    # a bool task index, a negative communication.
    (json.dumps({**TASKS, "edges": [[0, 2, 5]]}), r"edge 0 -> 2 names a task outside 0\.\.1"),
    (json.dumps({**TASKS, "edges": [[0, 1]]}), r"every edge must be \[from, to, communication cost\]"),
    (json.dumps({**TASKS, "edges": [[0, 1, 5, 0]]}), r"every edge must be \[from, to, communication cost\]"),
    (json.dumps({**TASKS, "edges": [[False, 1, 5]]}), r"integer task indices"),
    (json.dumps({**TASKS, "edges": [[0, 1, -5]]}), r"finite and non-negative"),
])
def test_task_graph_near_misses_are_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    """Each check of load_task_graph and TaskGraph.validate refuses its near
    miss with one line naming the file."""
    path = write(tmp_path, text)
    with pytest.raises(ValueError, match=message) as info:
        spatial.load_task_graph(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)


@pytest.mark.parametrize("graph, cost, edges", [
    # 'edges' and 'processors' may be left out; extra keys (source, notes) are allowed.
    ({"cost": [[3, 4], [2, 2]]}, [[3.0, 4.0], [2.0, 2.0]], []),
    ({**TASKS, "notes": "one edge"}, [[3.0, 4.0], [2.0, 2.0]], [(0, 1, 5.0)]),
    # Floats and zeros are costs too.
    ({**TASKS, "cost": [[3.5, 0], [2, 2]]}, [[3.5, 0.0], [2.0, 2.0]], [(0, 1, 5.0)]),
    # The edge reversed: a legal graph, task 1 first.
    ({**TASKS, "edges": [[1, 0, 5]]}, [[3.0, 4.0], [2.0, 2.0]], [(1, 0, 5.0)]),
])
def test_task_graph_legal_near_misses_are_read_exactly(tmp_path: Path, graph: dict, cost, edges) -> None:
    """The legal neighbours of the refusals above, read exactly."""
    parsed = spatial.load_task_graph(write(tmp_path, json.dumps(graph)))
    assert parsed.cost == cost and parsed.edges == edges


def test_the_schedule_dag_command_refuses_a_string_cost_in_one_line(tmp_path: Path) -> None:
    """`raptor schedule-dag` on a near miss: exit 1, one line, no stdout."""
    bad = write(tmp_path, json.dumps({**TASKS, "cost": [["3", 4], [2, 2]]}))
    result = subprocess.run(RAPTOR + ["schedule-dag", str(bad)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == f"raptor: error: '{bad}': 'cost' must be a list of rows of numbers\n"
