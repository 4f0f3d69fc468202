"""The build's two additions to pyproject.toml: the message catalogs, compiled, and the reference
pages.

`tui/locale/<lang>/LC_MESSAGES/*.po` (the sources, in the repository) become `.mo` files in the
built package, so a wheel (and `pipx install .`) ships them; `tui.core.text.msgfmt` does the compiling.
`docs/*.md` become `tui/help/*.md`, which `assistant-auth help TOPIC` reads (`tui.core.text.helpdocs`).
"""

import pathlib
import shutil
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = pathlib.Path(__file__).resolve().parent


class BuildWithCatalogs(build_py):
    def run(self) -> None:
        # setuptools copies into build/lib and never deletes from it: a module moved or removed
        # since the last build would still ship. The package is copied anew each time.
        built = pathlib.Path(self.build_lib).resolve() / "tui"
        if built.is_dir() and built != ROOT / "tui":
            shutil.rmtree(built)
        super().run()
        sys.path.insert(0, str(ROOT))
        from tui.core.text.msgfmt import compile_po

        for source in sorted((ROOT / "tui" / "locale").glob("*/LC_MESSAGES/*.po")):
            target = pathlib.Path(self.build_lib) / source.relative_to(ROOT).with_suffix(".mo")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(compile_po(source.read_text(encoding="utf-8")))
        for page in sorted((ROOT / "docs").glob("*.md")):
            target = pathlib.Path(self.build_lib) / "tui" / "help" / page.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(page.read_bytes())


setup(cmdclass={"build_py": BuildWithCatalogs})
