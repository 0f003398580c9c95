"""Where raw-data files land (docs/export.md): an S3-compatible bucket or a local directory.

Both speak the same five operations on keys (`/`-separated paths relative to the storage's root:
the directory, or the bucket plus an optional key prefix). Every failure is raised as a
`StorageError` whose message is plain words an owner can act on (bad credentials, no such bucket,
unreachable, disk full), because the test endpoint and the console show it as it is; the
underlying client's message is kept in `detail` for the logs. Credentials never appear in either.

Writes are overwrite-safe: a file under a key is replaced whole (S3 objects are; directory files
are written beside and renamed into place), so a run repeated after a crash leaves no half file.

The S3 client sends through the one outbound client's rule (outbox.http): every host it calls is
resolved once, checked (a loopback or private endpoint is refused unless
OUTBOUND_ALLOW_PRIVATE_NETWORKS allows it) and connected to at a checked address only.
"""

from __future__ import annotations

import errno
import os
import shutil
import socket
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Protocol
from urllib.parse import urlsplit

from outbox import http

# S3's smallest part (except the last) is 5 MiB; above this size an upload goes in parts, so a
# large file is never held in one request and a dropped connection costs only one part.
MULTIPART_THRESHOLD = 64 * 1024 * 1024
MULTIPART_CHUNK = 16 * 1024 * 1024
CONNECT_TIMEOUT_SECONDS = 10
READ_TIMEOUT_SECONDS = 60
# The destination test answers a person waiting on a web request: one try, shorter waits.
QUICK = {"connect_timeout": 5, "read_timeout": 10, "attempts": 1}


class StorageError(Exception):
    """A storage operation failed; `str(error)` is words for the owner, `reason` a stable code."""

    def __init__(self, message: str, *, reason: str = "failed", detail: str = ""):
        super().__init__(message)
        self.message = message
        self.reason = reason
        self.detail = detail


class Storage(Protocol):
    def put_file(self, key: str, path: Path) -> int:
        """Uploads the file under `key`, replacing any object there; returns its size in bytes."""

    def put_bytes(self, key: str, data: bytes) -> None: ...

    def delete(self, key: str) -> None:
        """Removes the object; a missing object is not an error."""

    def exists(self, key: str) -> bool: ...

    def list(self, prefix: str) -> list[str]:
        """Every key under `prefix` (a plain string prefix, as S3 lists), sorted."""


@dataclass(frozen=True)
class DestinationFacts:
    """What `storage_for` needs, as plain values (the destination row's, secret decrypted)."""

    kind: str  # "s3" or "directory"
    bucket: str = ""
    endpoint_url: str = ""
    region: str = ""
    access_key_id: str = ""
    secret_access_key: str = ""
    path: str = ""  # for a directory: absolute
    directory_root: str = ""  # the server's export directory, which `path` is below


def storage_for(facts: DestinationFacts, *, quick: bool = False) -> Storage:
    """The storage a destination writes to. Keys are relative to the bucket or the directory:
    the destination's own prefix is the writer's to add, so files and probes share it.
    `quick`: for a test while someone waits (QUICK's timeouts, no client retry)."""
    if facts.kind == "directory":
        return DirectoryStorage(facts.path, within=facts.directory_root or None)
    if facts.kind == "s3":
        return S3Storage(
            bucket=facts.bucket, endpoint_url=facts.endpoint_url or None,
            region=facts.region or None, access_key_id=facts.access_key_id,
            secret_access_key=facts.secret_access_key, **(QUICK if quick else {}))
    raise ValueError(f"unknown destination kind {facts.kind!r}")


def probe(storage: Storage, prefix: str) -> None:
    """Writes and removes a small object under `prefix`: the destination test. Raises
    StorageError with words for the owner when either step fails."""
    key = join_key(prefix, f"_probe-{uuid.uuid4().hex}")
    storage.put_bytes(key, b"attribution raw-data export: write test, safe to delete\n")
    storage.delete(key)


def join_key(prefix: str, *parts: str) -> str:
    return "/".join(p.strip("/") for p in (prefix, *parts) if p.strip("/"))


class DirectoryStorage:
    """Files under a local directory (one-machine set-ups, `make run`)."""

    def __init__(self, root: str | os.PathLike, *, within: str | os.PathLike | None = None):
        """`within`: a directory the server's operator made for exports; `root` below it is
        created on first write. Without it, `root` itself must exist."""
        self.root = Path(root)
        self.within = Path(within) if within is not None else None

    def _path(self, key: str) -> Path:
        relative = PurePosixPath(key)
        if not key or relative.is_absolute() or ".." in relative.parts:
            raise StorageError(f"The key {key!r} is not a relative path.", reason="bad_key")
        return self.root.joinpath(*relative.parts)

    def put_file(self, key: str, path: Path) -> int:
        with _directory_errors(self.root):
            with open(path, "rb") as source:
                self._write_atomically(key, lambda target: shutil.copyfileobj(source, target))
            return os.path.getsize(path)

    def put_bytes(self, key: str, data: bytes) -> None:
        with _directory_errors(self.root):
            self._write_atomically(key, lambda target: target.write(data))

    def _write_atomically(self, key: str, fill) -> None:
        self._require_root()
        target = self._path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        # A reader (or the next run) sees the old file or the new one, never a half-written one.
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as handle:
                fill(handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def _require_root(self) -> None:
        # The root is the owner's to create: making it silently would hide a mistyped path
        # (or an unmounted volume) until the disk it lands on fills.
        if self.within is not None and self.within.is_dir():
            self.root.mkdir(parents=True, exist_ok=True)
        if not self.root.is_dir():
            raise StorageError(
                f"The directory {str(self.root)!r} does not exist on the server.",
                reason="no_bucket")

    def delete(self, key: str) -> None:
        with _directory_errors(self.root):
            self._path(key).unlink(missing_ok=True)

    def exists(self, key: str) -> bool:
        with _directory_errors(self.root):
            return self._path(key).is_file()

    def list(self, prefix: str) -> list[str]:
        with _directory_errors(self.root):
            self._require_root()
            keys = []
            for dirpath, _dirnames, filenames in os.walk(self.root):
                for name in filenames:
                    if name.startswith(".tmp-"):
                        continue
                    key = Path(dirpath, name).relative_to(self.root).as_posix()
                    if key.startswith(prefix):
                        keys.append(key)
            return sorted(keys)


class _directory_errors:
    """Turns OSErrors into StorageErrors with words."""

    def __init__(self, root: Path):
        self.root = root

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc is None or not isinstance(exc, OSError):
            return False
        words = {
            errno.ENOSPC: ("The disk holding the directory is full.", "full"),
            errno.EDQUOT: ("The disk quota for the directory is exhausted.", "full"),
            errno.EACCES: ("The server may not write to the directory (permission denied).",
                           "denied"),
            errno.EPERM: ("The server may not write to the directory (permission denied).",
                          "denied"),
            errno.EROFS: ("The directory is on a read-only file system.", "denied"),
            errno.ENOENT: (f"The directory {str(self.root)!r} does not exist on the server.",
                           "no_bucket"),
            errno.ENOTDIR: (f"{str(self.root)!r} is not a directory.", "no_bucket"),
        }
        message, reason = words.get(exc.errno, ("Writing to the directory failed.", "failed"))
        raise StorageError(message, reason=reason, detail=f"{type(exc).__name__}: {exc}") from exc


class S3Storage:
    """Objects in an S3-compatible bucket (AWS S3, GCS's XML API, R2, MinIO, Ceph) via boto3."""

    def __init__(self, *, bucket: str, prefix: str = "", endpoint_url: str | None = None,
                 region: str | None = None, access_key_id: str = "", secret_access_key: str = "",
                 multipart_threshold: int = MULTIPART_THRESHOLD,
                 multipart_chunk: int = MULTIPART_CHUNK,
                 connect_timeout: float = CONNECT_TIMEOUT_SECONDS,
                 read_timeout: float = READ_TIMEOUT_SECONDS, attempts: int = 2):
        import boto3
        from boto3.s3.transfer import TransferConfig
        from botocore.config import Config

        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.endpoint_url = endpoint_url
        config = Config(
            connect_timeout=connect_timeout, read_timeout=read_timeout,
            # The outbox retries a failed run with backoff; the client's own retries would only
            # stretch one try past its lease.
            retries={"max_attempts": attempts, "mode": "standard"},
            # Stores other than AWS (GCS, older MinIO and Ceph) refuse the CRC checksums botocore
            # adds by default since 1.36; send them only where an operation requires one.
            request_checksum_calculation="when_required",
            response_checksum_validation="when_required",
            # A custom endpoint rarely has wildcard DNS for bucket subdomains; AWS itself does.
            s3={"addressing_style": "path" if endpoint_url else "auto"},
        )
        with _s3_errors(bucket, endpoint_url):
            self._client = boto3.session.Session().client(
                "s3", endpoint_url=endpoint_url, region_name=region or None,
                aws_access_key_id=access_key_id or None,
                aws_secret_access_key=secret_access_key or None, config=config)
        self._client.meta.events.register(
            "before-send.s3", _PinnedSender(connect_timeout=connect_timeout,
                                            read_timeout=read_timeout))
        self._transfer = TransferConfig(
            multipart_threshold=multipart_threshold, multipart_chunksize=multipart_chunk,
            use_threads=False)

    def _key(self, key: str) -> str:
        return join_key(self.prefix, key)

    def put_file(self, key: str, path: Path) -> int:
        with _s3_errors(self.bucket, self.endpoint_url):
            self._client.upload_file(str(path), self.bucket, self._key(key),
                                     Config=self._transfer)
        return os.path.getsize(path)

    def put_bytes(self, key: str, data: bytes) -> None:
        with _s3_errors(self.bucket, self.endpoint_url):
            self._client.put_object(Bucket=self.bucket, Key=self._key(key), Body=data)

    def delete(self, key: str) -> None:
        with _s3_errors(self.bucket, self.endpoint_url):
            self._client.delete_object(Bucket=self.bucket, Key=self._key(key))

    def exists(self, key: str) -> bool:
        from botocore.exceptions import ClientError

        with _s3_errors(self.bucket, self.endpoint_url):
            try:
                self._client.head_object(Bucket=self.bucket, Key=self._key(key))
            except ClientError as error:
                if _error_code(error) in ("404", "NoSuchKey", "NotFound"):
                    return False
                raise
            return True

    def list(self, prefix: str) -> list[str]:
        strip = len(self.prefix) + 1 if self.prefix else 0
        keys = []
        with _s3_errors(self.bucket, self.endpoint_url):
            pages = self._client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=(self.prefix + "/" if self.prefix else "") + prefix)
            for page in pages:
                keys.extend(item["Key"][strip:] for item in page.get("Contents", ()))
        return sorted(keys)


class _PinnedSender:
    """Sends the S3 client's requests itself, over the outbound client's pinned pools
    (outbox.http.pinned_pools): botocore's `before-send` event lets a handler answer in its
    HTTP session's place. Each host the client calls is resolved once per storage and checked,
    and only its checked addresses are connected to; TLS verifies the certificate against the
    host name. botocore's own session would look the name up again for every new connection
    (the endpoint checked, then an internal address at upload time: DNS rebinding) and would
    follow environment proxies.

    What the session does around the call is kept (botocore.httpsession.URLLib3Session.send):
    its connection classes (100-continue), the same urlopen options, and the same botocore
    errors, so the client's retries and _s3_errors' words read them as before.
    """

    def __init__(self, *, connect_timeout: float, read_timeout: float):
        import urllib3

        self._timeout = urllib3.Timeout(connect=connect_timeout, read=read_timeout)
        self._pools: dict[tuple[str, str, int], list] = {}

    def __call__(self, request, **kwargs):
        from botocore import exceptions as errors
        from botocore.awsrequest import AWSResponse
        from urllib3 import exceptions as failures

        parts = urlsplit(request.url)
        headers = dict(request.headers.items())
        if not any(name.lower() == "host" for name in headers):
            headers["Host"] = http.host_header(request.url)  # the name botocore signed
        encoding = request.headers.get("Transfer-Encoding") or ""
        chunked = (encoding.decode() if isinstance(encoding, bytes) else encoding).lower()
        try:
            pools = self._pools_for(parts)
            for index, pool in enumerate(pools):
                try:
                    response = pool.urlopen(
                        method=request.method, url=http.request_target(parts), body=request.body,
                        headers=headers, retries=False, assert_same_host=False,
                        preload_content=False, decode_content=False,
                        chunked=chunked == "chunked", enforce_content_length=False)
                    break
                except failures.NewConnectionError:
                    if index + 1 == len(pools):
                        raise  # else the next checked address, as outbox.http.send does
            answer = AWSResponse(request.url, response.status, response.headers, response)
            if not request.stream_output:
                _ = answer.content  # read it all now, and give the connection back to its pool
            return answer
        except failures.SSLError as exc:
            raise errors.SSLError(endpoint_url=request.url, error=exc) from None
        except (failures.NewConnectionError, socket.gaierror) as exc:
            raise errors.EndpointConnectionError(endpoint_url=request.url, error=exc) from None
        except failures.ConnectTimeoutError as exc:
            raise errors.ConnectTimeoutError(endpoint_url=request.url, error=exc) from None
        except failures.ReadTimeoutError as exc:
            raise errors.ReadTimeoutError(endpoint_url=request.url, error=exc) from None
        except failures.ProtocolError as exc:
            raise errors.ConnectionClosedError(error=exc, request=request,
                                               endpoint_url=request.url) from None
        except OSError as exc:  # the name did not resolve
            raise errors.EndpointConnectionError(endpoint_url=request.url, error=exc) from None
        except (failures.HTTPError, ValueError) as exc:  # as botocore's session words the rest
            raise errors.HTTPClientError(error=exc) from None

    def _pools_for(self, parts) -> list:
        from botocore.awsrequest import AWSHTTPConnectionPool, AWSHTTPSConnectionPool

        key = (parts.scheme, parts.hostname or "", parts.port or http.DEFAULT_PORTS.get(
            parts.scheme, 443))
        if key not in self._pools:
            # Only an answer that passed is kept: a name that did not resolve is asked again
            # on the next try.
            self._pools[key] = http.pinned_pools(
                *key, timeout=self._timeout, maxsize=4,
                pool_classes=(AWSHTTPConnectionPool, AWSHTTPSConnectionPool))
        return self._pools[key]


def _error_code(error) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


_S3_CODE_WORDS = {
    "InvalidAccessKeyId": ("The access key ID is not known to the storage service "
                           "(bad credentials).", "bad_credentials"),
    "SignatureDoesNotMatch": ("The secret access key does not match the access key ID "
                              "(bad credentials).", "bad_credentials"),
    "InvalidToken": ("The storage service refused the credentials (bad credentials).",
                     "bad_credentials"),
    "ExpiredToken": ("The credentials have expired (bad credentials).", "bad_credentials"),
    "AuthorizationHeaderMalformed": ("The storage service refused the credentials or the region "
                                     "(bad credentials or wrong region).", "bad_credentials"),
    "AccessDenied": ("The credentials are valid but may not write to this bucket "
                     "(access denied).", "denied"),
    "AllAccessDisabled": ("All access to this bucket is disabled.", "denied"),
    "NoSuchBucket": ("The bucket {bucket!r} does not exist (no such bucket).", "no_bucket"),
    "PermanentRedirect": ("The bucket {bucket!r} is in another region: set the region the bucket "
                          "was created in.", "wrong_region"),
    "IllegalLocationConstraintException": ("The bucket {bucket!r} is in another region: set the "
                                           "region the bucket was created in.", "wrong_region"),
    "QuotaExceeded": ("The bucket's storage quota is exhausted (full).", "full"),
    "EntityTooLarge": ("The storage service refused a file as too large.", "full"),
    "SlowDown": ("The storage service asked us to slow down; the run will be retried.",
                 "unreachable"),
    "ServiceUnavailable": ("The storage service is unavailable; the run will be retried.",
                           "unreachable"),
    "InternalError": ("The storage service had an internal error; the run will be retried.",
                      "unreachable"),
}
_S3_STATUS_WORDS = {
    301: _S3_CODE_WORDS["PermanentRedirect"],
    400: ("The storage service refused the request as malformed (check the region and the "
          "endpoint URL).", "failed"),
    403: _S3_CODE_WORDS["AccessDenied"],
    404: _S3_CODE_WORDS["NoSuchBucket"],
    503: _S3_CODE_WORDS["ServiceUnavailable"],
}


class _s3_errors:
    """Turns boto3's exceptions into StorageErrors with words (never with the credentials)."""

    def __init__(self, bucket: str, endpoint_url: str | None):
        self.bucket = bucket
        self.where = endpoint_url or "AWS S3"

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc is None or isinstance(exc, StorageError):
            return False
        if isinstance(exc, http.Refused):
            raise StorageError(f"{exc} {http.LOCAL_DESTINATIONS_HINT}", reason="denied",
                               detail=str(exc)) from None
        from boto3.exceptions import S3UploadFailedError
        from botocore import exceptions as botocore_errors

        cause = exc
        if isinstance(exc, S3UploadFailedError):
            # boto3 raises it while handling the client's error, which says what went wrong.
            cause = exc.__cause__ or exc.__context__ or exc
        if isinstance(cause, botocore_errors.ClientError):
            code = _error_code(cause)
            status = cause.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            message, reason = _S3_CODE_WORDS.get(code) or _S3_STATUS_WORDS.get(
                status, (f"The storage service answered with an error ({code or status}).",
                         "failed"))
            message = message.format(bucket=self.bucket)
        elif isinstance(cause, botocore_errors.NoCredentialsError | botocore_errors.
                        PartialCredentialsError):
            message, reason = ("No access key ID and secret access key are set (bad "
                               "credentials).", "bad_credentials")
        elif isinstance(cause, botocore_errors.SSLError):
            message, reason = (f"The TLS connection to {self.where} failed (certificate not "
                               "trusted or not TLS).", "unreachable")
        elif isinstance(cause, botocore_errors.ConnectionError | botocore_errors.HTTPClientError):
            message, reason = (f"The storage service at {self.where} is unreachable "
                               "(connection refused or timed out).", "unreachable")
        elif isinstance(cause, ValueError):
            message, reason = (f"The endpoint URL {self.where!r} is not valid.", "failed")
        elif isinstance(cause, botocore_errors.BotoCoreError):
            message, reason = "The storage client failed before reaching the service.", "failed"
        else:
            return False
        raise StorageError(message, reason=reason,
                           detail=f"{type(cause).__name__}: {cause}") from None
