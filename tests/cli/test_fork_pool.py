"""The forked workers of ``jsonmatch score -j N`` (cli/fork_pool.py): results in order,
errors in their turn, large messages both ways, a worker killed, a caller that stops
reading, and no process left behind; this process running tasks too (``here``), the
workers fed between its steps, and Ctrl-C while it does.

Each test runs its pool in a fresh interpreter (a script of its own): fork is for a process
with one thread, and a pytest-xdist worker runs several. The tasks are functions the script
defines before its pool forks, which a forked worker holds as its parent does.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from .run import ROOT

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork: Linux only")

_PRELUDE = """
import json, os, signal, sys, time
from pytest_jsonmatch.cli.fork_pool import ForkPool, WorkerStopped

def echo(value, pause=0.0):
    time.sleep(pause)
    return (os.getpid(), value)

def fail(message):
    raise ValueError(message)

def big(size):
    return b"r" * size

def size_of(blob):
    return len(blob)

def die():
    os.kill(os.getpid(), signal.SIGKILL)

def run(call, *args):
    return call(*args)

def both(blob):
    return blob + b"x"

def gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # a zombie is not reaped: it still answers a signal
    return False
"""


def _run(body: str, timeout: float = 60, hands: bool = False) -> dict[str, object]:
    """The script's JSON, printed on its last line; with ``hands``, the tasks of
    :data:`_HANDS` defined too."""
    code = _PRELUDE + (_HANDS if hands else "") + textwrap.dedent(body)
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_results_come_in_order_from_every_worker():
    out = _run("""
        pool = ForkPool(3)
        # uneven tasks: the first of each three is slow, so results arrive out of order
        tasks = iter([(i, 0.02 if i % 3 == 0 else 0.0) for i in range(40)])
        got = list(pool.map(echo, tasks, window=2))
        pids = {pid for pid, _ in got}
        pool.close()
        print(json.dumps({"values": [v for _, v in got], "workers": len(pids),
                          "parent": os.getpid() in pids}))
    """)
    assert out == {"values": list(range(40)), "workers": 3, "parent": False}


def test_an_error_is_raised_in_its_turn_and_the_pool_goes_on():
    out = _run("""
        pool = ForkPool(2)
        seen = []
        calls = iter([(echo, 0), (echo, 1), (fail, "boom"), (echo, 3), (echo, 4)])
        try:
            for result in pool.map(run, calls, window=2):
                seen.append(result[1])
        except ValueError as exc:
            error = str(exc)
        # the tasks after the error ran, and their results are dropped, not handed to
        # the next call
        after = [v for _, v in pool.map(echo, iter([(10,), (11,), (12,)]), window=2)]
        pool.close()
        print(json.dumps({"seen": seen, "error": error, "after": after}))
    """)
    assert out == {"seen": [0, 1], "error": "boom", "after": [10, 11, 12]}


def test_a_caller_that_stops_reading_leaves_the_next_call_its_own_results():
    out = _run("""
        pool = ForkPool(2)
        first = pool.map(echo, iter([(i, 0.01) for i in range(20)]), window=2)
        taken = [next(first)[1], next(first)[1]]
        first.close()  # four tasks were on their way
        again = [v for _, v in pool.map(echo, iter([(100 + i,) for i in range(6)]), window=2)]
        pool.close()
        print(json.dumps({"taken": taken, "again": again}))
    """)
    assert out == {"taken": [0, 1], "again": [100, 101, 102, 103, 104, 105]}


def test_large_tasks_and_results_pass_each_other():
    """Tasks and results of 3 MB, far more than a pipe holds (64 KB): a task written while a
    worker writes its result must not wait on it."""
    out = _run(
        """
        pool = ForkPool(2)
        mb = 3 << 20
        sizes = list(pool.map(size_of, iter([(b"t" * mb,) for _ in range(8)]), window=2))
        backs = [len(b) for b in pool.map(big, iter([(mb,) for _ in range(8)]), window=2)]
        mixed = [len(b) for b in pool.map(both, iter([(b"t" * mb,) for _ in range(8)]), window=2)]
        pool.close()
        print(json.dumps({"sizes": sizes, "backs": backs, "mixed": mixed}))
    """,
        timeout=60,
    )
    mb = 3 << 20
    assert out == {"sizes": [mb] * 8, "backs": [mb] * 8, "mixed": [mb + 1] * 8}


def test_an_error_while_reading_the_tasks_comes_after_the_results_before_it():
    out = _run("""
        pool = ForkPool(2)
        def tasks():
            for i in range(5):
                yield (i,)
            raise OSError("the file went away")
        got = []
        try:
            for _, v in pool.map(echo, tasks(), window=2):
                got.append(v)
        except OSError as exc:
            error = str(exc)
        pool.close()
        print(json.dumps({"got": got, "error": error}))
    """)
    assert out == {"got": [0, 1, 2, 3, 4], "error": "the file went away"}


def test_a_killed_worker_is_named_and_no_process_is_left():
    out = _run("""
        pool = ForkPool(2)
        try:
            list(pool.map(run, iter([(echo, 0), (die,), (echo, 2), (echo, 3)]), window=1))
        except WorkerStopped as exc:
            error = str(exc)
        pids = [w.pid for w in pool.workers]
        assert len(pids) == 2
        pool.close(stop=True)
        print(json.dumps({"error": error, "gone": [gone(p) for p in pids]}))
    """)
    assert "killed by SIGKILL" in out["error"] and "-j 1" in out["error"]
    assert out["gone"] == [True, True]


def test_leaving_on_an_error_stops_a_worker_in_a_long_task():
    out = _run("""
        pool = ForkPool(2)
        work = pool.map(echo, iter([(0, 0.0), (1, 30.0), (2, 30.0), (3, 30.0)]), window=2)
        assert next(work)[1] == 0  # all four sent; the first back, two long ones running
        pids = [w.pid for w in pool.workers]
        assert len(pids) == 2
        time.sleep(0.2)
        started = time.monotonic()
        pool.close(stop=True)
        print(json.dumps({"took": time.monotonic() - started, "gone": [gone(p) for p in pids]}))
    """)
    # (a generous bound: waiting for the tasks would take 30 s)
    assert out["took"] < 10 and out["gone"] == [True, True]


def test_leaving_normally_lets_the_workers_exit():
    out = _run("""
        pool = ForkPool(3)
        list(pool.map(echo, iter([(i,) for i in range(9)]), window=2))
        pids = [w.pid for w in pool.workers]
        assert len(pids) == 3
        pool.close()
        print(json.dumps({"gone": [gone(p) for p in pids], "left": pool.workers}))
    """)
    assert out == {"gone": [True, True, True], "left": []}


def test_a_worker_is_forked_when_a_task_needs_it_and_holds_what_was_built_before():
    """No process is forked as the pool is made: the first worker at the first task, the
    next when the first has its window of tasks (here two tasks, a window of two: one
    worker of the four allowed), and each holds what this process built before its fork."""
    out = _run("""
        pool = ForkPool(4)
        made = len(pool.workers)
        state = {"schema": "guessed after the pool was made"}

        def peek(i):
            return (os.getpid(), state["schema"])

        got = list(pool.map(peek, iter([(0,), (1,)]), window=2))
        forked = len(pool.workers)
        pool.close()
        print(json.dumps({"made": made, "forked": forked, "seen": [s for _, s in got],
                          "parent": any(pid == os.getpid() for pid, _ in got)}))
    """)
    assert out == {
        "made": 0,
        "forked": 1,
        "seen": ["guessed after the pool was made"] * 2,
        "parent": False,
    }


def test_a_worker_that_answers_gets_its_next_task_while_another_is_awaited():
    """Task 0 takes 0.5 s in one worker; with a window of one task, the other worker goes on
    with tasks 1, 2 and 3 as it answers each (results still come in order), where taking
    the results in order before sending more would leave it idle until task 0 ends. (Tasks
    1 to 3 take no time: 0.5 s is room for their round trips on a loaded machine.)"""
    out = _run("""
        def timed(i, pause):
            started = time.monotonic()
            time.sleep(pause)
            return (os.getpid(), i, started, time.monotonic())

        pool = ForkPool(2)
        tasks = iter([(0, 0.5), (1, 0.0), (2, 0.0), (3, 0.0), (4, 0.0)])
        got = list(pool.map(timed, tasks, window=1))
        pool.close()
        slow_end = got[0][3]
        print(json.dumps({
            "order": [i for _, i, _, _ in got],
            "early": [i for _, i, started, _ in got if started < slow_end],
            "other": len({got[k][0] for k in (1, 2, 3)}) == 1 and got[1][0] != got[0][0],
        }))
    """)
    # (tasks 1-3: the four a pool of two with a window of one holds before it waits)
    assert out == {"order": [0, 1, 2, 3, 4], "early": [0, 1, 2, 3], "other": True}


def test_released_workers_exit_before_the_pool_is_closed():
    """After its last results, ``release`` lets the workers go: each exits on its own
    (reaped here, as it ends) while this process goes on, and ``close`` has only to
    forget them."""
    out = _run("""
        pool = ForkPool(2)
        got = [v for _, v in pool.map(echo, iter([(i,) for i in range(6)]), window=1)]
        pids = [w.pid for w in pool.workers]
        pool.release()
        deadline = time.monotonic() + 20
        ended = []
        for pid in pids:
            while time.monotonic() < deadline:
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    ended.append(pid)
                    break
                time.sleep(0.01)
        pool.close()
        print(json.dumps({"got": got, "workers": len(pids), "ended": len(ended),
                          "left": pool.workers}))
    """)
    assert out == {"got": list(range(6)), "workers": 2, "ended": 2, "left": []}


# -- this process as one of the hands (``here``): ``-j N`` is it and N - 1 workers

_HANDS = """
def ours(i, pause, hold=0.0):
    # this process's own task: its steps, the pool fed between them
    started = time.monotonic()
    while time.monotonic() - started < hold:
        time.sleep(0.005)
        pause()
    return (os.getpid(), i, started, time.monotonic())

def theirs(i, hold=0.0):
    started = time.monotonic()
    time.sleep(hold)
    return (os.getpid(), i, started, time.monotonic())
"""


def test_this_process_takes_the_tasks_no_worker_has_room_for_in_order():
    """One worker with a window of two: the third task and every one the worker has no
    room for runs here; results come in the tasks' order whoever ran them, and a result
    made here is the very object (no pickle: a lambda could not travel through a pipe)."""
    out = _run(
        """
        pool = ForkPool(1)
        made = []
        def here(i, hold, pause):
            value = ours(i, pause, hold)
            made.append(lambda: i)  # (unpicklable: kept here)
            return value + (made[-1],)
        got = list(pool.map(theirs, iter([(i, 0.01) for i in range(30)]), 2, here))
        pool.close()
        mine = [r for r in got if r[0] == os.getpid()]
        print(json.dumps({
            "order": [r[1] for r in got],
            "here": len(mine), "there": len(got) - len(mine),
            "third": got[2][0] == os.getpid(),
            "same": all(r[4] is made[k] for k, r in enumerate(mine)),
        }))
    """,
        hands=True,
    )
    assert out["order"] == list(range(30)) and out["third"] is True and out["same"] is True
    # both took a share (each task 10 ms: neither can have taken them all)
    assert out["here"] >= 5 and out["there"] >= 5 and out["here"] + out["there"] == 30


def test_the_workers_are_fed_while_this_process_runs_a_long_task():
    """Task 2 runs here for 0.4 s, calling ``pause`` every 5 ms; the worker (a window of
    two, each of its tasks 20 ms) is given its next tasks meanwhile, up to the pool's bound
    on results waiting (two a window, a hand: 8 placed and not taken, task 2 among them):
    tasks 3 to 7 start while task 2 runs, task 8 only once its result is taken. (Their
    0.1 s in all leaves task 2 four times that: room for a loaded machine.)"""
    out = _run(
        """
        pool = ForkPool(1)
        def here(i, hold, pause):
            return ours(i, pause, 0.4 if i == 2 else 0.0)
        got = list(pool.map(theirs, iter([(i, 0.02) for i in range(40)]), 2, here))
        pool.close()
        long_one = got[2]
        during = [r[1] for r in got
                  if r[0] != os.getpid() and long_one[2] <= r[2] <= long_one[3]]
        print(json.dumps({"order": [r[1] for r in got], "here": long_one[0] == os.getpid(),
                          "during": during}))
    """,
        hands=True,
    )
    assert out["order"] == list(range(40)) and out["here"] is True
    # (without the pauses, only the two sent before task 2 began: 0 and 1)
    assert {3, 4, 5, 6, 7} <= set(out["during"]) and 8 not in out["during"]


def test_an_error_of_a_task_run_here_comes_in_its_turn_and_the_pool_goes_on():
    out = _run(
        """
        pool = ForkPool(1)
        def here(i, hold, pause):
            if i == 6:
                raise ValueError("refused here")
            return ours(i, pause)
        seen = []
        try:
            for r in pool.map(theirs, iter([(i, 0.005) for i in range(20)]), 2, here):
                seen.append(r[1])
        except ValueError as exc:
            error = str(exc)
        after = [r[1] for r in pool.map(theirs, iter([(100 + i,) for i in range(5)]), 2)]
        pool.close()
        print(json.dumps({"seen": seen, "error": error, "after": after}))
    """,
        hands=True,
    )
    assert out == {"seen": list(range(6)), "error": "refused here", "after": list(range(100, 105))}


def test_a_worker_killed_while_this_process_scores_is_named_in_its_turn():
    """The worker dies on the first task from task 3 on that it is given; the results
    before that task's turn come first (those this process made among them), then
    WorkerStopped, and no process is left."""
    out = _run(
        """
        pool = ForkPool(1)
        def task(i):  # (run by the worker only)
            if i >= 3:
                die()
            return theirs(i, 0.01)
        def here(i, pause):
            return ours(i, pause, 0.01)
        seen = []
        try:
            for r in pool.map(task, iter([(i,) for i in range(40)]), 2, here):
                seen.append(r[1])
        except WorkerStopped as exc:
            error = str(exc)
        pids = [w.pid for w in pool.workers]
        pool.close(stop=True)
        print(json.dumps({"seen": seen, "error": error, "gone": [gone(p) for p in pids]}))
    """,
        hands=True,
    )
    # tasks 0 and 1 are the worker's (it gets its window first), task 2 this process's
    assert out["seen"] == list(range(len(out["seen"]))) and len(out["seen"]) >= 3
    assert "killed by SIGKILL" in out["error"] and out["gone"] == [True]


def test_ctrl_c_during_a_task_run_here_stops_the_workers():
    """Ctrl-C (KeyboardInterrupt) while this process runs a task of its own leaves the
    map at once; leaving ``Workers`` on it stops a worker in a 30 s task, and no process
    is left (cli/parallel.py, the run's own ``with``)."""
    out = _run(
        """
        from pytest_jsonmatch.cli.parallel import Workers

        def handle(chunk, pause=None):
            if pause is not None:  # here: the worker holds its 30 s task by now
                time.sleep(0.3)
                pause()
                raise KeyboardInterrupt
            time.sleep(30)
            return chunk

        pids = []
        started = time.monotonic()
        try:
            with Workers(2) as workers:
                for _ in workers.map(handle, iter([[1], [2], [3], [4]])):
                    pass
        except KeyboardInterrupt:
            interrupted = True
        took = time.monotonic() - started
        print(json.dumps({"interrupted": interrupted, "took": took}))
    """,
        hands=True,
    )
    # (waiting for the worker's task would take 30 s)
    assert out["interrupted"] is True and out["took"] < 10


def test_ctrl_c_leaves_no_worker_behind():
    out = _run(
        """
        pool = ForkPool(2)
        def here(i, hold, pause):
            pause()
            raise KeyboardInterrupt
        work = pool.map(theirs, iter([(i, 30.0) for i in range(6)]), 2, here)
        try:
            next(work)
        except KeyboardInterrupt:
            interrupted = True
        pids = [w.pid for w in pool.workers]
        pool.close(stop=True)
        print(json.dumps({"interrupted": interrupted, "workers": len(pids),
                          "gone": [gone(p) for p in pids]}))
    """,
        hands=True,
    )
    assert out == {"interrupted": True, "workers": 2, "gone": [True, True]}


def test_meanwhile_runs_once_after_the_first_tasks_are_on_their_way():
    out = _run(
        """
        pool = ForkPool(1)
        calls = []
        def meanwhile():
            calls.append((len(pool.workers), sum(w.running for w in pool.workers)))
        def here(i, pause):
            return ours(i, pause)
        got = [r[1] for r in pool.map(theirs, iter([(i,) for i in range(10)]), 2, here,
                                      meanwhile)]
        pool.close()
        print(json.dumps({"got": got, "calls": calls}))
    """,
        hands=True,
    )
    # one call, once the worker was forked and given its window of two
    assert out == {"got": list(range(10)), "calls": [[1, 2]]}


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_with_workers_the_output_is_written_without_an_import(tmp_path, fmt):
    """``jsonmatch score -j 2 -o FILE``: the modules writing the output needs are imported
    while the worker scores (cli/score.py, ``_output_modules``; cli/score_run.py writes it), none after the last
    chunk."""
    out = _run(f"""
        import tempfile
        from pytest_jsonmatch.cli import main
        import pytest_jsonmatch.cli.score_run as score
        folder = {str(tmp_path)!r}
        with open(folder + "/g.jsonl", "w") as g, open(folder + "/p.jsonl", "w") as p:
            for i in range(600):
                g.write(json.dumps({{"id": i, "name": "n" + str(i)}}) + "\\n")
                p.write(json.dumps({{"id": i, "name": "n" + str(i % 2)}}) + "\\n")
        reported = score._reported
        late = []
        def watched(*args):
            before = set(sys.modules)
            reported(*args)
            late.extend(sorted(set(sys.modules) - before))
        score._reported = watched
        status = main(["score", folder + "/g.jsonl", folder + "/p.jsonl", "-j", "2",
                       "-f", {fmt!r}, "-o", folder + "/out", "--report", folder + "/r.json"])
        print(json.dumps({{"status": status, "late": late,
                          "written": os.path.getsize(folder + "/out") > 0}}))
    """)
    # (no gate: status 0; records 0 and 1 match whole, the others in one field of two)
    assert out == {"status": 0, "late": [], "written": True}


# -- jsonmatch score -j N: the workers forked as soon as the arguments are parsed

_COMMAND = """
import contextlib, io, json, os, signal, sys, time
# (Ctrl-C as a terminal gives it, even where the tests were started with it ignored)
signal.signal(signal.SIGINT, signal.default_int_handler)
sys.path.insert(0, os.getcwd())  # (the --plugins module of a test, as the command finds it)
from pytest_jsonmatch.cli import main

forks = []
_fork = os.fork

def counted_fork():
    pid = _fork()
    if pid:
        forks.append(pid)
    return pid

os.fork = counted_fork

def run(args):
    err, out = io.StringIO(), io.StringIO()
    started = time.monotonic()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        status = main(args)
    try:  # any child still running, or ended and not waited for
        left = os.waitpid(-1, os.WNOHANG) is not None
    except ChildProcessError:
        left = False
    return {"status": status, "err": err.getvalue(), "out": out.getvalue(), "left": left,
            "took": time.monotonic() - started}
"""


def _command(
    tmp_path, body: str, timeout: float = 60, stdin: str | None = None
) -> dict[str, object]:
    """A script of :data:`_COMMAND` and ``body`` run in ``tmp_path`` (``stdin`` its standard
    input): its last line's JSON."""
    done = subprocess.run(
        [sys.executable, "-c", _COMMAND + textwrap.dedent(body)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=tmp_path,
        input=stdin,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _dataset(tmp_path, first_gold: str | None = None) -> None:
    """g.jsonl and p.jsonl: 600 invoices (three chunks of 256 and more), every fifth total
    off by one; ``first_gold``: the first gold line instead."""
    gold = [{"id": i, "vendor": ["ACME", "Initech"][i % 2], "total": i} for i in range(600)]
    pred = [{**g, "total": g["total"] + (g["id"] % 5 == 0)} for g in gold]
    lines = [json.dumps(g) for g in gold]
    if first_gold is not None:
        lines[0] = first_gold
    (tmp_path / "g.jsonl").write_text("".join(line + "\n" for line in lines))
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(p) + "\n" for p in pred))


@pytest.mark.parametrize(
    "args, first_gold, error",
    [
        # an option the metric refuses: found by each process, reported by the command's
        (["--option", "no_such_option=1"], None, "no_such_option"),
        (["--metric", "no_such_metric"], None, "--metric"),
        # a plugin module that cannot be imported: each process tries it
        (["--plugins", "no_such_module_of_this_test"], None, "--plugins"),
        # a baseline only the command's process loads
        (["--baseline", "missing.json"], None, "missing.json"),
        # the schema guessed from the first chunk refused (a gold number past a float's
        # range): each process meets it where it guesses
        ([], '{"id": 0, "vendor": "ACME", "total": 1e999}', "g.jsonl line 1"),
        # a first gold line that is not JSON: the worker's read of its first chunk gives
        # up without a word, and the command's streaming reader names the line
        ([], '{"id": 0, "vendor": "ACME", "total": ', "g.jsonl line 1"),
    ],
    ids=["option", "metric", "plugin", "baseline", "guess", "not-json"],
)
def test_an_error_before_the_first_chunk_is_the_commands_alone(tmp_path, args, first_gold, error):
    """With ``-j 2`` the worker is forked before the options are read and the schema is
    guessed, and goes the same way: what it meets there it leaves without a word, and the
    command reports its own error with ``-j 1``'s message, output and exit status (2); the
    worker is stopped and waited for, none is left."""
    _dataset(tmp_path, first_gold)
    out = _command(
        tmp_path,
        f"""
        args = ["score", "g.jsonl", "p.jsonl", *{args!r}]
        one = run(args + ["-j", "1"])
        two = run(args + ["-j", "2"])
        print(json.dumps({{"one": one, "two": two, "forks": len(forks)}}))
        """,
    )
    one, two = out["one"], out["two"]
    assert isinstance(one, dict) and isinstance(two, dict)
    assert one["status"] == 2 and error in one["err"] and one["err"].count("\n") == 1, one
    assert [two[k] for k in ("status", "err", "out")] == [one[k] for k in ("status", "err", "out")]
    assert out["forks"] == 1 and two["left"] is False and one["left"] is False


def test_the_worker_forked_first_scores_as_the_command_does(tmp_path):
    """The same run with ``-j 1``, ``-j 2`` and ``-j 3``: the same output and status, one
    fork a worker, each worker gone at the end. 600 pairs, every fifth total off by one:
    120 pairs score 2/3 (id and vendor of 3 fields), the rest 1: mean (480 + 120 * 2/3) /
    600 = 0.9333."""
    _dataset(tmp_path)
    out = _command(
        tmp_path,
        """
        runs = [run(["score", "g.jsonl", "p.jsonl", "-j", j]) for j in ("1", "2", "3")]
        print(json.dumps({"runs": runs, "forks": len(forks)}))
        """,
    )
    runs = out["runs"]
    assert isinstance(runs, list)
    assert "overall score 0.9333 over 600 cases" in runs[0]["out"], runs[0]
    for later in runs[1:]:
        assert [later[k] for k in ("status", "err", "out")] == [
            runs[0][k] for k in ("status", "err", "out")
        ]
    assert out["forks"] == 1 + 2 and not any(r["left"] for r in runs)


def test_standard_input_is_read_by_the_command_alone(tmp_path):
    """``--schema -`` (the schema from standard input) with ``-j 2``: the worker, forked
    before anything is read, reads none of it; the command reads it whole. 600 pairs, every
    answer valid: 0.9333 as above."""
    _dataset(tmp_path)
    schema = {
        "type": "object",
        "properties": {k: {"type": t} for k, t in [("id", "integer"), ("total", "integer")]},
    }
    schema["properties"]["vendor"] = {"type": "string"}
    out = _command(
        tmp_path,
        """
        two = run(["score", "g.jsonl", "p.jsonl", "--schema", "-", "-j", "2"])
        print(json.dumps({"two": two, "forks": len(forks)}))
        """,
        stdin=json.dumps(schema),
    )
    two = out["two"]
    assert isinstance(two, dict)
    assert "overall score 0.9333 over 600 cases" in two["out"], two
    assert "600 of 600 answers valid" in two["out"]
    assert out["forks"] == 1 and two["left"] is False


_PLUGIN = """
import os, signal, time
if os.getpid() != int(os.environ["COMMAND_PID"]):  # a worker, on its way to its tasks
    {worker}
else:
    {command}
"""


def test_ctrl_c_before_the_first_chunk_stops_the_worker(tmp_path):
    """Ctrl-C while the command loads its ``--plugins`` (the worker loads them too, and is
    held there 30 s): the command says ``interrupted`` (130) and stops the worker at once,
    none left. A worker ignores Ctrl-C: the run's to handle."""
    _dataset(tmp_path)
    (tmp_path / "held.py").write_text(
        _PLUGIN.format(worker="time.sleep(30)", command="os.kill(os.getpid(), signal.SIGINT)")
    )
    out = _command(
        tmp_path,
        """
        os.environ["COMMAND_PID"] = str(os.getpid())
        two = run(["score", "g.jsonl", "p.jsonl", "-j", "2", "--plugins", "held"])
        print(json.dumps({"two": two, "forks": len(forks)}))
        """,
    )
    two = out["two"]
    assert isinstance(two, dict)
    assert [two["status"], two["err"]] == [130, "jsonmatch: error: interrupted\n"]
    # (waiting for the worker would take 30 s)
    assert out["forks"] == 1 and two["left"] is False and two["took"] < 10


@pytest.mark.parametrize("pairing", [[], ["--id-field", "id"]], ids=["position", "id"])
def test_a_worker_that_dies_before_its_first_chunk_is_named(tmp_path, pairing):
    """A worker killed on its way to its tasks (here: by the plugin it loads, as the out-of-
    memory killer would): the command names it when the chunk sent to it is due, exit
    status 2, and waits for it; by position too, where the spans' route goes over to the
    streaming reader on an error of the input, not on this (cli/score_run.py)."""
    _dataset(tmp_path)
    (tmp_path / "dies.py").write_text(
        _PLUGIN.format(worker="os.kill(os.getpid(), signal.SIGKILL)", command="pass")
    )
    out = _command(
        tmp_path,
        f"""
        os.environ["COMMAND_PID"] = str(os.getpid())
        two = run(["score", "g.jsonl", "p.jsonl", "--plugins", "dies", "-j", "2", *{pairing!r}])
        print(json.dumps({{"two": two, "forks": len(forks)}}))
        """,
    )
    two = out["two"]
    assert isinstance(two, dict)
    assert two["status"] == 2 and two["out"] == "", two
    assert two["err"] == (
        "jsonmatch: error: a worker process stopped before it gave its result (killed by "
        "SIGKILL: out of memory?); with -j 1 the run needs no worker\n"
    )
    assert out["forks"] == 1 and two["left"] is False


_WATCHED = """
import pytest_jsonmatch.dataset.chunk_work as cw

def note(what):
    with open(os.path.join(os.getcwd(), "chunks.log"), "a") as log:
        log.write(f"{os.getpid()} {what}\\n")

_read, _hold = cw.span_pairs, cw.hold_pairs

def span_pairs(span):  # (a chunk read when it comes; a read ahead goes by spans.py's own)
    note(f"read {span.first}")
    return _read(span)

def hold_pairs(span, pairs):
    note(f"held {span.first}")
    _hold(span, pairs)

cw.span_pairs, cw.hold_pairs = span_pairs, hold_pairs

def logged():
    path = os.path.join(os.getcwd(), "chunks.log")
    lines = open(path).read().split("\\n") if os.path.exists(path) else []
    if os.path.exists(path):
        os.remove(path)
    me = str(os.getpid())
    return sorted(("command" if pid == me else "worker") + " " + what
                  for pid, what in (line.split(" ", 1) for line in lines if line))
"""


def test_a_worker_reads_its_first_chunk_while_the_schema_is_guessed(tmp_path):
    """Where the run guesses its schema from the first chunk (field_f1 without a schema),
    each forked worker reads and decodes its own first chunk before that chunk is sent
    (worker k: chunk k), and takes it from there: no chunk is read twice, the output is
    ``-j 1``'s. With a schema given, nothing is read ahead (the first chunk comes at once).
    600 pairs (dataset above): with -j 1, chunks of 256 (cases 1, 257, 513 first); with -j
    2 or 3, chunk 0 is cases 1-256 (worker 0's), then chunks of 64 as fewer than two chunks a
    hand are left (cases 257, 321, ..., 577 first); with -j 3, chunk 1 (cases 257-320) is
    worker 1's.
    """
    _dataset(tmp_path)
    schema = {"type": "object", "properties": {"id": {"type": "integer"}}}
    (tmp_path / "s.json").write_text(json.dumps(schema))
    out = _command(
        tmp_path,
        _WATCHED
        + textwrap.dedent("""
        runs, logs = {}, {}
        for name, more in [("1", ["-j", "1"]), ("2", ["-j", "2"]), ("3", ["-j", "3"]),
                           ("schema", ["-j", "2", "--schema", "s.json"])]:
            runs[name] = run(["score", "g.jsonl", "p.jsonl", *more])
            logs[name] = logged()
        print(json.dumps({"runs": runs, "logs": logs}))
        """),
    )
    runs, logs = out["runs"], out["logs"]
    assert isinstance(runs, dict) and isinstance(logs, dict)
    assert "overall score 0.9333 over 600 cases" in runs["1"]["out"], runs["1"]
    for name in ("2", "3"):
        assert [runs[name][k] for k in ("status", "err", "out")] == [
            runs["1"][k] for k in ("status", "err", "out")
        ]
    # (a chunk is named by its first case, numbered from 1)
    assert logs["1"] == ["command read 1", "command read 257", "command read 513"]
    for name, held in (("2", ["worker held 1"]), ("3", ["worker held 1", "worker held 257"])):
        lines = logs[name]
        assert [line for line in lines if "held" in line] == held, lines
        # every chunk read once, those held never
        firsts = [line.split()[-1] for line in lines if "read" in line or "held" in line]
        assert sorted(firsts, key=int) == ["1", "257", "321", "385", "449", "513", "577"]
    assert not [line for line in logs["schema"] if "held" in line], logs["schema"]


def test_pairs_read_ahead_serve_their_span_once_and_no_other(tmp_path):
    """In process: the pairs held for a span are what unpacking that span gives, once (the
    very list held); a second unpacking reads the span again; pairs held for one span are
    dropped unused by the first chunk unpacked, whatever it is."""
    from pytest_jsonmatch.dataset import chunk_work
    from pytest_jsonmatch.dataset.spans import span_pairs, spans

    _dataset(tmp_path)
    first, second = list(spans(str(tmp_path / "g.jsonl"), str(tmp_path / "p.jsonl"), 64))[:2]
    held = span_pairs(first)
    try:
        chunk_work.hold_pairs(first, held)
        assert chunk_work.unpacked(first) is held
        again = chunk_work.unpacked(first)
        assert again is not held and again == held and len(held) == 64
        chunk_work.hold_pairs(first, held)  # another span first: read, and the hold dropped
        assert chunk_work.unpacked(second) == span_pairs(second)
        assert chunk_work.unpacked(first) is not held
        chunk_work.hold_pairs(first, held)  # a chunk of listed pairs first: dropped too
        assert chunk_work.unpacked(held[:2]) == held[:2]
        assert chunk_work.unpacked(first) is not held
    finally:
        chunk_work.hold_pairs(first, [])
        chunk_work.unpacked([])  # (nothing left held for another test in this process)
