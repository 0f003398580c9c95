"""raw_export.storage against moto's S3 server and a real directory: the five operations,
multipart uploads, overwrite-safety, and every failure told in words."""

from __future__ import annotations

import errno
import os
import shutil

import pytest

from raw_export.storage import (
    DestinationFacts,
    DirectoryStorage,
    S3Storage,
    StorageError,
    probe,
    storage_for,
)
from tests.processes import free_port

MIB = 1024 * 1024


def s3(server, bucket=None, **overrides) -> S3Storage:
    options = dict(bucket=bucket, endpoint_url=server.endpoint_url, region=server.region,
                   access_key_id=server.access_key_id,
                   secret_access_key=server.secret_access_key)
    options.update(overrides)
    return S3Storage(**options)


@pytest.fixture(params=["s3", "directory"])
def storage(request, tmp_path):
    if request.param == "directory":
        return DirectoryStorage(tmp_path)
    server = request.getfixturevalue("s3_server")
    return s3(server, server.new_bucket())


def test_put_list_exists_delete(storage, tmp_path):
    source = tmp_path / "source.bin"
    source.write_bytes(b"0123456789")
    assert storage.put_file("raw/t=installs/dt=2026-11-26/h=9/part-00000-r.parquet",
                            source) == 10
    storage.put_bytes("raw/t=installs/dt=2026-11-26/h=9/_SUCCESS", b"")
    storage.put_bytes("rawer/other", b"x")
    assert storage.list("raw/") == ["raw/t=installs/dt=2026-11-26/h=9/_SUCCESS",
                                    "raw/t=installs/dt=2026-11-26/h=9/part-00000-r.parquet"]
    assert storage.exists("raw/t=installs/dt=2026-11-26/h=9/_SUCCESS")
    storage.delete("raw/t=installs/dt=2026-11-26/h=9/_SUCCESS")
    storage.delete("raw/never-there")  # not an error
    assert not storage.exists("raw/t=installs/dt=2026-11-26/h=9/_SUCCESS")
    assert storage.list("nothing/") == []


def test_a_key_written_twice_holds_the_second_file_whole(storage, tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    first.write_bytes(b"first version, longer than the second")
    second.write_bytes(b"second")
    storage.put_file("k/part", first)
    storage.put_file("k/part", second)
    assert storage.list("k/") == ["k/part"]


def test_a_large_file_goes_up_in_parts_and_arrives_whole(s3_server, s3_bucket, tmp_path):
    source = tmp_path / "big.parquet"
    source.write_bytes(os.urandom(11 * MIB))
    storage = s3(s3_server, s3_bucket, multipart_threshold=5 * MIB, multipart_chunk=5 * MIB)
    assert storage.put_file("big.parquet", source) == 11 * MIB
    head = s3_server.client().head_object(Bucket=s3_bucket, Key="big.parquet")
    # S3 marks a multipart object's ETag with its number of parts.
    assert head["ETag"].strip('"').endswith("-3")
    body = s3_server.client().get_object(Bucket=s3_bucket, Key="big.parquet")["Body"].read()
    assert body == source.read_bytes()


def test_an_s3_storage_with_a_prefix_keeps_keys_relative(s3_server, s3_bucket):
    storage = s3(s3_server, s3_bucket, prefix="tenant/a")
    storage.put_bytes("x/y", b"1")
    assert s3_server.keys(s3_bucket) == ["tenant/a/x/y"]
    assert storage.list("x/") == ["x/y"]


def test_the_probe_leaves_nothing_behind(s3_server, s3_bucket):
    probe(s3(s3_server, s3_bucket), "raw/attribution")
    assert s3_server.keys(s3_bucket) == []


@pytest.mark.parametrize(("overrides", "reason", "words"), [
    ({"access_key_id": "AKIANOTKNOWN00000000"}, "bad_credentials", "bad credentials"),
    ({"secret_access_key": "wrong-secret"}, "bad_credentials", "bad credentials"),
    ({"bucket": "no-such-bucket-here"}, "no_bucket", "no such bucket"),
])
def test_s3_failures_are_told_in_words(s3_server, s3_bucket, overrides, reason, words):
    with pytest.raises(StorageError) as caught:
        probe(s3(s3_server, **{"bucket": s3_bucket, **overrides}), "p")
    assert caught.value.reason == reason
    assert words in str(caught.value)
    assert s3_server.secret_access_key not in str(caught.value) + caught.value.detail


def test_an_unreachable_endpoint_is_told_in_words(s3_server, s3_bucket):
    endpoint = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    with pytest.raises(StorageError) as caught:
        probe(s3(s3_server, s3_bucket, endpoint_url=endpoint), "p")
    assert caught.value.reason == "unreachable"
    assert "unreachable" in str(caught.value) and endpoint in str(caught.value)


def test_a_missing_directory_is_not_created_silently(tmp_path):
    storage = DirectoryStorage(tmp_path / "unmounted")
    with pytest.raises(StorageError) as caught:
        storage.put_bytes("a", b"1")
    assert caught.value.reason == "no_bucket" and "does not exist" in str(caught.value)
    assert not (tmp_path / "unmounted").exists()


def test_a_directory_below_the_export_root_is_created(tmp_path):
    storage = storage_for(DestinationFacts(kind="directory", path=str(tmp_path / "r" / "daily"),
                                           directory_root=str(tmp_path / "r")))
    (tmp_path / "r").mkdir()
    storage.put_bytes("a/b", b"1")
    assert (tmp_path / "r" / "daily" / "a" / "b").read_bytes() == b"1"


def test_a_key_cannot_leave_the_directory(tmp_path):
    with pytest.raises(StorageError):
        DirectoryStorage(tmp_path).put_bytes("../outside", b"1")
    assert not (tmp_path.parent / "outside").exists()


def test_a_full_disk_is_told_in_words_and_leaves_no_half_file(tmp_path, monkeypatch):
    source = tmp_path / "part"
    source.write_bytes(b"x" * 1000)
    root = tmp_path / "root"
    root.mkdir()

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(shutil, "copyfileobj", full)
    with pytest.raises(StorageError) as caught:
        DirectoryStorage(root).put_file("a/part", source)
    assert caught.value.reason == "full" and "full" in str(caught.value)
    assert list(root.rglob("*")) == [root / "a"]  # the temporary file is gone
