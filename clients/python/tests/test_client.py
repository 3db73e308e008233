"""The client against a running system: signing accepted, typed errors, operations, jobs."""
import pytest

from sml import AuthError, InvalidRequestError, NotFoundError, SmlClient


def test_signed_requests_are_accepted(client, project):
    names = client.operations.listProjects().values["stringList"]["values"]
    assert project in names


def test_wrong_secret_is_an_auth_error(client):
    bad = SmlClient(client.url, client.user, "AAAAAAAAAAAAAAAAAAAAAA==", client.base_path)
    with pytest.raises(AuthError) as e:
        bad.operations.listProjects()
    assert e.value.status == 401
    assert e.value.envelope["statusCode"] == 401


def test_missing_project_is_a_typed_error_carrying_the_envelope(client):
    # SymetryML answers an unknown project with 400 (API.md), not 404.
    with pytest.raises(InvalidRequestError) as e:
        client.operations.projectInfo("no-such-project")
    assert e.value.status == 400
    assert "no-such-project" in e.value.message
    assert e.value.message == e.value.envelope["statusString"]


def test_escaped_path_parameters_are_signed_as_sent(client):
    # The path is signed escaped, as it goes on the wire: a refusal, never a bad signature.
    with pytest.raises((NotFoundError, InvalidRequestError)) as e:
        client.operations.projectInfo("a b/é")
    assert e.value.status in (400, 404)
