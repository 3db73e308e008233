"""DSInfo bodies encrypted by the Python client (v1 and v2) decrypted by the running gateway:
a CSV written to the customer's files root (SML_FILES_DIR, set by test/python.e2e.test.ts) is
previewed, registered, read back and learned."""
import os
from pathlib import Path

import pytest

from sml import InvalidRequestError, SmlClient


@pytest.fixture
def files(client):
    root = os.environ.get("SML_FILES_DIR")
    if not root:
        pytest.skip("no files root (SML_FILES_DIR unset)")
    Path(root).mkdir(parents=True, exist_ok=True)
    (Path(root) / "py.csv").write_text("x,y\n1,2\n3,4\n5,9\n", "utf-8")
    return root


@pytest.mark.parametrize("fmt", ["v1", "v2"])
def test_encrypted_dsinfo_is_read_by_the_gateway(client, project, files, fmt):
    dsinfo = {"type": "localfile", "name": f"py{fmt}", "info": {"path": "py.csv"}, "extra": ["C", "C"]}
    preview = client.preview_data_source(dsinfo, format=fmt).values["dataframe"]
    assert preview["attributeNames"] == ["x", "y"] and len(preview["data"]) == 3
    assert client.create_data_source(dsinfo, format=fmt).status == 201
    try:
        back = client.operations.getDataSource(dsinfo["name"]).values["dsInfo"]
        assert back["type"] == "localfile" and back["info"]["path"] == "py.csv"
        job = client.operations.learnFromDataSource(project, dsinfo["name"],
                                                    json_body={"attributeNames": ["x", "y"], "attributeTypes": ["C", "C"]})
        client.wait(job, progress=False)
        uni = client.explore(project, "uni", ["y"])
        assert uni.loc["y", "count"] == 3 and uni.loc["y", "mean"] == 5
    finally:
        client.operations.deleteDataSource(dsinfo["name"], check=False)


def test_a_dsinfo_under_another_secret_is_the_uniform_400(client, files):
    other = SmlClient(client.url, client.user, "AAAAAAAAAAAAAAAAAAAAAA==", client.base_path)
    with pytest.raises(InvalidRequestError) as e:
        client.operations.previewDataSource(raw=other.encrypt_dsinfo({"type": "localfile", "name": "z", "info": {"path": "py.csv"}}))
    assert e.value.status == 400 and e.value.message == "Invalid encrypted payload"
