"""`doctor` on the official client's model tables: each `[models."…"]` names a provider that
config.toml has, and `default_model` names one of those models (else the official client starts
with no model). The one safe repair: a `default_model` that names nothing, when exactly one model
can be used, is pointed at it (re-checked on the text it writes over; nothing else changes)."""

from __future__ import annotations

from typing import Any

from tui.core.config.guard import config_edit
from tui.core.config.provider import write_config_text
from tui.core.config.read import parse_config, parse_config_readonly, read_config_text
from tui.core.credentials.repairs import CHANGED, NotDone, Repair
from tui.core.doctor.model import FAIL, OK, Check
from tui.core.spec import paths
from tui.core.text.phrase import N_, Phrase
from tui.core.text.untrusted import one_line

EDIT_IT = N_("Set default_model in {path} by hand to a model it has ({models}).")


def _table(config: dict[str, Any], name: str) -> dict[str, Any]:
    found = config.get(name)
    return found if isinstance(found, dict) else {}


def check_models(config: dict[str, Any]) -> list[Check]:
    providers, models = _table(config, "providers"), _table(config, "models")
    found = [_model(name, entry, providers) for name, entry in models.items() if isinstance(entry, dict)]
    checks = [check for check in found if check is not None]
    default = config.get("default_model")
    if default is not None and not (isinstance(default, str) and default in models):
        checks.append(_default_model(default, _usable(models, providers), list(models)))
    if models and not checks:
        finding = Phrase(N_("Every model names a provider that exists, and default_model names a model."))
        checks.append(Check("config.models", OK, finding, "", {"models": len(models)}))
    return checks


def _usable(models: dict[str, Any], providers: dict[str, Any]) -> list[str]:
    """The models whose provider exists."""
    return [name for name, entry in models.items() if isinstance(entry, dict) and entry.get("provider") in providers]


def _model(name: str, entry: dict[str, Any], providers: dict[str, Any]) -> Check | None:
    provider = entry.get("provider")
    if isinstance(provider, str) and provider in providers:
        return None
    shown = one_line(provider, 80) if isinstance(provider, str) else Phrase(N_("(none)"))
    finding = Phrase(
        N_(
            "Model {model} names provider {provider}, which config.toml does not have: the official client cannot use it."
        ),
        model=one_line(name, 80),
        provider=shown,
    )
    fix = Phrase(
        N_("Name a provider that exists in its `provider` (`assistant-auth config` lists them), or remove the model."),
    )
    return Check(f"config.models.{one_line(name, 80)}", FAIL, finding, fix, {"provider": provider})


def _default_model(default: object, usable: list[str], models: list[str]) -> Check:
    shown = one_line(default, 80) if isinstance(default, str) else repr(default)[:80]
    finding = Phrase(
        N_("default_model {model} names no model of config.toml: the official client starts with no model."),
        model=shown,
    )
    if len(usable) != 1:
        return Check(
            "config.default_model",
            FAIL,
            finding,
            Phrase(EDIT_IT, path=paths.config_path(), models=one_line(", ".join(models), 200) or Phrase(N_("none"))),
            {"default_model": default},
        )
    only = usable[0]
    change = Phrase(
        N_("set default_model to {model}, the one model of config.toml (nothing else in the file changes)"),
        model=one_line(only, 80),
    )
    fix = Phrase(N_("Point it at {model}, the one model config.toml has."), model=one_line(only, 80))
    repair = Repair(change, lambda: _point_default_at(default, only))
    return Check("config.default_model", FAIL, finding, fix, {"default_model": default}, repair=repair)


def _point_default_at(seen: object, model: str) -> str:
    """The repair, under the lock of every writer of ours: only while default_model is still the
    value reported and `model` still the one usable model."""
    with config_edit():
        previous = read_config_text()
        config = parse_config_readonly(previous)
        usable = _usable(_table(config, "models"), _table(config, "providers"))
        if config.get("default_model") != seen or usable != [model]:
            raise NotDone(Phrase(N_("{path} {changed}"), path=paths.config_path(), changed=CHANGED))
        doc = parse_config(previous)
        doc["default_model"] = model
        write_config_text(doc.as_string(), previous=previous)
    return Phrase(N_("default_model is {model} now"), model=one_line(model, 80))
