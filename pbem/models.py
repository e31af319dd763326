"""Database tables: the append-only event log, snapshots, the read model, secrets.

The event table is the truth; everything else is derived from it (snapshots and the
read model are caches updated in the same transaction as each event), except the seed
and the seat tokens' hashes, which the log must not hold.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Index, Text, column, func, text
from sqlmodel import Field, SQLModel

# The last schema version of the releases before Alembic (``schema_info``); the schema
# itself now moves by Alembic revisions (``pbem/alembic/versions``).
SCHEMA_VERSION = 2


class Event(SQLModel, table=True):
    """One event of a game's log. Primary key (game_id, seq): a stale writer collides."""

    __tablename__ = "events"

    game_id: str = Field(primary_key=True, max_length=32)
    seq: int = Field(primary_key=True)
    kind: str = Field(max_length=32)
    seat: int | None = None
    payload: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    chance: list[Any] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    state_hash: str = Field(max_length=64)
    prev_hash: str = Field(max_length=64)
    hash: str = Field(max_length=64)
    actor: str = Field(default="", max_length=200)
    created_at: str = Field(max_length=40)


class Snapshot(SQLModel, table=True):
    """A cached engine state after event ``seq``; deleting snapshots only costs speed."""

    __tablename__ = "snapshots"

    game_id: str = Field(primary_key=True, max_length=32)
    seq: int = Field(primary_key=True)
    engine_version: int
    state: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))


class Game(SQLModel, table=True):
    """Read model of a game: what lists, pages and the scheduler query."""

    __tablename__ = "games"
    # One index per listing query (see pbem.games.listing): by status, and by title and
    # status, each with the keyset (updated_at, id); the list of every status reads
    # each status's range of the first and merges them. A move moves its game in both
    # when it moves updated_at (at most once a minute, pbem.games.service.ACTIVITY_STEP),
    # so there are no more of them than the listings need, and they hold nothing a move
    # changes otherwise (head_seq is not in them). The status and the title alone are
    # their leading columns.
    __table_args__ = (
        Index("ix_games_listing_status", "status", "updated_at", "id"),
        Index("ix_games_listing_engine", "engine", "status", "updated_at", "id"),
    )

    id: str = Field(primary_key=True, max_length=32)
    engine: str = Field(max_length=64)
    engine_version: int
    title: str = Field(default="", max_length=200)
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    seat_count: int
    status: str = Field(default="active", max_length=16)
    commitment: str = Field(max_length=64)
    head_seq: int = 0
    head_hash: str = Field(max_length=64)
    head_state: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    to_move: list[int] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    phase: str = Field(default="", max_length=200)
    turn_started_at: datetime | None = None
    result: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    policy: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    creator_seat: int | None = None
    # Set while the game's creator has paused the whole game (an event in the log says
    # so): no moves, deadlines or reminders until it is resumed.
    paused_at: datetime | None = None
    # A private game is never listed (lobby, `pbem games`); its spectators need its link.
    private: bool = False
    # Whether the game ever had a webhook, a push subscription or a confirmed follower
    # (pbem.channels): a move that begins a turn looks for them only then, so the games
    # without any pay no query for them.
    notice_channels: bool = False
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None = None


class GameCount(SQLModel, table=True):
    """How many games there are of each title, status and visibility, for the listings'
    counts: reading them costs the same at 100 games and at a million.

    Triggers on ``games`` keep it (revisions 0012, 0013): a game made, finished, deleted
    or made private moves its count in the same transaction, whatever code wrote the
    row. ``events`` adds up the events (``head_seq + 1``) of the games that are not
    running (``/metrics`` reads every event from :class:`Tally` since revision 0018). A
    move of a running game changes none of it, so it never touches this table.
    """

    __tablename__ = "game_counts"

    engine: str = Field(primary_key=True, max_length=64)
    status: str = Field(primary_key=True, max_length=16)
    private: bool = Field(primary_key=True)
    games: int = 0
    events: int = Field(default=0, sa_column=Column(BigInteger, nullable=False, server_default="0"))


class Tally(SQLModel, table=True):
    """Counts that ``/metrics`` and ``/healthz`` read in a handful of rows, whatever the
    number of games, events and mails kept: ``events`` (every event appended) and
    ``mails:<status>`` (``mails:failed:<reason>`` for failed mail, by the prefix of its
    ``last_error``). A name's count is the sum of its rows.

    Triggers on ``events`` and ``mail_outbox`` keep them in the transaction of the change
    (revision 0018), whatever code wrote the row. ``shard`` is the PostgreSQL backend
    (``pg_backend_pid()``) whose transactions added the row, so concurrent writers never
    wait on one another's counter row (a single shared row would queue every move behind
    the last one's commit, and rows picked by game could deadlock with the dispatcher's
    batches); :func:`pbem.games.tallies.fold` moves the rows of backends that are gone
    into shard 0, so their number stays that of the live connections. SQLite has one
    writer at a time: everything is shard 0.
    """

    __tablename__ = "tallies"

    name: str = Field(primary_key=True, max_length=48)
    shard: int = Field(primary_key=True)
    count: int = Field(default=0, sa_column=Column(BigInteger, nullable=False, server_default="0"))


class Seat(SQLModel, table=True):
    """Read model of a seat: who holds it, whether it is due, since when."""

    __tablename__ = "seats"
    # ix_seats_email: an address's "my games" page finds its seats (by lower(email))
    # without a scan. ix_seats_due_bots, ix_seats_due_digest and ix_seats_talk_digest:
    # the scheduler's sweeps find the bots to play, the seats owed a digest and those
    # whose table talk comes by digest. All are partial: a move that hands the turn from
    # one player to another (who get a mail each turn) writes no index entry, and the
    # sweep reads only the seats that may owe something.
    __table_args__ = (
        Index("ix_seats_email", func.lower(column("email"))),
        Index(
            "ix_seats_due_bots",
            "game_id",
            sqlite_where=text("due = 1 AND is_bot = 1"),
            postgresql_where=text("due = true AND is_bot = true"),
        ),
        Index(
            "ix_seats_due_digest",
            "email",
            sqlite_where=text("due = 1 AND notify = 'digest'"),
            postgresql_where=text("due = true AND notify = 'digest'"),
        ),
        Index(
            "ix_seats_talk_digest",
            "game_id",
            sqlite_where=text("talk_mail = 'digest' AND is_bot = 0"),
            postgresql_where=text("talk_mail = 'digest' AND is_bot = false"),
        ),
    )

    game_id: str = Field(primary_key=True, max_length=32)
    seat: int = Field(primary_key=True)
    name: str = Field(default="", max_length=200)
    email: str = Field(default="", max_length=320)
    token_hash: str | None = Field(default=None, max_length=64, unique=True)
    is_bot: bool = False
    bot_level: str = Field(default="normal", max_length=16)
    due: bool = False
    due_since: datetime | None = None
    last_move_seq: int | None = None
    timezone: str = Field(default="UTC", max_length=64)
    # The hour of the day (0-23, in ``timezone``) the player wants reminders and the
    # digest at; None: reminders whenever they fall due, the digest at 08:00.
    mail_hour: int | None = None
    notify: str = Field(default="every_turn", max_length=16)
    # How table talk reaches this seat by mail: "at_once", "digest" or "off".
    talk_mail: str = Field(default="at_once", max_length=16)
    # The language of the seat's pages and mails (pbem.i18n.LANGUAGES); None: the
    # browser's choice on pages, English in mails.
    language: str | None = Field(default=None, max_length=8)
    # Whether the seat gave its contribution to the draws (chance scheme 2; a seat
    # contributes once: see pbem.eventlog.contributions).
    contributed: bool = False
    created_at: datetime


class GameSecret(SQLModel, table=True):
    """The seed of a game, kept apart from the log until the game ends.

    ``seed`` is sealed under a key derived from the server's key (AES-GCM, bound to the
    game id; see :func:`pbem.eventlog.seeds.seal_seed`), so a copy of the database alone
    predicts no draw. Databases from before sealing hold 64 hex digits until
    ``pbem migrate`` (or a start that upgrades the schema) seals them.
    """

    __tablename__ = "game_secrets"

    game_id: str = Field(primary_key=True, max_length=32)
    seed: str = Field(sa_column=Column(Text, nullable=False))
    # Chance scheme 2: the mix of the contributions recorded so far (sha256 hex; see
    # pbem.eventlog.chance); None for a game that draws from the seed alone.
    mix: str | None = Field(default=None, max_length=64)


class PendingGame(SQLModel, table=True):
    """A game whose seed is drawn and committed to, waiting for its creator's
    contribution (a game made in two steps, or an open game waiting for its players).
    ``id`` is the id the game will have; ``seed`` is sealed as a running game's is;
    ``contributions`` holds those given so far (as the ``created`` event will record
    them). Deleted when the game is made; a stale one is refused."""

    __tablename__ = "pending_games"

    id: str = Field(primary_key=True, max_length=32)
    seed: str = Field(sa_column=Column(Text, nullable=False))
    commitment: str = Field(max_length=64)
    contributions: list[dict[str, Any]] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False)
    )
    created_at: datetime


class AuditMark(SQLModel, table=True):
    """How far the audit page has verified a game's stored log, kept so that a view
    replays only the events after it: the last verified event's seq and hash, the state
    and the roster replayed there, and the draws re-derived so far. Derived: deleting it
    costs one replay of the whole log on the next view.

    ``roster`` (as a ``roster`` event carries it) spares a view the roster's events read
    from the whole log; None for a log without a roster and for marks kept before it
    was kept (then the view reads the roster's events).
    """

    __tablename__ = "audit_marks"

    game_id: str = Field(primary_key=True, max_length=32)
    seq: int
    hash: str = Field(max_length=64)
    engine_version: int
    commitment: str = Field(max_length=64)
    state: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    draws: int = 0
    seed_revealed: bool = False
    whole_at_end: bool = False
    verified_at: datetime
    roster: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))


class AuditQueue(SQLModel, table=True):
    """The games whose log has events the audit has not verified yet: the worker's list
    of work (:func:`pbem.eventlog.audit.catch_up`), so that finding it costs the same at
    100 and at 10,000 running games.

    Triggers on ``games`` (revision 0019) add a game when it is made or imported and
    whenever its ``head_seq`` moves, whatever code wrote the row; a game already listed
    is left as it is. The audit takes a game off once its mark is at the head (and, for
    a finished game, the whole log was replayed after the end). Derived: emptying it
    only leaves marks behind until the games' next events, and views then check more.
    """

    __tablename__ = "audit_queue"

    game_id: str = Field(primary_key=True, max_length=32)


class GameWebhook(SQLModel, table=True):
    """A webhook the game's creator set: each turn and the result are posted to ``url``
    (``kind``: ``discord``, ``slack`` or ``json``) by the worker (see
    :mod:`pbem.channels`). The address is a secret of the creator's: no page shows it
    whole once saved."""

    __tablename__ = "game_webhooks"

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(index=True, max_length=32)
    kind: str = Field(max_length=16)
    url: str = Field(max_length=2000)
    created_at: datetime


class PushSubscription(SQLModel, table=True):
    """A browser's web push subscription for one seat, made from the seat's settings
    page. ``holder`` is the seat's token hash when it was made: once the seat has
    another link (another player), the subscription no longer hears of it."""

    __tablename__ = "push_subscriptions"
    __table_args__ = (Index("ix_push_subscriptions_seat", "game_id", "seat"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(max_length=32)
    seat: int
    holder: str = Field(max_length=64)
    endpoint: str = Field(max_length=2000)
    p256dh: str = Field(max_length=200)
    auth: str = Field(max_length=100)
    created_at: datetime


class GameFollower(SQLModel, table=True):
    """A spectator following a public game by mail: ``every_turn`` (or the result only),
    confirmed by the link mailed to ``email`` (``confirmed_at``). ``token_hash`` is the
    hash of the follower's own secret, in the confirmation and unsubscribe links;
    ``client`` the network address that asked (requests are counted per address and
    per client)."""

    __tablename__ = "game_followers"
    __table_args__ = (
        Index("ix_game_followers_game", "game_id"),
        Index("ix_game_followers_person", "person"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(max_length=32)
    email: str = Field(max_length=320)
    person: str = Field(max_length=320)  # the address's canonical form
    every_turn: bool = False
    token_hash: str = Field(max_length=64, unique=True)
    client: str = Field(default="", max_length=64)
    confirmed_at: datetime | None = None
    created_at: datetime


class NoticeDelivery(SQLModel, table=True):
    """One turn notice to a webhook or a push subscription (``channel``, ``target``: the
    row's id), written in the transaction of the change and sent by the worker like
    mail: ``pending`` until ``sent``, ``failed``, ``dropped`` (no longer wanted) or
    ``held`` (over budget). ``key`` is unique: a notice is delivered once."""

    __tablename__ = "notice_deliveries"
    __table_args__ = (Index("ix_notice_deliveries_ready", "status", "next_attempt_at"),)

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(max_length=200, unique=True)
    channel: str = Field(max_length=16)
    target: int
    game_id: str = Field(max_length=32)
    seat: int | None = None
    payload: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    status: str = Field(default="pending", max_length=16)
    attempts: int = 0
    next_attempt_at: datetime
    lease_until: datetime | None = None
    last_error: str = Field(default="", max_length=500)
    created_at: datetime
    sent_at: datetime | None = None


class CalendarLink(SQLModel, table=True):
    """The link to an address's calendar of deadlines: an HMAC of the address and its
    ``generation`` under the server's key, found again by its hash. Raising the
    generation (a new link) revokes the old one."""

    __tablename__ = "calendar_links"

    address: str = Field(primary_key=True, max_length=320)
    generation: int = 0
    token_hash: str = Field(max_length=64, unique=True)


class SchemaInfo(SQLModel, table=True):
    """The schema version written by the releases before Alembic: they read it, and
    Alembic's ``alembic_version`` table records the revision since (see
    :mod:`pbem.migrations`)."""

    __tablename__ = "schema_info"

    id: int = Field(default=1, primary_key=True)
    version: int


class OpenGame(SQLModel, table=True):
    """A game looking for players (``/open``): what its creator chose, kept until its
    seats are full (or the creator starts it with bots in the seats still open); then
    the game is made with this id (:mod:`pbem.games.open_games`).

    ``seats`` lists each seat as its creator set it: ``{"kind": "person", "name",
    "email", "timezone"}`` (the creator's, at seat 0, and anyone she named), ``{"kind":
    "bot", "name", "level"}`` or ``{"kind": "open"}``. ``creator_token_hash`` opens the
    creator's page. ``status``: ``open``, ``starting`` (while one request makes the
    game), ``started`` or ``cancelled``. ``open_left`` counts the open seats nobody has
    confirmed yet (a pending hold still counts as left: it may lapse). Personal data:
    the addresses stay here and in ``open_seats``, never on a page."""

    __tablename__ = "open_games"
    __table_args__ = (Index("ix_open_games_listing", "status", "created_at"),)

    id: str = Field(primary_key=True, max_length=32)
    engine: str = Field(max_length=64)
    title: str = Field(default="", max_length=200)
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    policy: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    seats: list[dict[str, Any]] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False)
    )
    creator_email: str = Field(max_length=320)
    creator_token_hash: str = Field(max_length=64, unique=True)
    status: str = Field(default="open", max_length=16)
    open_left: int = 0
    created_at: datetime
    started_at: datetime | None = None


class OpenSeat(SQLModel, table=True):
    """A stranger's hold on an open seat of an :class:`OpenGame`: pending until they
    confirm it from the link mailed to ``email`` (its hash is ``token_hash``), which
    lapses at ``expires_at``; a lapsed pending hold frees the seat. ``confirmed_at`` is
    set once confirmed: the seat is theirs when the game starts."""

    __tablename__ = "open_seats"
    __table_args__ = (Index("ix_open_seats_person", "person", "confirmed_at", "expires_at"),)

    game_id: str = Field(primary_key=True, max_length=32)
    seat: int = Field(primary_key=True)
    name: str = Field(max_length=200)
    email: str = Field(max_length=320)
    # The address in its canonical form (:func:`pbem.validate.canonical_address`): one
    # person's holds are counted and found by it, whatever its case and +tags.
    person: str = Field(max_length=320)
    timezone: str = Field(default="UTC", max_length=64)
    token_hash: str = Field(max_length=64, unique=True)
    created_at: datetime
    expires_at: datetime
    confirmed_at: datetime | None = None
    # The joiner's contribution to the draws, given when confirming: ``{"by",
    # "contribution"}`` (pbem.eventlog.contributions).
    contribution: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))


class Profile(SQLModel, table=True):
    """A public handle an address claimed (:mod:`pbem.games.profiles`): ``/players/<handle>``
    shows the finished games, ratings and statistics of ``person`` (the address as "my
    games" knows it, lower case), never the address itself. ``handle_key`` is the handle
    in lower case (handles are unique whatever their case). ``hidden``: the page answers
    404 to everyone. A deleted profile keeps its row with ``person`` emptied until
    ``freed_at``, so nobody else takes the handle at once."""

    __tablename__ = "profiles"
    __table_args__ = (Index("ix_profiles_person", "person"),)

    handle_key: str = Field(primary_key=True, max_length=24)
    handle: str = Field(max_length=24)
    person: str = Field(default="", max_length=320)
    hidden: bool = False
    created_at: datetime
    freed_at: datetime | None = None


class PlayerGame(SQLModel, table=True):
    """One seat of a finished game as the profiles and ratings read it, written when the
    game ends (:mod:`pbem.games.ratings`): who held it at the end (``person``, lower
    case; empty for a bot), the name shown then, the rank among every seat, the seat's
    figures (moves, the hours it took over them, deadlines missed) and, when the game
    was rated, the seat's rating after it."""

    __tablename__ = "player_games"
    __table_args__ = (Index("ix_player_games_person", "person", "finished_at"),)

    game_id: str = Field(primary_key=True, max_length=32)
    seat: int = Field(primary_key=True)
    person: str = Field(default="", max_length=320)
    engine: str = Field(max_length=64)
    title: str = Field(default="", max_length=200)
    name: str = Field(default="", max_length=200)
    rank: int
    seats: int
    resigned: bool = False
    # A private game (never listed): a profile counts it but shows neither its title nor
    # who played it.
    private: bool = False
    moves: int = 0
    move_hours: float = 0.0
    missed_deadlines: int = 0
    mu: float | None = None
    sigma: float | None = None
    finished_at: datetime


class Rating(SQLModel, table=True):
    """One address's OpenSkill rating (Plackett-Luce) at one title: ``mu`` and ``sigma``,
    and ``conservative`` (mu - 3 sigma) that the leaderboard orders by."""

    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_board", "engine", "conservative"),)

    person: str = Field(primary_key=True, max_length=320)
    engine: str = Field(primary_key=True, max_length=64)
    mu: float
    sigma: float
    conservative: float
    games: int = 0
    updated_at: datetime


class RatedGame(SQLModel, table=True):
    """A finished game whose seats were recorded (and rated, if ``rated``): a game is
    counted once, whatever replays it again."""

    __tablename__ = "rated_games"

    game_id: str = Field(primary_key=True, max_length=32)
    engine: str = Field(max_length=64)
    rated: bool = False
    recorded_at: datetime
