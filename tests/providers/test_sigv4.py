"""The SigV4 signer against AWS's published example, and credentials from the environment
or a profile file."""

from __future__ import annotations

import datetime
from pathlib import Path

import httpx

from jawad_desktop.core.llm.sigv4 import AwsCredentials, find_credentials, profile_region, signature_headers

EXAMPLE = AwsCredentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")


def test_aws_documentation_example() -> None:
    # "Create a signed AWS API request" (IAM ListUsers, 2015-08-30T12:36:00Z) in the AWS docs.
    headers = signature_headers(
        "GET", httpx.URL("https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08"),
        {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}, b"", EXAMPLE, "us-east-1", "iam",
        now=datetime.datetime(2015, 8, 30, 12, 36, tzinfo=datetime.UTC), payload_header=False)
    assert headers["Authorization"] == (
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, "
        "SignedHeaders=content-type;host;x-amz-date, "
        "Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7")


def test_credentials_from_environment_and_profiles(tmp_path: Path) -> None:
    env = {"AWS_ACCESS_KEY_ID": "AKIA1", "AWS_SECRET_ACCESS_KEY": "s1", "AWS_SESSION_TOKEN": "t1"}
    assert find_credentials("", env) == AwsCredentials("AKIA1", "s1", "t1", "environment")
    (tmp_path / "credentials").write_text("[work]\naws_access_key_id = AKIA2\naws_secret_access_key = s2\n")
    (tmp_path / "config").write_text("[profile work]\nregion = eu-west-3\n")
    files = {"AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "credentials"), "AWS_CONFIG_FILE": str(tmp_path / "config")}
    assert find_credentials("", {**files, "AWS_PROFILE": "work"}) == AwsCredentials("AKIA2", "s2", "", "profile work")
    assert find_credentials("work", {**env, **files}).access_key == "AKIA2"  # type: ignore[union-attr]
    assert profile_region("work", files) == "eu-west-3"
    assert find_credentials("", files) is None and find_credentials("nobody", files) is None
