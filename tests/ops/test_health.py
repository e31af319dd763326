"""/healthz and /metrics: what a load balancer and an operator read."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session

from pbem.games.service import SeatSpec
from pbem.mail.models import Heartbeat
from pbem.runtime import build_runtime
from pbem.web import create_app, ops
from pbem.zones import utc


@pytest.fixture
def runtime(sqlite_db, tmp_path):
    return build_runtime(
        {"security": {"secret_key": "k"}, "paths": {"var": str(tmp_path / "var")}},
        db=sqlite_db,
    )


@pytest.fixture
def client(runtime):
    app = create_app(runtime=runtime)
    app.config["TESTING"] = True
    return app.test_client()


def beat(runtime, age_seconds: float) -> None:
    moment = utc(runtime.clock()) - timedelta(seconds=age_seconds)
    with Session(runtime.db) as session:
        session.merge(
            Heartbeat(name="w1", pid=1, started_at=moment, beat_at=moment, sweep_seconds=0.042)
        )
        session.commit()


def test_healthy_with_a_recent_worker_heartbeat(runtime, client):
    beat(runtime, 5)
    answer = client.get("/healthz")
    assert answer.status_code == 200
    assert answer.get_json()["database"] == "ok" and answer.get_json()["worker"] == "ok"


def test_unhealthy_without_a_worker_or_with_a_stale_one(runtime, client):
    answer = client.get("/healthz")
    assert answer.status_code == 503 and answer.get_json()["worker"] == "no heartbeat yet"
    beat(runtime, 3600)
    answer = client.get("/healthz")
    assert answer.status_code == 503 and answer.get_json()["worker"] == "late"


def test_unhealthy_when_the_database_is_gone(runtime):
    from dataclasses import replace

    from pbem.db import make_engine

    unreachable = make_engine("postgresql+psycopg://nobody@127.0.0.1:9/none?connect_timeout=2")
    healthy, report = ops.health(replace(runtime, db=unreachable))
    assert not healthy and report["database"].startswith("unreachable")


def test_metrics_count_events_games_and_mail(runtime, client):
    runtime.service.create_game("pig", [SeatSpec("A", "a@example.org"), SeatSpec("B", "b@x.org")])
    beat(runtime, 1)
    text = client.get("/metrics").get_data(as_text=True)
    assert "pbem_events_appended_total 1" in text
    assert 'pbem_games{status="active"} 1' in text
    assert 'pbem_mails{status="pending"}' in text
    label = ops.worker_label(runtime, "w1")
    assert f'pbem_worker_heartbeat_age_seconds{{worker="{label}"}}' in text
    assert f'pbem_sweep_duration_seconds{{worker="{label}"}} 0.042' in text


def test_a_sweep_records_its_duration_for_the_metrics(runtime, client):
    from pbem import scheduler

    sweep_job, _ = scheduler._jobs(runtime, "worker-a")
    sweep_job()
    text = client.get("/metrics").get_data(as_text=True)
    assert (
        f'pbem_sweep_duration_seconds{{worker="{ops.worker_label(runtime, "worker-a")}"}}' in text
    )
    assert client.get("/healthz").status_code == 200
