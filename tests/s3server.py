"""A real S3-compatible server on loopback for the tests: moto's standalone server (``moto.server``,
a Flask app speaking the S3 wire protocol) in its own process. The app talks to it through
django-storages and boto3 exactly as it would to AWS or MinIO; nothing in boto is mocked."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench._load import free_port

BUCKET = "alphadesk-test"
KEY, SECRET, REGION = "testing", "testing-secret", "us-east-1"


class S3Server:
    """``python -m moto.server`` on a free loopback port, with the test bucket created."""

    def __init__(self, log_path: Path, port: int | None = None) -> None:
        self.port = port or free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()
        self.client().create_bucket(Bucket=BUCKET)

    def start(self) -> None:
        """Start (or start again, on the same port: the bucket's contents were in the old process)."""
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"moto server exited:\n{self.log_path.read_text()[-2000:]}") from None
                time.sleep(0.1)
        raise RuntimeError("moto server did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    @property
    def storage_url(self) -> str:
        """``STORAGE_URL`` for the app (config/storage.py), keys included, for child processes too."""
        return f"s3://{KEY}:{SECRET}@{BUCKET}?endpoint_url={self.endpoint}&region_name={REGION}&addressing_style=path"

    def client(self) -> Any:
        import boto3

        return boto3.client(
            "s3", endpoint_url=self.endpoint, aws_access_key_id=KEY, aws_secret_access_key=SECRET, region_name=REGION
        )

    def keys(self) -> list[str]:
        listing = self.client().list_objects_v2(Bucket=BUCKET)
        return sorted(item["Key"] for item in listing.get("Contents", []))

    def read(self, key: str) -> bytes:
        return bytes(self.client().get_object(Bucket=BUCKET, Key=key)["Body"].read())
