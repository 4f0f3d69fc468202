"""`make bench` figure 4: `assistant-auth` from a new process to its first screen ready, against
the floor, the smallest Textual app of the same version, measured side by side in alternating
runs. Each script writes `READY <time.monotonic()>` when its first screen is ready (Textual's
Ready: the first layout and paint are done); the parent subtracts the moment it started the
process, on the same system-wide clock. The process's whole life (start, first screen, exit) is
printed beside it: exiting is not part of starting, but the two figures side by side show where
the time goes.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import textwrap
import time

# written on descriptor 1: Textual captures print() while it runs
READY = "import os, time; os.write(1, f'READY {time.monotonic()}\\n'.encode())"

# `assistant-auth` as the console script starts it (`from tui.cli import main`, then the entry
# point loads the app), headless: the app module is patched as it loads, so nothing of ours is
# imported before the console script would import it. `{ready}`: what its first Ready does
# (`original(self)` is the app's own handler), then it exits.
CONSOLE_SCRIPT = textwrap.dedent(
    """
    import importlib.machinery, sys

    class PatchApp:
        def find_spec(self, name, path=None, target=None):
            if name != "tui.app.application":
                return None
            sys.meta_path.remove(self)  # asked once: Textual's imports, which follow, never ask it
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            load = spec.loader.exec_module
            def exec_module(module):
                load(module)
                app = module.AssistantAuthApp
                run, original = app.run, getattr(app, "on_ready", lambda self: None)
                def on_ready(self):
                    {ready}
                    self.exit()
                app.on_ready = on_ready
                app.run = lambda self, **kwargs: run(self, headless=True)
            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, PatchApp())
    from tui.cli import main
    raise SystemExit(main([]))
    """
)


def console_script(ready: str) -> str:
    """The console script's start with `ready` run at the first Ready (indented to fit)."""
    return CONSOLE_SCRIPT.format(ready=ready.replace("\n", "\n" + " " * 16))


COLD = console_script(READY)
# the floor: the smallest Textual app of the same version, one line of text
MINIMAL = textwrap.dedent(
    """
    from textual.app import App
    from textual.widgets import Static
    class Minimal(App):
        def compose(self):
            yield Static("assistant-auth")
        def on_ready(self):
            {ready}
            self.exit()
    Minimal().run(headless=True)
    """
).format(ready=READY)
# for information: the widgets Home's first frame draws (header, a few lines of text, the region
# list, the footer) in a bare app of the same version, with none of our code, reads or styles:
# what Textual itself costs for that screen, so the ratio says how much of the rest is ours
SAME_WIDGETS = textwrap.dedent(
    """
    from textual.app import App
    from textual.containers import Vertical
    from textual.widgets import Footer, Header, OptionList, Static
    from textual.widgets.option_list import Option
    class SameWidgets(App):
        def compose(self):
            yield Header()
            with Vertical():
                yield Static("Your coding-assistant accounts")
                yield Static("  cn      Not signed in")
                yield Static("Choose the region of your account:")
                yield OptionList(Option("cn", id="cn"), Option("global", id="global"))
                yield Static("Enter signs in to the highlighted region.")
            yield Footer()
        def on_ready(self):
            {ready}
            self.exit()
    SameWidgets().run(headless=True)
    """
).format(ready=READY)
# the same, with the collector resting from the start to the first Ready as `run_app` has it rest
# for ours: like for like, so the difference to ours is our code's (modules, reads, styles)
SAME_WIDGETS_PAUSED = "import gc\ngc.disable()\n" + SAME_WIDGETS.replace(READY, READY + "; gc.enable()")
COLD_TARGET = 1.2
COLD_PAIRS = 11


def _time_to_ready(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(seconds to the first screen ready, seconds to the process's end)."""
    start = time.monotonic()
    done = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True)
    ended = time.monotonic()
    ready = [line for line in done.stdout.decode(errors="replace").splitlines() if line.startswith("READY ")]
    return float(ready[-1].split()[1]) - start, ended - start


def compare(empty: dict[str, str], signed_in: dict[str, str]) -> None:
    """Figure 4: ours in an empty home and a signed-in one (environments for both), the floor and
    Home's widgets alone, in alternating runs; each to its first screen and to its end."""
    cases = [
        ("assistant-auth, empty home", COLD, empty),
        ("assistant-auth, signed in", COLD, signed_in),
        ("floor: minimal Textual app", MINIMAL, empty),
        ("Home widgets alone (information)", SAME_WIDGETS, empty),
        ("  the same, collector paused as ours", SAME_WIDGETS_PAUSED, empty),
    ]
    commands = [([sys.executable, "-c", script], env) for _name, script, env in cases]
    for command, env in commands:
        _time_to_ready(command, env)  # warm the page cache for all
    rows = [[_time_to_ready(command, env) for command, env in commands] for _ in range(COLD_PAIRS)]  # alternating
    floor = [row[2] for row in rows]
    print(
        f"4. TUI cold start (new process) to first screen ready: median of {COLD_PAIRS} alternating runs each "
        f"(target: at most {COLD_TARGET}x the floor); the process's whole life (start, first screen, exit) beside it"
    )
    print(f"     {'':<36} {'to ready':>9} {'ratio':>7}   {'whole':>7} {'ratio':>7}")
    for index, (name, _script, _env) in enumerate(cases):
        times = [row[index] for row in rows]
        ready = statistics.median(t[0] for t in times) * 1000
        whole = statistics.median(t[1] for t in times) * 1000
        ratio = statistics.median(t[0] / f[0] for t, f in zip(times, floor, strict=True))
        whole_ratio = statistics.median(t[1] / f[1] for t, f in zip(times, floor, strict=True))
        print(f"     {name:<36} {ready:6.0f} ms {ratio:6.2f}x   {whole:4.0f} ms {whole_ratio:6.2f}x")
