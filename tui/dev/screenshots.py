"""`make screenshots`: one SVG per scene of `tui.dev.scenes`, the same scenes the snapshot tests
compare, so the pictures in the README are exactly what the tests check.

    python -m tui.dev.screenshots [OUT_DIR] [SCENE ...]
"""

from __future__ import annotations

import asyncio
import pathlib
import sys
import tempfile

from tui.dev.scenes import BY_NAME, SCENES, build, staged


async def capture(scene, out: pathlib.Path) -> pathlib.Path:
    with (
        tempfile.TemporaryDirectory(prefix="assistant-auth-scene-") as tmp,
        staged(pathlib.Path(tmp), scene.lang) as home,
    ):
        app = build(scene, home)
        async with app.run_test(size=scene.size) as pilot:
            await pilot.pause(0.2)
            await scene.ready(pilot)
            await pilot.pause(0.2)
            target = out / f"{scene.name}.svg"
            target.write_text(app.export_screenshot(title=scene.name))
        await app.http_client.aclose()
    return target


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = pathlib.Path(args[0] if args else "screenshots")
    wanted = [BY_NAME[name] for name in args[1:]] if len(args) > 1 else SCENES
    out.mkdir(parents=True, exist_ok=True)
    for scene in wanted:
        print(asyncio.run(capture(scene, out)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
