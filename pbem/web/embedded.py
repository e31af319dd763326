"""``pbem serve``: the embedded server on gunicorn, one worker, threads, the scheduler in it.

One process serves the web and runs the scheduler and the mail dispatcher, as the
development server did, but on a production WSGI server: gunicorn's arbiter with one
threaded (``gthread``) worker. The worker is the only process that writes, so SQLite's
writers stay in one process; it starts the scheduler (and with it the runner of slow bots,
:mod:`pbem.games.bot_runner`) once it has loaded the app and stops them when it exits, and
the arbiter restarts a worker that dies, scheduler and all.

The access log is the one ``pbem serve --production`` writes (every token masked by
:class:`pbem.web.accesslog.MaskingLogger`), and ``X-Forwarded-Proto`` is believed from the
same addresses (127.0.0.1 when ``server.proxies`` declares a proxy, nobody otherwise).
"""

from __future__ import annotations

from typing import Any

from gunicorn.app.base import BaseApplication

# Requests served at once by the one worker; more wait for a free thread.
THREADS = 8


def options(runtime: Any, host: str, port: int) -> dict[str, Any]:
    """gunicorn's settings for ``pbem serve`` (hooks aside)."""
    proxies = int(runtime.config["server"].get("proxies", 0) or 0)
    return {
        "bind": f"{host}:{port}",
        "workers": 1,
        "worker_class": "gthread",
        "threads": THREADS,
        "accesslog": "-",
        "logger_class": "pbem.web.accesslog.MaskingLogger",
        "forwarded_allow_ips": "127.0.0.1" if proxies > 0 else "",
        # Ctrl-C (or a restart) finishes the requests under way within this many seconds.
        "graceful_timeout": 5,
    }


class EmbeddedServer(BaseApplication):
    """gunicorn running ``app`` in one threaded worker beside the scheduler."""

    def __init__(self, app: Any, runtime: Any, host: str, port: int) -> None:
        self.application = app
        self.runtime = runtime
        self.settings = options(runtime, host, port)
        self.scheduler: Any = None
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.settings.items():
            self.cfg.set(key, value)
        if "control_socket_disable" in self.cfg.settings:  # gunicorn 27 and later
            # No runtime control socket in the home folder, shared by every ``pbem serve``.
            self.cfg.set("control_socket_disable", True)
        self.cfg.set("post_fork", self._post_fork)
        self.cfg.set("post_worker_init", self._post_worker_init)
        self.cfg.set("worker_exit", self._worker_exit)

    def load(self) -> Any:
        return self.application

    # Hooks, run in the worker -------------------------------------------------------

    def _post_fork(self, server: Any, worker: Any) -> None:
        # The connections the arbiter opened (migrations, demo games) stay the parent's.
        self.runtime.db.dispose(close=False)

    def _post_worker_init(self, worker: Any) -> None:
        from pbem import scheduler

        self.scheduler = scheduler.start_background(self.runtime)

    def _worker_exit(self, server: Any, worker: Any) -> None:
        if self.scheduler is not None:
            from pbem import scheduler

            scheduler.stop_background(self.runtime, self.scheduler, wait=False)
            self.scheduler = None


def serve(app: Any, runtime: Any, host: str, port: int) -> int:
    """Serves until Ctrl-C (or SIGTERM); the exit status gunicorn's arbiter ends with."""
    try:
        EmbeddedServer(app, runtime, host, port).run()
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 0
    return 0
