"""Reading TOML files into validated models, with one-line errors."""

import tomllib
from pathlib import Path
from typing import TypeVar

import pydantic

from .errors import UserError
from .small_files import read_small_text

Model = TypeVar("Model", bound=pydantic.BaseModel)


class Strict(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True, strict=True)


def load_toml(path: Path, model: type[Model]) -> Model:
    return validated(path, read_toml(path), model)


def read_toml(path: Path) -> dict:
    text = read_small_text(path)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"{path}: malformed TOML: {e}") from None


def validated(path: Path, data: dict, model: type[Model]) -> Model:
    """The data read from path as a model; a one-line error naming path."""
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as e:
        raise UserError(f"{path}: {first_error(e)}") from None


def first_error(error: pydantic.ValidationError) -> str:
    problem = error.errors()[0]
    where = ".".join(str(part) for part in problem["loc"])
    message = problem["msg"].removeprefix("Value error, ")
    return f"{where}: {message}" if where else message
