"""The CLI in-process, as the tests of one command after another call it."""
import json

from typer.testing import CliRunner

from gradcli.cli.app import app


def invoke(*args, input=None):
    return CliRunner().invoke(app, list(args), input=input, catch_exceptions=False)


def as_json(result):
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)
