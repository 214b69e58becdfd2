"""Real meshes for the core tests, loaded once per session."""

import pytest


@pytest.fixture(scope="session")
def spot(load_asset):
    return load_asset("spot")


@pytest.fixture(scope="session")
def teapot(load_asset):
    return load_asset("teapot")


@pytest.fixture(scope="session")
def bunny(load_asset):
    return load_asset("stanford-bunny")


@pytest.fixture(scope="session")
def suzanne(load_asset):
    return load_asset("suzanne")
