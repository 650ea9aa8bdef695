"""The two requirement files: running the registry installs no test tool; the README and CI agree."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST_TOOLS = {
    "pytest",
    "pytest-django",
    "pytest-xdist",
    "playwright",
    "schemathesis",
    "hypothesis",
    "feedparser",
    "html5lib",
    "pillow",
    "oauthlib",
    "import-linter",
    "ruff",
}


def _names(path: Path) -> set[str]:
    names = set()
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-r"):
            names.add(re.split(r"[=<>\[ ]", line, maxsplit=1)[0].lower())
    return names


def test_requirements_runtime_file_holds_no_test_tool():
    assert _names(ROOT / "requirements.txt") & TEST_TOOLS == set()
    assert "django" in _names(ROOT / "requirements.txt")


def test_requirements_test_file_includes_the_runtime_file_and_adds_the_tools():
    text = (ROOT / "requirements-test.txt").read_text()
    assert "-r requirements.txt" in text.splitlines()
    assert _names(ROOT / "requirements-test.txt") == TEST_TOOLS


def test_requirements_every_package_is_pinned():
    for name in ("requirements.txt", "requirements-test.txt"):
        for line in (ROOT / name).read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if line and not line.startswith("-r"):
                assert "==" in line, f"{name}: {line} is not pinned"


def test_requirements_readme_commands_and_ci_agree():
    readme = (ROOT / "README.md").read_text()
    run_command = "pip install -r requirements.txt && python manage.py start"
    test_command = "pip install -r requirements-test.txt && pytest"
    assert run_command in readme and test_command in readme
    # CI runs the README's command with the linters and the import contracts (docs/architecture.md) between.
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install -r requirements-test.txt && ruff check && ruff format --check && lint-imports && pytest" in ci
