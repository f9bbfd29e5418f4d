"""The public surface of the sync package, the error -> status table, and the real encoder."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

import sync
from edgeloop.transport.status import status_for
from sync import errors

ENCODER = Path(__file__).resolve().parents[2] / "understanding" / "models" / "encoder"


def test_public_names_are_exactly_the_intended_ones() -> None:
    assert sorted(sync.__all__) == sorted(
        [
            "KINDS",
            "HybridLogicalClock",
            "InvalidRecordError",
            "InvalidUpdateError",
            "MemoryDocument",
            "MemoryStore",
            "MemoryStoreError",
            "MemorySyncServicer",
            "NotConvergedError",
            "PermissionDeniedError",
            "ProtocolError",
            "RecallHit",
            "RecordNotFoundError",
            "SyncResult",
            "SyncStats",
            "UnauthenticatedError",
            "UserStores",
            "add_sync_service",
            "sync_stores",
            "sync_with",
            "sync_with_async",
        ]
    )
    for name in sync.__all__:
        assert getattr(sync, name) is not None


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (errors.UnauthenticatedError("x"), grpc.StatusCode.UNAUTHENTICATED),
        (errors.PermissionDeniedError("x"), grpc.StatusCode.PERMISSION_DENIED),
        (errors.InvalidUpdateError("x"), grpc.StatusCode.INVALID_ARGUMENT),
        (errors.InvalidRecordError("x"), grpc.StatusCode.INVALID_ARGUMENT),
        (errors.ProtocolError("x"), grpc.StatusCode.INVALID_ARGUMENT),
        (errors.NotConvergedError("x"), grpc.StatusCode.ABORTED),
        (RuntimeError("x"), grpc.StatusCode.INTERNAL),
    ],
)
def test_error_to_status_table(error: BaseException, code: grpc.StatusCode) -> None:
    assert status_for(error).code == code


def test_every_error_is_a_memory_store_error_or_the_shared_auth_pair() -> None:
    for cls in (
        errors.InvalidRecordError,
        errors.RecordNotFoundError,
        errors.InvalidUpdateError,
        errors.ProtocolError,
        errors.NotConvergedError,
    ):
        assert issubclass(cls, errors.MemoryStoreError)
    for cls in (errors.UnauthenticatedError, errors.PermissionDeniedError):
        assert issubclass(cls, errors.AuthError)
        assert not issubclass(cls, errors.MemoryStoreError)


@pytest.mark.skipif(
    not (ENCODER / "model_int8.onnx").exists(), reason="the edge encoder model is not built"
)
def test_recall_with_the_real_edge_encoder(tmp_path: Path) -> None:
    encoder_module = pytest.importorskip("understanding.encoder")
    try:
        encoder = encoder_module.Encoder.load()
    except Exception as exc:  # the model is another package's artefact
        pytest.skip(f"the edge encoder does not load: {exc}")
    with sync.MemoryStore(tmp_path / "m.db", embedder=encoder.embed) as store:
        dentist = store.add_note("Dentist appointment on Friday at nine")
        store.add_note("Buy oat milk and bread")
        hits = store.search("when is the dentist appointment")
        assert hits and hits[0].record_id == dentist
        blob = store.db.execute(
            "SELECT embedding FROM recall WHERE record_id = ?", [dentist]
        ).fetchone()[0]
        assert len(blob) == 4 * encoder.embed("x").shape[0]
