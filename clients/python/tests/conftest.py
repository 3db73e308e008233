"""System tests read the running gateway's address and a customer's credentials from the
environment (SML_URL, SML_USER, SML_SECRET), set by test/python.e2e.test.ts; without them they
are skipped, so `python3 -m pytest clients/python/tests` alone runs the offline tests."""
import os
import sys
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


@pytest.fixture
def client():
    if not os.environ.get("SML_URL"):
        pytest.skip("no running system (SML_URL unset)")
    from sml import SmlClient
    return SmlClient.from_env()


@pytest.fixture
def project(client):
    pid = f"py{uuid.uuid4().hex[:10]}"
    client.operations.createProject(query={"pid": pid})
    yield pid
    client.operations.deleteProject(pid, check=False)
