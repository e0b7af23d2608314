import os

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def rules(name):
    """The path of a rules file of the repository: `rules(\"classic/kuhn_poker\")`."""
    return os.path.join(ROOT, "rules", name + ".rules")


@pytest.fixture
def root():
    return ROOT
